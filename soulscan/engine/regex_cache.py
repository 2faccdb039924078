"""``regex`` patterns whose parse is kept on disk, so a cold start skips the parser.

``regex.compile`` parses in pure Python (``regex._regex_core``): one rule of a built-in
pack costs milliseconds, and a scan of a single file compiles a dozen. The parser's
output — the arguments it hands to the C-level ``_regex.compile`` — depends only on the
pattern, its flags, the ``regex`` version and the interpreter, so it is stored under a
key of all four and handed straight to the C compiler next time.

It is an optimisation only: a missing or damaged entry (``soulscan.engine.cache`` checks
each record's digest), a pattern that uses named lists, or a ``regex`` release whose
internals differ all fall back to ``regex.compile``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import regex
import regex._main as regex_main

from soulscan.engine import cache

FORMAT = 2
_SUBDIRECTORY = "regex"
# The C half of ``regex``: ``regex._main`` calls ``_regex.compile`` with the parse.
C_MODULE: Any = vars(regex_main)["_regex"]


# regex's parser entry point, ``regex._main._compile``, as ``install`` expects it.
_PARSER_ARGUMENTS = ("pattern", "flags", "ignore_unused", "kwargs", "cache_it")
_UNCACHEABLE_FLAGS = int(regex.DEBUG | regex.LOCALE)
# New entries one process writes at most: patterns built per text (a rule's live
# branches) must not turn a big scan into a stream of cache writes.
MAX_NEW_ENTRIES = 1024
# Entries kept on disk: a process about to write its first entry empties the directory
# when it holds this many (per-text patterns and older versions' entries do not pile up).
MAX_ENTRIES_ON_DISK = 4096
# Entries a second process needed, kept together (``cache.GatheredRecords``).
MAX_GATHERED = 512
_written = [0]


def compile_cached(source: str, flags: int = 0) -> regex.Pattern[str]:
    """``regex.compile(source, flags)``, read from the on-disk cache when it is there."""
    if _installed():
        return regex.compile(source, flags)  # the installed parser reads the cache
    return _through_cache(source, flags, lambda: regex.compile(source, flags))


def install() -> None:
    """Serve every ``regex`` compile of this process through the disk cache.

    The CLI calls this first thing, so the module-level patterns of the analysers are
    parsed once per machine like the rules, not once per run. What the cache cannot hold
    (bytes, named lists, DEBUG or LOCALE, ``cache_pattern=False``) goes to regex as before;
    a ``regex`` whose parser entry point looks different is left alone.
    """
    parse = vars(regex_main)["_compile"]
    if _installed() or parse.__code__.co_varnames[:5] != _PARSER_ARGUMENTS:
        return
    memory: dict[tuple[str, int, int], regex.Pattern[str]] = {}

    def cached_parse(pattern: Any, flags: Any, ignore_unused: Any, kwargs: Any,
                     cache_it: Any) -> Any:
        def original() -> Any:
            return parse(pattern, flags, ignore_unused, kwargs, cache_it)

        if not isinstance(pattern, str) or kwargs or not cache_it:
            return original()
        # Looked up as given first: only cacheable patterns are ever kept, and a flag
        # (an IntFlag) finds the plain int it is kept under without an enum operation
        # (a start-up asks ~350 times, 261 of them for one pattern).
        found = memory.get((pattern, flags, regex.DEFAULT_VERSION))
        if found is not None:
            return found
        if flags & _UNCACHEABLE_FLAGS:
            return original()
        key = (pattern, int(flags), int(regex.DEFAULT_VERSION))
        found = memory[key] = _through_cache(pattern, int(flags), original)
        return found

    cached_parse.soulscan_cached = True  # type: ignore[attr-defined]
    cached_parse.original = parse  # type: ignore[attr-defined]
    regex_main._compile = cached_parse  # type: ignore[attr-defined]


def _installed() -> bool:
    return getattr(vars(regex_main)["_compile"], "soulscan_cached", False) is True


def _through_cache(source: str, flags: int,
                   parse: Callable[[], regex.Pattern[str]]) -> regex.Pattern[str]:
    key = (int(regex.DEFAULT_VERSION), flags, source)  # what ``_entry_name`` digests
    pattern = _from_entry(_ENTRIES.load(key, lambda: _entry_name(source, flags)), source,
                          flags)
    if pattern is not None:
        return pattern
    pattern, arguments = _parse_capturing(parse, source)
    if arguments is not None:
        _ENTRIES.replace(key, _entry_name(source, flags), arguments, written=_written,
                         most_new=MAX_NEW_ENTRIES, subdirectory=_SUBDIRECTORY,
                         most_on_disk=MAX_ENTRIES_ON_DISK)
    return pattern


def _version_key(*parts: str) -> str:
    return cache.environment_key(f"regex-cache {FORMAT}", str(int(regex.DEFAULT_VERSION)),
                                 *parts)


def _entry_name(source: str, flags: int) -> str:
    return f"{_SUBDIRECTORY}/{_version_key(str(int(flags)), source)}.bin"


_ENTRIES = cache.GatheredRecords(
    lambda: f"regex-gathered-{_version_key(cache.GATHERED_FORMAT)}.bin", MAX_GATHERED)


def _parse_capturing(parse: Callable[[], regex.Pattern[str]],
                     source: str) -> tuple[regex.Pattern[str], tuple[Any, ...] | None]:
    """The compiled pattern and the C compiler's arguments (None when they were not seen:
    the pattern was in ``regex``'s own in-memory cache already). Single-threaded: the C
    compiler is swapped for a recording one while ``parse`` runs."""
    pattern, seen = cache.recorded_calls(C_MODULE, "compile", parse)
    if len(seen) != 1:
        return pattern, None
    return pattern, _portable(seen[0], source)


def _portable(arguments: tuple[Any, ...], source: str) -> tuple[Any, ...] | None:
    """The arguments as plain data, or None when they have a shape this does not know."""
    if len(arguments) != 11:
        return None
    (pattern, flags, code, group_index, index_group, named_lists, named_list_indexes,
     req_offset, req_chars, req_flags, group_count) = arguments
    if (pattern != source or named_lists or named_list_indexes
            or not all(isinstance(op, int) for op in code)
            or not isinstance(req_chars, tuple | type(None))):
        return None
    return (int(flags), list(code), dict(group_index), dict(index_group), int(req_offset),
            req_chars, int(req_flags), int(group_count))


def _from_entry(entry: Any, source: str, flags: int) -> regex.Pattern[str] | None:
    try:
        (stored_flags, code, group_index, index_group, req_offset, req_chars, req_flags,
         group_count) = entry
        if type(code) is not list or type(group_index) is not dict:
            return None
        pattern: regex.Pattern[str] = C_MODULE.compile(
            source, regex.RegexFlag(stored_flags), code, group_index, index_group, {}, [],
            req_offset, req_chars, req_flags, group_count,
        )
        return pattern
    except (TypeError, ValueError, RuntimeError, OverflowError):
        return None
