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
- :func:`expect_equal` compares an actual value (already ``unfill``-ed) with an expected
  one, honouring ``$blob`` (length + sha256), ``{TS}`` in backup names, unordered
  invisible-character findings and unordered subdirectory-hint blocks, and raises
  ``AssertionError`` with the JSON path and an escaped excerpt of the first difference.

Only the standard library is used, so any test (or tool) can import it.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CONFORMANCE_NAME = "hermes-0.19.0.jsonl"
_INVISIBLE_ID = re.compile(r"invisible_unicode_U\+[0-9A-F]{4,6}")
# A run of two or more invisible ids inside a ", "-joined id list (BLOCKED placeholders).
_INVISIBLE_RUN = re.compile(
    r"invisible_unicode_U\+[0-9A-F]{4,6}(?:, invisible_unicode_U\+[0-9A-F]{4,6})+"
)
_FIRST_MESSAGE_CHAR = re.compile(r"invisible unicode character U\+([0-9A-F]{4,6})")
_BACKUP_TS = re.compile(r"\.bak\.\d+")


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
        return _map_strings(value, self._fill_str)

    def unfill(self, value: Any) -> Any:
        """Replace real paths by placeholders in every string of ``value``."""
        return _map_strings(value, self._unfill_str)

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


def _map_strings(value: Any, func: Any) -> Any:
    if isinstance(value, str):
        return func(value)
    if isinstance(value, list):
        return [_map_strings(v, func) for v in value]
    if isinstance(value, tuple):
        return tuple(_map_strings(v, func) for v in value)
    if isinstance(value, Mapping):
        return {
            func(k) if isinstance(k, str) else k: _map_strings(v, func) for k, v in value.items()
        }
    return value


# --------------------------------------------------------------------------- comparison


def blob(text: str) -> dict[str, Any]:
    """The ``$blob`` form of a string (used for long expected strings)."""
    data = text.encode("utf-8", "surrogatepass")
    return {
        "$blob": {
            "len": len(text),
            "sha256": hashlib.sha256(data).hexdigest(),
            "head": text[:300],
            "tail": text[-300:],
        }
    }


def sort_invisible_runs(value: Any) -> Any:
    """Canonical form of hash-ordered invisible findings, anywhere inside ``value``.

    In a list of ids the leading ``invisible_unicode_*`` run is sorted; in a string every
    ``", "``-joined run of two or more such ids is sorted. Used on both sides of a
    comparison where the runtime's set-iteration order is not meaningful.
    """
    if isinstance(value, str):
        return _INVISIBLE_RUN.sub(lambda m: ", ".join(sorted(m.group(0).split(", "))), value)
    if isinstance(value, tuple):
        return tuple(sort_invisible_runs(list(value)))
    if isinstance(value, list):
        lead = 0
        while (
            lead < len(value)
            and isinstance(value[lead], str)
            and _INVISIBLE_ID.fullmatch(value[lead])
        ):
            lead += 1
        return sorted(value[:lead]) + [sort_invisible_runs(v) for v in value[lead:]]
    if isinstance(value, Mapping):
        return {k: sort_invisible_runs(v) for k, v in value.items()}
    return value


def invisible_codepoints(text: str) -> set[str]:
    """``XXXX`` hex names of the runtime's invisible characters in a text (any of them)."""
    from_runtime = {
        0x200B, 0x200C, 0x200D, 0x2060, 0x2062, 0x2063, 0x2064, 0xFEFF,
        0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    }  # fmt: skip
    return {f"{ord(ch):04X}" for ch in set(text) if ord(ch) in from_runtime}


def same_first_message(actual: Any, expected: Any, scanned_text: str) -> bool:
    """``first_threat_message`` equality where the named invisible char may be any present.

    The runtime names the first invisible character in set-iteration order; any character
    of the runtime's set present in the scanned window is an acceptable answer.
    """
    if actual == expected:
        return True
    if not (isinstance(actual, str) and isinstance(expected, str)):
        return False
    got, want = _FIRST_MESSAGE_CHAR.search(actual), _FIRST_MESSAGE_CHAR.search(expected)
    if not (got and want):
        return False
    present = invisible_codepoints(scanned_text[:65536])
    same_shape = _FIRST_MESSAGE_CHAR.sub("", actual) == _FIRST_MESSAGE_CHAR.sub("", expected)
    return same_shape and got.group(1) in present and want.group(1) in present


def expect_equal(actual: Any, expected: Any, case: Case | None = None) -> None:
    """Assert ``actual`` (placeholders already restored) matches ``expected``.

    Raises ``AssertionError`` naming the case, the JSON path of the first difference and
    an escaped excerpt around it.
    """
    if case is not None and case.unordered_invisible:
        actual, expected = sort_invisible_runs(actual), sort_invisible_runs(expected)
        expected = (
            {k: v for k, v in expected.items() if k != "invisible_order"}
            if isinstance(expected, Mapping)
            else expected
        )
    if "{TS}" in json.dumps(expected):
        actual = _map_strings(actual, lambda s: _BACKUP_TS.sub(".bak.{TS}", s))
    problem = next(_differences(actual, expected, "$"), None)
    if problem is not None:
        prefix = f"[{case.id}] " if case is not None else ""
        raise AssertionError(prefix + problem)


def _differences(actual: Any, expected: Any, where: str) -> Iterator[str]:
    if isinstance(expected, Mapping) and set(expected) == {"$blob"}:
        yield from _blob_differences(actual, expected["$blob"], where)
    elif isinstance(expected, Mapping) and expected.get("order_may_vary") is True:
        yield from _unordered_blocks_differences(actual, expected["blocks"], where)
    elif isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            yield f"{where}: expected an object, got {_show(actual)}"
            return
        for key in expected:
            if key not in actual:
                yield f"{where}: missing key {key!r}"
                return
            yield from _differences(actual[key], expected[key], f"{where}.{key}")
        extra = sorted(set(actual) - set(expected))
        if extra:
            yield f"{where}: unexpected keys {extra}"
    elif isinstance(expected, list):
        if not isinstance(actual, (list, tuple)):
            yield f"{where}: expected a list, got {_show(actual)}"
            return
        for index, (a, e) in enumerate(zip(actual, expected)):
            yield from _differences(a, e, f"{where}[{index}]")
        if len(actual) != len(expected):
            yield f"{where}: length {len(actual)} != expected {len(expected)}: {_show(actual)}"
    elif isinstance(expected, str) and isinstance(actual, str):
        if actual != expected:
            yield f"{where}: {string_difference(actual, expected)}"
    elif actual != expected or type(actual) is not type(expected):
        yield f"{where}: got {_show(actual)}, expected {_show(expected)}"


def _blob_differences(actual: Any, spec: Mapping[str, Any], where: str) -> Iterator[str]:
    if not isinstance(actual, str):
        yield f"{where}: expected a {spec['len']}-char string, got {_show(actual)}"
        return
    digest = hashlib.sha256(actual.encode("utf-8", "surrogatepass")).hexdigest()
    if len(actual) == spec["len"] and digest == spec["sha256"]:
        return
    head, tail = actual[:300], actual[-300:]
    detail = (
        string_difference(head, spec["head"])
        if head != spec["head"]
        else string_difference(tail, spec["tail"])
        if tail != spec["tail"]
        else "head and tail agree, the middle differs"
    )
    yield f"{where}: blob mismatch (len {len(actual)} vs {spec['len']}): {detail}"


def _unordered_blocks_differences(actual: Any, blocks: list[str], where: str) -> Iterator[str]:
    if isinstance(actual, str) and len(blocks) <= 7:
        for order in itertools.permutations(blocks):
            if actual == "\n\n" + "\n\n".join(order):
                return
    yield f"{where}: not any order of the {len(blocks)} expected hint blocks: {_show(actual)}"


def string_difference(actual: str, expected: str) -> str:
    """Where two strings first differ, with escaped context from both."""
    index = next(
        (i for i, (a, e) in enumerate(zip(actual, expected)) if a != e),
        min(len(actual), len(expected)),
    )
    start = max(0, index - 40)
    return (
        f"first difference at char {index} (len {len(actual)} vs {len(expected)}): "
        f"got …{escape(actual[start : index + 60])}… expected …{escape(expected[start : index + 60])}…"
    )


def escape(text: str) -> str:
    """ASCII-only rendering, so no attacker-controlled character reaches a terminal raw."""
    return text.encode("unicode_escape", "backslashreplace").decode("ascii")


def _show(value: Any) -> str:
    rendered = json.dumps(value, ensure_ascii=True, default=repr)
    return rendered if len(rendered) <= 300 else rendered[:300] + "…"
