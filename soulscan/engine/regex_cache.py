"""``regex`` patterns whose parse is kept on disk, so a cold start skips the parser.

``regex.compile`` parses in pure Python (``regex._regex_core``): one rule of a built-in
pack costs milliseconds, and a scan of a single file compiles a dozen. The parser's
output — the arguments it hands to the C-level ``_regex.compile`` — depends only on the
pattern, its flags, the ``regex`` version and the interpreter, so it is stored under a
key of all four and handed straight to the C compiler next time.

It is an optimisation only: a missing, torn or foreign entry, a pattern that uses named
lists, or a ``regex`` release whose internals differ all fall back to ``regex.compile``.
Each entry carries a digest of its own body, and is written atomically.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import regex
import regex._main as regex_main

from soulscan.engine import cache

FORMAT = 1
_SUBDIRECTORY = "regex"
# The C half of ``regex``: ``regex._main`` calls ``_regex.compile`` with the parse.
C_MODULE: Any = vars(regex_main)["_regex"]


def compile_cached(source: str, flags: int = 0) -> regex.Pattern[str]:
    """``regex.compile(source, flags)``, read from the on-disk cache when it is there."""
    name = _entry_name(source, flags)
    pattern = _from_entry(cache.load(name), source, flags)
    if pattern is not None:
        return pattern
    pattern, arguments = _compile_capturing(source, flags)
    if arguments is not None:
        cache.store(name, _entry(arguments))
    return pattern


def _entry_name(source: str, flags: int) -> str:
    key = cache.environment_key(f"regex-cache {FORMAT}", str(regex_main.DEFAULT_VERSION),
                                str(int(flags)), source)
    return f"{_SUBDIRECTORY}/{key}.json"


def _compile_capturing(source: str, flags: int) -> tuple[regex.Pattern[str], list[Any] | None]:
    """The compiled pattern and the C compiler's arguments (None when they were not seen:
    the pattern was in ``regex``'s own in-memory cache already)."""
    real: Callable[..., regex.Pattern[str]] = C_MODULE.compile
    seen: list[tuple[Any, ...]] = []

    def spy(*arguments: Any) -> regex.Pattern[str]:
        seen.append(arguments)
        return real(*arguments)

    C_MODULE.compile = spy
    try:
        pattern = regex.compile(source, flags)
    finally:
        C_MODULE.compile = real
    if len(seen) != 1:
        return pattern, None
    return pattern, _portable(seen[0], source)


def _portable(arguments: tuple[Any, ...], source: str) -> list[Any] | None:
    """The arguments as JSON values, or None when they have a shape this does not know."""
    if len(arguments) != 11:
        return None
    (pattern, flags, code, group_index, index_group, named_lists, named_list_indexes,
     req_offset, req_chars, req_flags, group_count) = arguments
    if (pattern != source or named_lists or named_list_indexes
            or not all(isinstance(op, int) for op in code)
            or not isinstance(req_chars, tuple | type(None))):
        return None
    return [int(flags), list(code), dict(group_index),
            [[int(k), v] for k, v in index_group.items()], int(req_offset),
            None if req_chars is None else list(req_chars), int(req_flags), int(group_count)]


def _entry(arguments: list[Any]) -> dict[str, Any]:
    return {"digest": _digest(arguments), "arguments": arguments}


def _digest(arguments: list[Any]) -> str:
    body = json.dumps(arguments, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()[:32]


def _from_entry(entry: Any, source: str, flags: int) -> regex.Pattern[str] | None:
    try:
        if entry["digest"] != _digest(entry["arguments"]):
            return None
        (stored_flags, code, group_index, index_group, req_offset, req_chars, req_flags,
         group_count) = entry["arguments"]
        if not all(isinstance(op, int) for op in code):
            return None
        pattern: regex.Pattern[str] = C_MODULE.compile(
            source, regex.RegexFlag(stored_flags), code, dict(group_index),
            {int(k): v for k, v in index_group}, {}, [], req_offset,
            None if req_chars is None else tuple(req_chars), req_flags, group_count,
        )
        return pattern
    except (KeyError, TypeError, ValueError, RuntimeError, OverflowError):
        return None
