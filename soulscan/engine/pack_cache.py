"""A validated rule pack as plain data, so start-up skips YAML parsing and validation.

``soulscan.engine.rulepack.load_pack`` stores every pack it validated under a name
derived from the pack's bytes and the code that derives it (``cache_name``), so an
edited pack or a changed loader is never served stale. A cached entry is checked
field by field on the way back in: anything malformed (a torn or hand-edited file, an
older format) is treated as a miss and the pack is parsed again.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from itertools import chain
from pathlib import Path
from typing import Any

from soulscan.engine import cache
from soulscan.engine.rulepack import Examples, Rule, RulePack
from soulscan.models import Confidence, Severity

# Bump when the shape below changes (the code digest would catch it too).
FORMAT = 4
# Everything that decides what a pack compiles to: the loader, the python-re
# translation, the anchor extraction, this module and the value types.
_CODE_FILES = ("rulepack.py", "pyre.py", "anchors.py", "pack_cache.py", "../models.py")


class _Malformed(ValueError):
    """A cached entry that does not have the shape ``to_data`` writes."""


@functools.cache
def _code_digest() -> bytes | None:
    here = Path(__file__).parent
    try:
        sources = b"\0".join((here / name).read_bytes() for name in _CODE_FILES)
    except OSError:
        return None  # installed without sources: nothing to key a cached pack by
    return cache.sha256(sources).digest()  # hashed once, not once a pack


@functools.cache
def _names() -> cache.StoredTable | None:
    """Built-in pack file -> (its modification time in ns and size, the record it was
    cached under then): an unchanged built-in pack is read from its record without its
    YAML being read and hashed first (~1 ms a scan). Keyed by the state (size and
    modification time) of each file of the code the records' names digest: while that
    code is unchanged, so are the names, and a start-up neither reads nor hashes it."""
    states = _code_states()
    if states is None:
        return None
    key = cache.environment_key(f"names {FORMAT}", *states)
    return cache.StoredTable(f"pack-names-{key}.bin", cache.MAX_MEMO_ENTRIES)


def _code_states() -> list[str] | None:
    """Each code file's path, size and modification time, or None when one is missing."""
    here = Path(__file__).parent
    states = []
    for name in _CODE_FILES:
        try:
            status = os.stat(here / name)
        except OSError:
            return None  # installed without sources: nothing to key a cached pack by
        states.append(f"{here / name}\0{status.st_size}\0{status.st_mtime_ns}")
    return states


def known_name(path: Path) -> str | None:
    """The record a built-in pack at ``path`` was cached under, while its file is unchanged
    (its size and modification time); None otherwise."""
    table = _names()
    if table is None or not path.is_absolute():
        return None
    entry = table.new.get(str(path)) or table.known.get(str(path))
    if not (type(entry) is tuple and len(entry) == 3 and type(entry[0]) is int
            and type(entry[1]) is int and type(entry[2]) is str):
        return None
    try:
        status = os.stat(path)
    except OSError:
        return None
    modified, size, name = entry
    return name if (status.st_mtime_ns, status.st_size) == (modified, size) else None


def remember_name(path: Path, status: os.stat_result, name: str) -> None:
    """Note that the built-in pack at ``path``, as it was when ``status`` was taken (before
    its text was read), is cached as ``name``."""
    table = _names()
    if table is not None and path.is_absolute():
        table.new[str(path)] = (status.st_mtime_ns, status.st_size, name)


def cache_name(pack_text: str, *, trusted: bool) -> str | None:
    """The cache file of a pack with this text, loaded as built-in or not (None: no cache)."""
    code = _code_digest()
    if code is None:
        return None
    key = cache.environment_key(f"format {FORMAT}", f"trusted {trusted}", code, pack_text)
    return f"rulepack-{key}.bin"


# A pack is a tuple of these, and each rule a tuple of ``RULE_FIELDS`` (tuples, not
# mappings: no key is stored or looked up per rule, and the whole record is checked by
# type in a few passes).
PACK_FIELDS = ("id", "name", "dialect", "runtime", "origin", "scopes", "scan_window",
               "invisible_chars", "description", "source", "rules")
RULE_FIELDS = ("id", "name", "scope", "severity", "confidence", "message", "pattern", "docs",
               "match", "no_match", "tags", "view", "kinds", "origin", "regex_source",
               "regex_flags", "exact_source", "exact_guard", "anchors", "anchors_folded")
_SEVERITIES = {member.name: member for member in Severity}
_CONFIDENCES = {member.name: member for member in Confidence}
_TEXT = {str}
_TEXT_OR_NONE = {str, type(None)}


def to_data(pack: RulePack) -> tuple[Any, ...]:
    return (pack.id, pack.name, pack.dialect, pack.runtime, pack.origin, tuple(pack.scopes),
            pack.scan_window, tuple(sorted(pack.invisible_chars)), pack.description,
            pack.source, tuple(_rule_to_data(rule) for rule in pack.rules))


def _rule_to_data(rule: Rule) -> tuple[Any, ...]:
    return (rule.id, rule.name, rule.scope, rule.severity.name, rule.confidence.name,
            rule.message, rule.pattern, dict(rule.docs), tuple(rule.examples.match),
            tuple(rule.examples.no_match), tuple(rule.tags), rule.view, tuple(sorted(rule.kinds)),
            rule.origin, rule.regex_source, int(rule.regex_flags), rule.exact_source,
            rule.exact_guard,
            None if rule.anchors is None else tuple(tuple(group) for group in rule.anchors),
            rule.anchors_folded)


def from_data(data: Any, path: Path, *, trusted: bool) -> RulePack | None:
    """The pack ``to_data`` wrote, or None when ``data`` is not such a pack."""
    try:
        return _pack_from_data(data, path, trusted)
    except (_Malformed, KeyError, TypeError, ValueError):
        return None


def _pack_from_data(data: Any, path: Path, trusted: bool) -> RulePack:
    (pack_id, name, dialect, runtime, origin, scopes, window, invisible, description, source,
     rows) = _row(data, len(PACK_FIELDS))
    _check(_texts((pack_id, name, dialect, origin, description, source))
           and _text_tuples((scopes, invisible)) and type(runtime) in _TEXT_OR_NONE
           and (window is None or type(window) is int))
    _check_rules(rows)
    return RulePack(
        id=pack_id, name=name, path=path, dialect=dialect, runtime=runtime, origin=origin,
        scopes=scopes, rules=tuple(_rule(row, pack_id, trusted) for row in rows),
        scan_window=window, invisible_chars=frozenset(invisible), description=description,
        source=source,
    )


def _check_rules(rows: Any) -> None:
    """That ``rows`` are rules as ``_rule_to_data`` writes them, checked a column at a
    time (a few passes in C for the whole pack, not a call per field of each rule)."""
    _check(type(rows) is tuple and set(map(type, rows)) <= {tuple}
           and set(map(len, rows)) <= {len(RULE_FIELDS)})
    if not rows:
        return
    column = dict(zip(RULE_FIELDS, zip(*rows, strict=True), strict=True))
    _check(all(_texts(column[name]) for name in (
        "id", "name", "scope", "message", "pattern", "view", "origin", "regex_source"))
        and all(set(map(type, column[name])) <= _TEXT_OR_NONE
                for name in ("exact_source", "exact_guard"))
        and all(_text_tuples(column[name]) for name in ("match", "no_match", "tags", "kinds"))
        and set(column["severity"]) <= _SEVERITIES.keys()
        and set(column["confidence"]) <= _CONFIDENCES.keys()
        and set(map(type, column["regex_flags"])) <= {int}
        and set(map(type, column["anchors_folded"])) <= {bool}
        and set(map(type, column["docs"])) <= {dict}
        and _texts(chain.from_iterable(column["docs"]))
        and _texts(chain.from_iterable(map(dict.values, column["docs"]))))
    anchors = [groups for groups in column["anchors"] if groups is not None]
    _check(set(map(type, anchors)) <= {tuple} and _text_tuples(chain.from_iterable(anchors)))


_object_new = object.__new__


def _rule(row: tuple[Any, ...], pack_id: str, trusted: bool) -> Rule:
    """``Rule(...)`` of a stored row, its ``__dict__`` filled at once rather than by the
    frozen dataclass's ``__init__`` (one ``object.__setattr__`` a field, 21 of them, and two
    more for its ``Examples``): a scan reads ~120 rules. The same objects in every way
    (tested against ``Rule(...)``)."""
    (rule_id, name, scope, severity, confidence, message, pattern, docs, match, no_match, tags,
     view, kinds, origin, regex_source, regex_flags, exact_source, exact_guard, anchors,
     anchors_folded) = row
    examples: Examples = _object_new(Examples)
    examples.__dict__.update({"match": match, "no_match": no_match})
    rule: Rule = _object_new(Rule)
    rule.__dict__.update({
        "id": rule_id, "name": name, "pack": pack_id, "scope": scope,
        "severity": _SEVERITIES[severity], "confidence": _CONFIDENCES[confidence],
        "message": message, "pattern": pattern, "docs": docs, "examples": examples,
        "tags": tags, "view": view, "kinds": frozenset(kinds), "origin": origin,
        "regex_source": regex_source, "regex_flags": regex_flags,
        "exact_source": exact_source, "exact_guard": exact_guard, "anchors": anchors,
        "anchors_folded": anchors_folded, "trusted": trusted,
    })
    return rule


def _row(value: Any, length: int) -> tuple[Any, ...]:
    _check(type(value) is tuple and len(value) == length)
    return value  # type: ignore[no-any-return]


def _check(well_formed: bool) -> None:
    if not well_formed:
        raise _Malformed("not the shape to_data writes")


def _texts(values: Iterable[Any]) -> bool:
    return set(map(type, values)) <= _TEXT  # the values' types: {str}, or none at all


def _text_tuples(values: Iterable[Any]) -> bool:
    """Whether every value is a tuple of strings."""
    tuples = tuple(values)
    return set(map(type, tuples)) <= {tuple} and _texts(chain.from_iterable(tuples))
