"""Project configuration: ``.soulscan.yaml`` or ``[tool.soulscan]`` in pyproject.toml.

The result is a frozen ``Settings``. Every key is checked: an unknown key, a wrong type
or a bad value is a ``ConfigError`` that names the file and the key, because a typo in
a security tool's config must not silently turn a check off.

Keys are kebab-case (``fail-on``); the snake_case spelling (``fail_on``) is accepted too.
Relative paths in a config file are resolved against the directory holding that file.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from soulscan.engine import cache
from soulscan.errors import ConfigError
from soulscan.models import Severity

if TYPE_CHECKING:
    from soulscan.suppress import Suppression

YAML_NAMES = (".soulscan.yaml", ".soulscan.yml")
PYPROJECT = "pyproject.toml"
PROFILES = ("runtime", "hardened", "all")
# "block": anything that makes Hermes block a file or a memory entry; "never": report only.
FAIL_ON_CHOICES = ("block", "info", "low", "medium", "high", "critical", "never")


@dataclass(frozen=True)
class Settings:
    """The project's settings (``[tool.soulscan]`` or ``.soulscan.yaml``), or the defaults."""

    source: Path | None = None  # the file these settings came from; None for defaults
    paths: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    profile: str | None = None
    fail_on: str | None = None
    enable: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    severity: Mapping[str, Severity] = field(
        default_factory=lambda: types.MappingProxyType({}), hash=False
    )
    rule_packs: tuple[Path, ...] = ()
    hermes_home: Path | None = None
    context_length: int | None = None
    suppressions: tuple[Suppression, ...] = ()
    baseline: Path | None = None


def find_config(start: Path) -> Path | None:
    """The nearest config file from ``start`` upwards, stopping at a git root.

    ``.soulscan.yaml`` wins over pyproject.toml in the same directory; a pyproject.toml
    without a ``[tool.soulscan]`` table does not count.
    """
    directory = start.resolve()
    while True:
        for name in YAML_NAMES:
            if (directory / name).is_file():
                return directory / name
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _pyproject_table(pyproject) is not None:
            return pyproject
        if (directory / ".git").exists() or directory.parent == directory:
            return None
        directory = directory.parent


def load_settings(config: Path | None = None, *, start: Path | None = None) -> Settings:
    """Settings from an explicit file, else from the nearest config, else defaults."""
    if config is None:
        config = find_config(start if start is not None else Path.cwd())
        if config is None:
            return Settings()
    elif not config.is_file():
        raise ConfigError(f"{config}: config file not found")
    return parse_settings(_read_table(config), source=config)


def parse_settings(table: Mapping[str, Any], *, source: Path) -> Settings:
    """Validate a raw ``[tool.soulscan]``/YAML mapping into ``Settings``."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{source}: the soulscan configuration must be a mapping")
    base = source.parent
    values: dict[str, Any] = {}
    for raw_key, raw_value in table.items():
        key = str(raw_key).replace("_", "-")
        parser = _PARSERS.get(key)
        if parser is None:
            known = ", ".join(sorted(_PARSERS))
            raise ConfigError(f"{source}: unknown key {raw_key!r} (known keys: {known})")
        attribute = key.replace("-", "_")
        if attribute in values:
            raise ConfigError(f"{source}: key {raw_key!r} is given twice")
        values[attribute] = parser(raw_value, f"{source}: {key}", base)
    return Settings(source=source, **values)


def _read_table(path: Path) -> Mapping[str, Any]:
    if path.name == PYPROJECT or path.suffix == ".toml":
        table = _pyproject_table(path)
        if table is None:
            raise ConfigError(f"{path}: no [tool.soulscan] table")
        return table
    import yaml  # the parsers are imported only when a config file exists: start-up

    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {_one_line(str(exc))}") from None
    return {} if loaded is None else loaded


def _pyproject_table(path: Path) -> Mapping[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    return _tool_table(text, str(path))


# Bump when what is kept for a pyproject.toml changes shape.
PYPROJECT_CACHE_FORMAT = 2
# One record a table, in this subdirectory of the cache, emptied once it holds too many.
_PYPROJECT_TABLES = "pyproject"
MAX_PYPROJECT_TABLES = 64
_written = [0]


@functools.lru_cache(maxsize=8)  # finding the config and reading it ask about one file
def _tool_table(text: str, path: str) -> Mapping[str, Any] | None:
    """The ``[tool.soulscan]`` table of a pyproject.toml with this text (None: it has none).

    A scan in a Python project reads its pyproject.toml, and importing tomllib costs more
    than the parse: the table, when it is plain data, is kept in the start-up cache under
    a digest of the text (so an edit is never served stale). A failure is not kept.
    """
    key = cache.interpreter_key(f"pyproject {PYPROJECT_CACHE_FORMAT}", text)
    name = f"{_PYPROJECT_TABLES}/{key}.bin"
    stored = cache.load(name)
    if type(stored) is tuple and len(stored) == 1 and (stored[0] is None
                                                       or _plain_table(stored[0])):
        return stored[0]  # type: ignore[no-any-return]
    table = _parsed_tool_table(text, path)
    if table is None or _plain_table(table):
        cache.store_bounded(name, (table,), written=_written, most_new=MAX_PYPROJECT_TABLES,
                            subdirectory=_PYPROJECT_TABLES, most_on_disk=MAX_PYPROJECT_TABLES)
    return table


def _parsed_tool_table(text: str, path: str) -> Mapping[str, Any] | None:
    import tomllib

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    table = document.get("tool", {}).get("soulscan")
    if table is not None and not isinstance(table, Mapping):
        raise ConfigError(f"{path}: [tool.soulscan] must be a table")
    return table


def _plain_table(value: Any) -> bool:
    """Whether ``value`` is a table of what TOML parses to, dates and times apart (what the
    cache keeps as it is)."""
    if type(value) is not dict:
        return False
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if type(item) is dict:
            if not all(type(key) is str for key in item):
                return False
            pending.extend(item.values())
        elif type(item) is list:
            pending.extend(item)
        elif type(item) not in (str, int, float, bool):
            return False
    return True


def _one_line(text: str) -> str:
    return " ".join(text.split())


# Each parser takes (raw value, "file: key" for messages, config directory).


def _strings(value: Any, where: str, _base: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where}: expected a list of non-empty strings")
    return tuple(value)


def _choice(choices: tuple[str, ...]) -> Callable[[Any, str, Path], str]:
    def parse(value: Any, where: str, _base: Path) -> str:
        if not isinstance(value, str) or value.strip().lower() not in choices:
            raise ConfigError(f"{where}: expected one of {', '.join(choices)}, got {value!r}")
        return value.strip().lower()

    return parse


def _severities(value: Any, where: str, _base: Path) -> Mapping[str, Severity]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: expected a mapping of rule id to severity")
    result: dict[str, Severity] = {}
    for rule_id, level in value.items():
        try:
            result[str(rule_id)] = Severity.parse(str(level))
        except KeyError:
            names = ", ".join(str(s) for s in Severity)
            raise ConfigError(
                f"{where}: {rule_id}: unknown severity {level!r} (expected {names})"
            ) from None
    return types.MappingProxyType(result)


def _path(value: Any, where: str, base: Path) -> Path:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: expected a path")
    return base / Path(value).expanduser()


def _paths(value: Any, where: str, base: Path) -> tuple[Path, ...]:
    return tuple(base / Path(v).expanduser() for v in _strings(value, where, base))


def _positive_int(value: Any, where: str, _base: Path) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where}: expected a positive integer, got {value!r}")
    return value


def _suppressions(value: Any, where: str, _base: Path) -> tuple[Suppression, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: expected a list of suppressions")
    from soulscan.suppress import parse_suppression  # only a config with suppressions

    return tuple(parse_suppression(item, f"{where}[{i}]") for i, item in enumerate(value))


_PARSERS: dict[str, Callable[[Any, str, Path], Any]] = {
    "paths": _strings,
    "exclude": _strings,
    "profile": _choice(PROFILES),
    "fail-on": _choice(FAIL_ON_CHOICES),
    "enable": _strings,
    "disable": _strings,
    "severity": _severities,
    "rule-packs": _paths,
    "hermes-home": _path,
    "context-length": _positive_int,
    "suppressions": _suppressions,
    "baseline": _path,
}
