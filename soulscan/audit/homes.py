"""The homes of one Hermes installation: the default home and every ``profiles/<name>/``.

Hermes 0.19.0 treats each profile directory as a complete ``HERMES_HOME`` of its own
(``hermes_cli/profiles.py``: a profile is selected by pointing ``HERMES_HOME`` at
``<home>/profiles/<name>``), so every surface is audited once per home.

Everything here only reads; config.yaml is read with the runtime's semantics
(``soulscan.hermes.truncation.read_hermes_config``: a file the runtime cannot use
counts as no config at all) and composed a second time for line numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from soulscan.audit.files import is_unreadable_special, read_text
from soulscan.audit.source import KeyPath, Marks, SourceText
from soulscan.hermes.truncation import CONFIG_FILENAME, read_hermes_config

PROFILES_DIR = "profiles"
DEFAULT_LABEL = "default"


@dataclass(frozen=True)
class Home:
    label: str  # "default", or the profile's name
    path: Path
    config: dict[Any, Any]  # what the runtime reads ({} when it falls back to defaults)
    config_text: str | None  # the file as decoded, for line numbers
    marks: Marks

    def shown(self, relative: str) -> str:
        """How a file of this home is named in the report."""
        return str(self.path / relative)

    @property
    def config_display(self) -> str:
        return self.shown(CONFIG_FILENAME)

    def config_source(self, path: KeyPath, text: str) -> SourceText:
        return self.marks.source(path, text)


class UnreadableConfig(Exception):
    """config.yaml exists but is not a regular file: opening it could block for ever."""


def load_home(label: str, path: Path) -> Home:
    if is_unreadable_special(path / CONFIG_FILENAME):
        raise UnreadableConfig(str(path / CONFIG_FILENAME))
    config = read_hermes_config(path)
    try:
        text: str | None = read_text(path / CONFIG_FILENAME)
    except (OSError, UnicodeDecodeError):
        text = None
    return Home(label, path, config, text, Marks(text or ""))


def installation_paths(root: Path) -> list[tuple[str, Path]]:
    """The default home first, then each profile by name."""
    homes = [(DEFAULT_LABEL, root)]
    profiles = root / PROFILES_DIR
    if profiles.is_dir():
        homes += [(entry.name, entry) for entry in sorted(profiles.iterdir(), key=lambda p: p.name)
                  if entry.is_dir()]
    return homes


def installation_homes(root: Path) -> list[Home]:
    return [load_home(label, path) for label, path in installation_paths(root)]


def config_section(home: Home, *keys: str) -> Any:
    """``config[k1][k2]...`` or None when any step is missing or not a mapping."""
    value: Any = home.config
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
