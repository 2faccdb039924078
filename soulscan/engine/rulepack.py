"""Load, validate and compile YAML rule packs.

A pack is one YAML file: a ``pack`` header, optional runtime facts
(``scan_window``, ``invisible_chars``) and a list of ``rules``. Validation is
strict — unknown keys, bad regexes, bad scopes and duplicate ids stop the load
with a ``RulePackError`` naming the file and the rule — because a typo in a
security rule silently disables it.

Packs with ``dialect: python-re`` hold patterns written for Python's ``re``
module (the runtime's own table); they are translated by ``soulscan.engine.pyre``
so the ``regex`` module matches them identically. Other packs use ``regex``
syntax directly. Every compiled pattern is searched under a time limit
(``soulscan.engine.matcher``).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from soulscan.errors import RulePackError
from soulscan.models import Confidence, Severity

PACK_KEYS = {"pack", "scan_window", "invisible_chars", "rules"}
HEADER_KEYS = {
    "id", "name", "description", "dialect", "flags", "view", "runtime", "source", "scopes",
    "origin", "version",
}
RULE_KEYS = {
    "id", "name", "scope", "severity", "confidence", "message", "pattern", "flags", "view",
    "kinds", "tags", "docs", "examples", "category",
}
DOC_KEYS = {"why", "fix", "runtime", "reword", "references", "example", "what"}
EXAMPLE_KEYS = {"match", "no-match"}
DIALECTS = {"python-re", "regex"}
DEFAULT_SCOPES = ("all", "context", "strict")
ORIGINS = {"runtime", "hardened"}
FILE_KINDS = {
    "soul", "hermes", "agents", "claude", "cursorrules", "mdc", "memory", "user", "skill",
    "payload", "cron", "config", "prefill",
    # Surfaces only `soulscan hermes` reads (soulscan/audit); no file scan uses them.
    "skills-snapshot", "webhook",
    # A skill's scripts (soulscan.hardened.skill_bundle), and the skill judged as a bundle.
    "skill-script", "skill-bundle",
}
_FLAG_BITS = {"ignorecase": re.IGNORECASE, "multiline": re.MULTILINE, "dotall": re.DOTALL}
_REGEX_FLAG_BITS = {
    "ignorecase": regex.IGNORECASE, "multiline": regex.MULTILINE, "dotall": regex.DOTALL,
    "fullcase": regex.FULLCASE, "verbose": regex.VERBOSE,
}
_RULE_ID = regex.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
_NAME = regex.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


@dataclass(frozen=True)
class Examples:
    """A rule's own examples: texts it must match, and texts it must not."""

    match: tuple[str, ...] = ()
    no_match: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    """One validated rule of a pack, as the engine matches it."""

    id: str
    name: str
    pack: str
    scope: str
    severity: Severity
    confidence: Confidence
    message: str
    pattern: str
    docs: Mapping[str, str]
    examples: Examples
    tags: tuple[str, ...]
    view: str
    kinds: frozenset[str]  # empty: every kind
    origin: str  # "runtime" (the runtime's own table) or "hardened"
    # What ``compiled`` compiles: built-in packs compile a rule on first use, since
    # compiling all ~280 built-in rules with regex's parser would dominate start-up.
    regex_source: str = field(compare=False, repr=False)
    regex_flags: int = field(compare=False, repr=False)
    # python-re packs: ``compiled`` may be a quick-to-compile variant that is exact
    # on any text without a character of ``exact_guard``; otherwise ``exact_source``
    # (compiled on demand by the matcher) is used.
    exact_source: str | None = field(default=None, compare=False, repr=False)
    exact_guard: str | None = field(default=None, compare=False, repr=False)
    # One of these must occur in the (folded, for case-insensitive rules) text for
    # the pattern to match; None when no anchor could be proven (soulscan.engine.anchors).
    anchors: tuple[tuple[str, ...], ...] | None = field(default=None, compare=False, repr=False)
    anchors_folded: bool = field(default=False, compare=False, repr=False)
    # Built-in packs are linear by construction and reviewed; only user packs pay
    # for the per-search time limit (it doubles the cost of a short search).
    trusted: bool = field(default=False, compare=False, repr=False)

    @property
    def compiled(self) -> regex.Pattern[str]:
        return _compiled(self.regex_source, self.regex_flags)


@functools.cache
def _compiled(source: str, flags: int) -> regex.Pattern[str]:
    from soulscan.engine.regex_cache import compile_cached

    return compile_cached(source, flags)


@dataclass(frozen=True)
class RulePack:
    """One validated YAML pack: its header, runtime facts and rules."""

    id: str
    name: str
    path: Path
    dialect: str
    runtime: str | None
    origin: str
    scopes: tuple[str, ...]
    rules: tuple[Rule, ...]
    scan_window: int | None = None
    invisible_chars: frozenset[str] = frozenset()
    description: str = ""
    source: str = ""

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)


def rules_dir() -> Path:
    """The built-in packs: shipped inside the wheel, or ``rules/`` of a checkout."""
    packaged = Path(__file__).resolve().parent.parent / "_rules"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "rules"


class _PackReader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, what: str, rule_id: str | None = None) -> RulePackError:
        where = f"{self.path}" + (f": rule {rule_id!r}" if rule_id else "")
        return RulePackError(f"{where}: {what}")

    def read_text(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise self.fail(f"cannot read rule pack: {exc}") from exc

    def parse(self, raw: str) -> dict[str, Any]:
        import yaml  # only when a pack is not in the cache: importing it costs start-up

        try:
            data = yaml.load(raw, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as exc:
            first_line = str(exc).splitlines()[0] if str(exc) else "invalid YAML"
            raise self.fail(f"invalid YAML: {first_line}") from exc
        if not isinstance(data, dict):
            raise self.fail("a rule pack must be a mapping with 'pack' and 'rules'")
        self.check_keys(data, PACK_KEYS, "top level")
        return data

    def check_keys(self, data: Mapping[str, Any], allowed: set[str], where: str,
                   rule_id: str | None = None) -> None:
        unknown = sorted(str(k) for k in data if k not in allowed)
        if unknown:
            raise self.fail(f"unknown key {unknown[0]!r} in {where}", rule_id)

    def text(self, data: Mapping[str, Any], key: str, rule_id: str | None = None,
             required: bool = True, default: str = "") -> str:
        value = data.get(key, None)
        if value is None:
            if required:
                raise self.fail(f"missing {key!r}", rule_id)
            return default
        if not isinstance(value, str):
            raise self.fail(f"{key!r} must be a string", rule_id)
        return value

    def strings(self, value: Any, what: str, rule_id: str | None = None) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{what!r} must be a list of strings", rule_id)
        return tuple(value)


def _flags(reader: _PackReader, names: tuple[str, ...], table: Mapping[str, int],
           rule_id: str | None) -> int:
    bits = 0
    for name in names:
        if name not in table:
            raise reader.fail(f"unknown flag {name!r} (known: {', '.join(sorted(table))})", rule_id)
        bits |= table[name]
    return bits


_Compiled = tuple[str, int, str | None, str | None]


def _compile(reader: _PackReader, dialect: str, pattern: str, flag_names: tuple[str, ...],
             rule_id: str, trusted: bool) -> _Compiled:
    """The regex source and flags, plus the exact source and its guard for python-re
    packs. A user pack is compiled here, so a bad pattern stops the load."""
    from soulscan.engine import pyre

    try:
        if dialect == "python-re":
            bits = _flags(reader, flag_names, _FLAG_BITS, rule_id)
            exact = pyre.translate(pattern, bits)
            fast = pyre.fast_variant(exact)
            result: _Compiled = ((exact, regex.V1, None, None) if fast is None
                                 else (fast, regex.V1, exact, pyre.exactness_guard()))
        else:
            bits = _flags(reader, flag_names, _REGEX_FLAG_BITS, rule_id) | regex.V0
            result = (pattern, bits, None, None)
        if not trusted:
            _compiled(result[0], result[1])
        return result
    except RulePackError as exc:
        raise reader.fail(f"bad pattern: {exc}", rule_id) from exc
    except (regex.error, re.error, OverflowError, ValueError) as exc:
        raise reader.fail(f"bad pattern {pattern!r}: {exc}", rule_id) from exc


def _header(reader: _PackReader, data: dict[str, Any]) -> dict[str, Any]:
    header = data.get("pack")
    if not isinstance(header, dict):
        raise reader.fail("missing 'pack' header mapping")
    reader.check_keys(header, HEADER_KEYS, "pack header")
    return header


def load_pack(path: str | os.PathLike[str], *, trusted: bool = False) -> RulePack:
    """Read, validate and compile one pack; raise ``RulePackError`` on any problem.

    ``trusted`` is for the built-in packs only: their searches run without the
    per-search time limit that guards user packs. A pack validated before is read
    from the on-disk cache (keyed by its text, so an edit is never served stale);
    only a valid pack is ever cached.
    """
    from soulscan.engine import cache, pack_cache

    reader = _PackReader(Path(path))
    if trusted:  # a built-in pack unchanged since it was cached: its text is not needed
        known = pack_cache.known_name(reader.path)
        cached = None if known is None else pack_cache.from_data(
            cache.load(known), reader.path, trusted=True)
        if cached is not None:
            return cached
    status = _status(reader.path) if trusted else None  # before the text is read
    raw_text = reader.read_text()
    cache_name = pack_cache.cache_name(raw_text, trusted=trusted)
    if cache_name is not None:
        cached = pack_cache.from_data(cache.load(cache_name), reader.path, trusted=trusted)
        if cached is None:
            cached = _parse_pack(reader, reader.parse(raw_text), trusted)
            cache.store(cache_name, pack_cache.to_data(cached))
        if status is not None:
            pack_cache.remember_name(reader.path, status, cache_name)
        return cached
    return _parse_pack(reader, reader.parse(raw_text), trusted)


def _status(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _parse_pack(reader: _PackReader, data: dict[str, Any], trusted: bool) -> RulePack:
    header = _header(reader, data)
    pack_id = reader.text(header, "id")
    dialect = reader.text(header, "dialect", required=False, default="regex")
    if dialect not in DIALECTS:
        raise reader.fail(f"unknown dialect {dialect!r} (known: {', '.join(sorted(DIALECTS))})")
    origin = reader.text(header, "origin", required=False,
                         default="runtime" if dialect == "python-re" else "hardened")
    if origin not in ORIGINS:
        raise reader.fail(f"unknown origin {origin!r}")
    scopes = reader.strings(header.get("scopes"), "scopes") or DEFAULT_SCOPES
    pack_flags = reader.strings(header.get("flags"), "flags")
    pack_view = reader.text(header, "view", required=False, default="raw")
    raw_rules = data.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules:
        raise reader.fail("'rules' must be a non-empty list")
    rules: list[Rule] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_rules):
        rules.append(_rule(reader, raw, index, pack_id, dialect, origin, scopes, pack_flags,
                           pack_view, seen, trusted))
    invisible = frozenset(_codepoint(reader, v) for v in reader.strings(
        data.get("invisible_chars"), "invisible_chars"))
    window = data.get("scan_window")
    if window is not None and (not isinstance(window, int) or isinstance(window, bool)
                               or window <= 0):
        raise reader.fail("'scan_window' must be a positive integer")
    return RulePack(
        id=pack_id, name=reader.text(header, "name"), path=reader.path, dialect=dialect,
        runtime=header.get("runtime"), origin=origin, scopes=scopes, rules=tuple(rules),
        scan_window=window, invisible_chars=invisible,
        description=reader.text(header, "description", required=False),
        source=reader.text(header, "source", required=False),
    )


def _codepoint(reader: _PackReader, text: str) -> str:
    match = regex.fullmatch(r"U\+([0-9A-Fa-f]{4,6})", text)
    if not match or int(match.group(1), 16) > 0x10FFFF:
        raise reader.fail(f"invisible_chars entry {text!r} is not of the form U+XXXX")
    return chr(int(match.group(1), 16))


def _rule(reader: _PackReader, raw: Any, index: int, pack_id: str, dialect: str, origin: str,
          scopes: tuple[str, ...], pack_flags: tuple[str, ...], pack_view: str,
          seen: set[str], trusted: bool) -> Rule:
    if not isinstance(raw, dict):
        raise reader.fail(f"rule #{index + 1} must be a mapping")
    rule_id = raw.get("id")
    if not isinstance(rule_id, str) or not _RULE_ID.match(rule_id):
        raise reader.fail(f"rule #{index + 1}: 'id' must match {_RULE_ID.pattern}")
    reader.check_keys(raw, RULE_KEYS, "rule", rule_id)
    if rule_id in seen:
        raise reader.fail("duplicate rule id", rule_id)
    seen.add(rule_id)
    name = reader.text(raw, "name", rule_id)
    if not _NAME.match(name):
        raise reader.fail(f"'name' must be kebab-case ({_NAME.pattern})", rule_id)
    scope = reader.text(raw, "scope", rule_id)
    if scope not in scopes:
        raise reader.fail(f"unknown scope {scope!r} (known: {', '.join(scopes)})", rule_id)
    try:
        severity = Severity.parse(reader.text(raw, "severity", rule_id))
        confidence = Confidence.parse(reader.text(raw, "confidence", rule_id))
    except KeyError as exc:
        raise reader.fail(f"unknown severity or confidence {exc}", rule_id) from exc
    docs = raw.get("docs") or {}
    if not isinstance(docs, dict):
        raise reader.fail("'docs' must be a mapping", rule_id)
    reader.check_keys(docs, DOC_KEYS, "docs", rule_id)
    if not all(isinstance(v, str) for v in docs.values()):
        raise reader.fail("every 'docs' entry must be a string", rule_id)
    examples = raw.get("examples") or {}
    if not isinstance(examples, dict):
        raise reader.fail("'examples' must be a mapping", rule_id)
    reader.check_keys(examples, EXAMPLE_KEYS, "examples", rule_id)
    kinds = frozenset(reader.strings(raw.get("kinds"), "kinds", rule_id))
    unknown_kinds = sorted(kinds - FILE_KINDS)
    if unknown_kinds:
        raise reader.fail(f"unknown kind {unknown_kinds[0]!r}", rule_id)
    pattern = reader.text(raw, "pattern", rule_id)
    flags = reader.strings(raw.get("flags"), "flags", rule_id) or pack_flags
    category = raw.get("category")
    tags = reader.strings(raw.get("tags"), "tags", rule_id)
    if isinstance(category, str):
        tags = (*tags, category)
    source, bits, exact_source, exact_guard = _compile(reader, dialect, pattern, flags,
                                                       rule_id, trusted)
    anchors = _anchors(reader, dialect, pattern, flags, rule_id)
    return Rule(
        id=rule_id, name=name, pack=pack_id, scope=scope, severity=severity,
        confidence=confidence, message=reader.text(raw, "message", rule_id), pattern=pattern,
        docs=dict(docs),
        examples=Examples(reader.strings(examples.get("match"), "match", rule_id),
                          reader.strings(examples.get("no-match"), "no-match", rule_id)),
        tags=tags, view=reader.text(raw, "view", rule_id, required=False, default=pack_view),
        kinds=kinds, origin=origin,
        regex_source=source, regex_flags=bits, exact_source=exact_source,
        exact_guard=exact_guard,
        anchors=anchors, anchors_folded=dialect != "python-re" or "ignorecase" in flags,
        trusted=trusted,
    )


def _anchors(reader: _PackReader, dialect: str, pattern: str, flags: tuple[str, ...],
             rule_id: str) -> tuple[tuple[str, ...], ...] | None:
    from soulscan.engine.anchors import extract_anchors, extract_regex_anchors

    if dialect == "python-re":
        found = extract_anchors(pattern, _flags(reader, flags, _FLAG_BITS, rule_id))
    elif "fullcase" in flags:
        found = None  # full case folding matches "ss" to "ß": ASCII anchors would lie
    else:
        found = extract_regex_anchors(pattern)
    return None if found is None else tuple(tuple(group) for group in found)


def builtin_pack_paths() -> list[Path]:
    """Every ``*.yaml`` under ``rules_dir()``, as ``rglob("*.yaml")`` finds them (symbolic
    links to directories not followed), sorted: walked with ``os.walk``, a fifth of
    ``rglob``'s time at start-up."""
    found: list[Path] = []
    for directory, subdirectories, files in os.walk(rules_dir()):
        found.extend(Path(directory, name) for name in (*subdirectories, *files)
                     if name.endswith(".yaml"))
    return sorted(found)


@functools.cache
def builtin_packs() -> tuple[RulePack, ...]:
    return tuple(_builtin_pack(str(path)) for path in builtin_pack_paths())


# The packs of origin "hardened" live in this subdirectory of ``rules_dir()``, and only they
# (a test holds every built-in pack to that).
HARDENED_PACKS_DIR = "hardened"


@functools.cache
def builtin_packs_of(origin: str) -> tuple[RulePack, ...]:
    """The built-in packs of one origin, in ``builtin_packs``' order, without loading the
    others: a scan's hardened rules do not need the skills guard's or the cron tables."""
    hardened_dir = rules_dir() / HARDENED_PACKS_DIR
    chosen = (path for path in builtin_pack_paths()
              if (hardened_dir in path.parents) == (origin == "hardened"))
    return tuple(pack for pack in (_builtin_pack(str(path)) for path in chosen)
                 if pack.origin == origin)


@functools.cache
def _builtin_pack(path: str) -> RulePack:
    return load_pack(path, trusted=True)


RUNTIME_PACK_FILE = "hermes-0.19.yaml"


@functools.cache
def runtime_pack() -> RulePack:
    """The Hermes 0.19.0 context/memory scanner table."""
    return _builtin_pack(str(rules_dir() / RUNTIME_PACK_FILE))
