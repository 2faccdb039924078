"""Stdlib ``re`` patterns whose compiled program is kept on disk, so a cold start skips
``re``'s parser.

The anchor scans of the hardened gate (``soulscan.engine.anchorscan``) are big generated
alternations, and ``re.compile`` parses and compiles them in pure Python
(``re._parser``, ``re._compiler``): tens of milliseconds a run. What that hands to the
C-level ``_sre.compile`` — the program, the flags, the groups — depends only on the
pattern, its flags and the interpreter, so it is stored under a key of all three
(``soulscan.engine.cache`` seals each record with a digest) and handed straight to
``_sre.compile`` next time, which checks the program itself.

It is an optimisation only, as ``soulscan.engine.regex_cache`` is for ``regex``: a
missing or damaged entry, DEBUG or LOCALE, an interpreter other than CPython or an ``re``
whose internals differ all fall back to ``re.compile``.
"""

from __future__ import annotations

import re
import sys
from re import _compiler  # type: ignore[attr-defined]
from typing import Any

from soulscan.engine import cache

FORMAT = 1
_SUBDIRECTORY = "sre"  # named after the C compiler it feeds
# The C half of ``re``: ``re._compiler.compile`` calls ``_sre.compile`` with the program.
C_MODULE: Any = vars(_compiler)["_sre"]
_UNCACHEABLE_FLAGS = re.DEBUG | re.LOCALE
# Like ``regex_cache``: a process writes few new entries, and a full directory starts over.
MAX_NEW_ENTRIES = 256
MAX_ENTRIES_ON_DISK = 1024
_written = [0]


def compile_cached(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, read from the on-disk cache when it is there."""
    flags = int(flags)
    if sys.implementation.name != "cpython" or flags & _UNCACHEABLE_FLAGS:
        return re.compile(source, flags)
    name = _entry_name(source, flags)
    pattern = _from_entry(cache.load(name), source)
    if pattern is not None:
        return pattern
    pattern, arguments = _compile_capturing(source, flags)
    if arguments is not None:
        cache.store_bounded(name, arguments, written=_written, most_new=MAX_NEW_ENTRIES,
                            subdirectory=_SUBDIRECTORY, most_on_disk=MAX_ENTRIES_ON_DISK)
    return pattern


def _entry_name(source: str, flags: int) -> str:
    key = cache.environment_key(f"re-cache {FORMAT}", sys.implementation.cache_tag or "",
                                str(C_MODULE.MAGIC), str(C_MODULE.CODESIZE), str(flags), source)
    return f"{_SUBDIRECTORY}/{key}.bin"


def _compile_capturing(source: str,
                       flags: int) -> tuple[re.Pattern[str], tuple[Any, ...] | None]:
    """The compiled pattern and the C compiler's arguments (None when they were not seen:
    the pattern was in ``re``'s own in-memory cache already). Single-threaded: the C
    compiler is swapped for a recording one while ``re.compile`` runs."""
    pattern, seen = cache.recorded_calls(C_MODULE, "compile", lambda: re.compile(source, flags))
    if len(seen) != 1:
        return pattern, None
    return pattern, _portable(seen[0], source)


def _portable(arguments: tuple[Any, ...], source: str) -> tuple[Any, ...] | None:
    """The arguments as plain data, or None when they have a shape this does not know."""
    if len(arguments) != 6:
        return None
    pattern, flags, code, groups, group_index, index_group = arguments
    if (pattern != source or not isinstance(code, list)
            or not all(isinstance(op, int) for op in code)
            or not isinstance(group_index, dict) or not isinstance(index_group, tuple)):
        return None
    # opcodes are int subclasses with names (``re._constants``): kept as plain ints
    return int(flags), [int(op) for op in code], int(groups), dict(group_index), tuple(index_group)


def _from_entry(entry: Any, source: str) -> re.Pattern[str] | None:
    try:
        stored_flags, code, groups, group_index, index_group = entry
        if (type(stored_flags) is not int or type(code) is not list or type(groups) is not int
                or type(group_index) is not dict or type(index_group) is not tuple):
            return None
        pattern: re.Pattern[str] = C_MODULE.compile(
            source, stored_flags, code, groups, group_index, index_group)
        return pattern
    except (TypeError, ValueError, RuntimeError, OverflowError):
        return None
