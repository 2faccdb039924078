"""Decoding of the shared conformance file's plain-data conventions.

The conformance file (``../shared/conformance/hermes-0.19.0.jsonl``, format in its README)
keeps large inputs small and machine-dependent values stable with a few conventions. This
module turns them into real inputs and compares real outputs against them:

- :func:`decode_text` expands a *text spec* (``str`` or ``{"$concat": [...]}`` with
  ``{"$repeat": [unit, count]}`` parts).
- :func:`materialise` lays out a case's files as three sibling directories of a fresh
  temporary directory (``<tmp>/w`` = ``{ROOT}``, ``<tmp>/hh`` = ``{HERMES_HOME}``,
  ``<tmp>/home`` = ``{HOME}``) and returns a :class:`Workspace`, whose ``fill`` / ``unfill``
  swap placeholders and real paths (recursively, in any JSON-like value).
- :func:`read_back` reads a path back in the file-tree value form (text, ``$bytes_b64``,
  ``{"$dir": true}`` or ``None``).
- :func:`expect_equal` (from :mod:`support.compare`, re-exported here) compares an actual
  value (already ``unfill``-ed) with an expected one, honouring ``$blob``, ``{TS}``,
  unordered invisible findings and unordered hint blocks.

Only the standard library is used, so any test (or tool) can import it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.compare import (
    blob,
    escape,
    expect_equal,
    invisible_codepoints,
    map_strings,
    same_first_message,
    sort_invisible_runs,
    string_difference,
)

# The comparison helpers live in support.compare; re-exported for existing importers.
__all__ = [
    "CONFORMANCE_NAME",
    "Case",
    "Workspace",
    "blob",
    "conformance_path",
    "decode_text",
    "escape",
    "expect_equal",
    "file_bytes",
    "invisible_codepoints",
    "load_cases",
    "materialise",
    "read_back",
    "same_first_message",
    "shared_dir",
    "sort_invisible_runs",
    "string_difference",
    "write_tree",
]

CONFORMANCE_NAME = "hermes-0.19.0.jsonl"


def shared_dir() -> Path:
    """``/work/shared`` locally, ``../shared`` beside the checkout in CI."""
    return Path(__file__).resolve().parents[2].parent / "shared"


def conformance_path() -> Path:
    return shared_dir() / "conformance" / CONFORMANCE_NAME


# --------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One line of the conformance file."""

    id: str
    area: str
    kind: str
    input: Mapping[str, Any]
    expected: Mapping[str, Any]
    note: str | None = None

    @property
    def unordered_invisible(self) -> bool:
        return self.expected.get("invisible_order") == "unordered"


def load_cases(areas: Iterable[str] | None = None, path: Path | None = None) -> list[Case]:
    """All cases of the given areas (all areas when ``None``), in file order."""
    wanted = None if areas is None else set(areas)
    cases = []
    with (path or conformance_path()).open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            raw = json.loads(line)
            if wanted is not None and raw["area"] not in wanted:
                continue
            cases.append(
                Case(
                    id=raw["id"],
                    area=raw["area"],
                    kind=raw["input"]["kind"],
                    input=raw["input"],
                    expected=raw["expected"],
                    note=raw.get("note"),
                )
            )
    return cases


# --------------------------------------------------------------------------- text and files


def decode_text(spec: Any) -> str:
    """Expand a text spec: a string, or ``{"$concat": [str | {"$repeat": [unit, n]}, ...]}``."""
    if isinstance(spec, str):
        return spec
    if isinstance(spec, Mapping) and set(spec) == {"$concat"}:
        parts = []
        for part in spec["$concat"]:
            if isinstance(part, Mapping) and set(part) == {"$repeat"}:
                unit, count = part["$repeat"]
                parts.append(decode_text(unit) * int(count))
            else:
                parts.append(decode_text(part))
        return "".join(parts)
    raise ValueError(f"not a text spec: {spec!r:.120}")


def file_bytes(value: Any) -> bytes:
    """Bytes of a file-tree value: ``{"$bytes_b64": ...}`` or a text spec as UTF-8."""
    if isinstance(value, Mapping) and set(value) == {"$bytes_b64"}:
        return base64.b64decode(value["$bytes_b64"])
    # surrogatepass: a lone surrogate in a spec must still produce a (broken) file.
    return decode_text(value).encode("utf-8", "surrogatepass")


def write_tree(base: Path, tree: Mapping[str, Any]) -> None:
    """Write ``{relpath: value}`` under ``base``; ``"dir/": None`` makes a directory.

    Keys may start with ``../`` to land beside ``base``. Bytes are written exactly (no
    newline translation). Directories are created before files so ``a/`` and ``a/b`` mix.
    """
    for rel in sorted((k for k in tree if k.endswith("/")), key=len):
        (base / rel).mkdir(parents=True, exist_ok=True)
    for rel, value in tree.items():
        if rel.endswith("/"):
            continue
        target = base / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file_bytes(value))


def read_back(path: Path) -> Any:
    """A path in file-tree value form: text, ``$bytes_b64``, ``{"$dir": True}``, or None."""
    if path.is_dir():
        return {"$dir": True}
    if not path.exists():
        return None
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"$bytes_b64": base64.b64encode(data).decode("ascii")}


@dataclass(frozen=True)
class Workspace:
    """The three sibling directories of a materialised case."""

    base: Path
    root: Path = field(init=False)
    hermes_home: Path = field(init=False)
    home: Path = field(init=False)

    def __post_init__(self) -> None:
        base = self.base.resolve()
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "root", base / "w")
        object.__setattr__(self, "hermes_home", base / "hh")
        object.__setattr__(self, "home", base / "home")

    def _pairs(self) -> list[tuple[str, str]]:
        return [
            ("{HERMES_HOME}", str(self.hermes_home)),
            ("{ROOT}", str(self.root)),
            ("{HOME}", str(self.home)),
        ]

    def fill(self, value: Any) -> Any:
        """Replace placeholders by real paths in every string of ``value``."""
        return map_strings(value, self._fill_str)

    def unfill(self, value: Any) -> Any:
        """Replace real paths by placeholders in every string of ``value``."""
        return map_strings(value, self._unfill_str)

    def _fill_str(self, text: str) -> str:
        for placeholder, real in self._pairs():
            text = text.replace(placeholder, real)
        return text

    def _unfill_str(self, text: str) -> str:
        # Longest real path first, so a path is never half-replaced by a shorter sibling.
        for placeholder, real in sorted(self._pairs(), key=lambda p: -len(p[1])):
            text = text.replace(real, placeholder)
        return text

    def cwd(self, rel: str | None) -> Path:
        """``ROOT/<rel>`` (``ROOT`` itself for ``""`` or ``None``)."""
        return self.root / rel if rel else self.root


def materialise(case_input: Mapping[str, Any], tmp_path: Path) -> Workspace:
    """Lay out a case's files under ``tmp_path`` and return the workspace.

    ``tree`` goes under ROOT; ``hermes_home`` under HERMES_HOME, ``config`` (a mapping)
    becomes ``HERMES_HOME/config.yaml`` (written as JSON, which YAML reads identically),
    ``files`` (memory cases) go under ``HERMES_HOME/memories``. All three directories exist
    afterwards, and ``tmp_path`` must hold no ``.git`` / ``.hermes.md`` ancestor.
    """
    ws = Workspace(tmp_path)
    for directory in (ws.root, ws.hermes_home, ws.home):
        directory.mkdir(parents=True, exist_ok=True)
    write_tree(ws.root, case_input.get("tree") or {})
    write_tree(ws.hermes_home, case_input.get("hermes_home") or {})
    if "config" in case_input and case_input["config"] is not None:
        config = case_input["config"]
        text = config if isinstance(config, str) else json.dumps(config)
        (ws.hermes_home / "config.yaml").write_text(text, encoding="utf-8")
    if case_input.get("files"):
        write_tree(ws.hermes_home / "memories", case_input["files"])
    return ws
