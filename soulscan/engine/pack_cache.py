"""A validated rule pack as plain data, so start-up skips YAML parsing and validation.

``soulscan.engine.rulepack.load_pack`` stores every pack it validated under a name
derived from the pack's bytes and the code that derives it (``cache_name``), so an
edited pack or a changed loader is never served stale. A cached entry is checked
field by field on the way back in: anything malformed (a torn or hand-edited file, an
older format) is treated as a miss and the pack is parsed again.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any, TypeVar

from soulscan.engine import cache
from soulscan.engine.rulepack import Examples, Rule, RulePack
from soulscan.models import Confidence, Severity

# Bump when the shape below changes (the code digest would catch it too).
FORMAT = 3
# Everything that decides what a pack compiles to: the loader, the python-re
# translation, the anchor extraction, this module and the value types.
_CODE_FILES = ("rulepack.py", "pyre.py", "anchors.py", "pack_cache.py", "../models.py")

T = TypeVar("T")


class _Malformed(ValueError):
    """A cached entry that does not have the shape ``to_data`` writes."""


@functools.cache
def _code_digest() -> bytes | None:
    here = Path(__file__).parent
    try:
        sources = b"\0".join((here / name).read_bytes() for name in _CODE_FILES)
    except OSError:
        return None  # installed without sources: nothing to key a cached pack by
    return hashlib.sha256(sources).digest()  # hashed once, not once a pack


def cache_name(pack_text: str, *, trusted: bool) -> str | None:
    """The cache file of a pack with this text, loaded as built-in or not (None: no cache)."""
    code = _code_digest()
    if code is None:
        return None
    key = cache.environment_key(f"format {FORMAT}", f"trusted {trusted}", code, pack_text)
    return f"rulepack-{key}.bin"


def to_data(pack: RulePack) -> dict[str, Any]:
    return {
        "id": pack.id, "name": pack.name, "dialect": pack.dialect, "runtime": pack.runtime,
        "origin": pack.origin, "scopes": list(pack.scopes), "scan_window": pack.scan_window,
        "invisible_chars": sorted(pack.invisible_chars), "description": pack.description,
        "source": pack.source, "rules": [_rule_to_data(rule) for rule in pack.rules],
    }


def _rule_to_data(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id, "name": rule.name, "scope": rule.scope, "severity": rule.severity.name,
        "confidence": rule.confidence.name, "message": rule.message, "pattern": rule.pattern,
        "docs": dict(rule.docs), "match": list(rule.examples.match),
        "no_match": list(rule.examples.no_match), "tags": list(rule.tags), "view": rule.view,
        "kinds": sorted(rule.kinds), "origin": rule.origin, "regex_source": rule.regex_source,
        "regex_flags": int(rule.regex_flags), "exact_source": rule.exact_source,
        "exact_guard": rule.exact_guard,
        "anchors": None if rule.anchors is None else [list(group) for group in rule.anchors],
        "anchors_folded": rule.anchors_folded,
    }


def from_data(data: Any, path: Path, *, trusted: bool) -> RulePack | None:
    """The pack ``to_data`` wrote, or None when ``data`` is not such a pack."""
    try:
        return _pack_from_data(data, path, trusted)
    except (_Malformed, KeyError, TypeError):
        return None


def _pack_from_data(data: Any, path: Path, trusted: bool) -> RulePack:
    entry = _typed(data, dict)
    pack_id = _typed(entry["id"], str)
    window = entry["scan_window"]
    return RulePack(
        id=pack_id, name=_typed(entry["name"], str), path=path,
        dialect=_typed(entry["dialect"], str), runtime=_optional(entry["runtime"], str),
        origin=_typed(entry["origin"], str), scopes=_strings(entry["scopes"]),
        rules=tuple(_rule_from_data(rule, pack_id, trusted)
                    for rule in _typed(entry["rules"], list)),
        scan_window=None if window is None else _typed(window, int),
        invisible_chars=frozenset(_strings(entry["invisible_chars"])),
        description=_typed(entry["description"], str), source=_typed(entry["source"], str),
    )


def _rule_from_data(data: Any, pack_id: str, trusted: bool) -> Rule:
    entry = _typed(data, dict)
    docs = _typed(entry["docs"], dict)
    anchors = entry["anchors"]
    return Rule(
        id=_typed(entry["id"], str), name=_typed(entry["name"], str), pack=pack_id,
        scope=_typed(entry["scope"], str),
        severity=Severity[_typed(entry["severity"], str)],
        confidence=Confidence[_typed(entry["confidence"], str)],
        message=_typed(entry["message"], str), pattern=_typed(entry["pattern"], str),
        docs={_typed(k, str): _typed(v, str) for k, v in docs.items()},
        examples=Examples(_strings(entry["match"]), _strings(entry["no_match"])),
        tags=_strings(entry["tags"]), view=_typed(entry["view"], str),
        kinds=frozenset(_strings(entry["kinds"])), origin=_typed(entry["origin"], str),
        regex_source=_typed(entry["regex_source"], str),
        regex_flags=_typed(entry["regex_flags"], int),
        exact_source=_optional(entry["exact_source"], str),
        exact_guard=_optional(entry["exact_guard"], str),
        anchors=None if anchors is None else tuple(
            _strings(group) for group in _typed(anchors, list)),
        anchors_folded=_typed(entry["anchors_folded"], bool),
        trusted=trusted,
    )


def _typed(value: Any, kind: type[T]) -> T:
    # bool is an int to isinstance; a flag word or a window must not be one.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _Malformed(f"expected {kind.__name__}")
    return value


def _optional(value: Any, kind: type[T]) -> T | None:
    return None if value is None else _typed(value, kind)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(_typed(item, str) for item in _typed(value, list))
