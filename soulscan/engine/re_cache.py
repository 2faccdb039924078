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
whose internals differ all fall back to ``re.compile``. The CLI ``install``s it for every
``re`` compile of its process (the module-level patterns of soulscan and of the standard
library modules it imports), as it does ``regex_cache``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from re import _compiler  # type: ignore[attr-defined]
from typing import Any, AnyStr

from soulscan.engine import cache

FORMAT = 2
_SUBDIRECTORY = "sre"  # named after the C compiler it feeds
# The C half of ``re``: ``re._compiler.compile`` calls ``_sre.compile`` with the program.
C_MODULE: Any = vars(_compiler)["_sre"]
_UNCACHEABLE_FLAGS = re.DEBUG | re.LOCALE
# What ``re``'s parser warns about inside a set (one opened right after a set's ``[``, a
# doubled ``-``/``&``/``~``/``|``) is spelt with one of these; it also warns about a
# conditional's group number such as ``+1``, and about a bytes pattern's non-ASCII group
# name. Such a pattern is compiled by ``re`` each time: a program read from disk would
# skip the warning.
_MAY_WARN_IN_A_SET = ("[[", "--", "&&", "~~", "||")
_CONDITIONAL = "(?("
# Like ``regex_cache``: a process writes few new entries, and a full directory starts over.
MAX_NEW_ENTRIES = 256
MAX_ENTRIES_ON_DISK = 1024
# Entries a second process needed, kept together (``cache.GatheredRecords``).
MAX_GATHERED = 512
_written = [0]


def compile_cached(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, read from the on-disk cache when it is there."""
    flags = int(flags)
    if _installed() or not _cacheable(source, flags):
        return re.compile(source, flags)  # the installed compiler reads the cache
    return _through_cache(source, flags, lambda: re.compile(source, flags))


def install() -> None:
    """Serve every ``re`` compile of this process through the disk cache.

    ``re.compile`` (and ``re.search``, ``re.sub``...) look in ``re``'s own memory first
    and call ``re._compiler.compile`` on a miss: that is what is replaced. What the cache
    does not keep (a parsed pattern, DEBUG, LOCALE, what ``re`` may warn about) goes to
    ``re`` as before; an ``re`` whose compiler entry point looks different is left alone.
    """
    compile_program = _compiler.compile
    if (_installed() or sys.implementation.name != "cpython"
            or compile_program.__code__.co_varnames[:2] != ("p", "flags")):
        return

    def cached_compile(p: Any, flags: Any = 0) -> Any:
        if not isinstance(p, str | bytes) or not _cacheable(p, int(flags)):
            return compile_program(p, flags)
        return _through_cache(p, int(flags), lambda: compile_program(p, flags))

    cached_compile.soulscan_cached = True  # type: ignore[attr-defined]
    cached_compile.original = compile_program  # type: ignore[attr-defined]
    _compiler.compile = cached_compile


def _installed() -> bool:
    return getattr(_compiler.compile, "soulscan_cached", False) is True


def _cacheable(source: str | bytes, flags: int) -> bool:
    if sys.implementation.name != "cpython" or flags & _UNCACHEABLE_FLAGS:
        return False
    if isinstance(source, bytes):
        return source.isascii() and not _may_warn(source.decode("ascii"))
    return not _may_warn(source)


def _may_warn(source: str) -> bool:
    """Whether ``re``'s parser may warn about ``source`` (a yes only costs the cache)."""
    # Escaped backslashes, then escaped brackets, out: a "[" left opens a set.
    unescaped = source.replace("\\\\", "").replace("\\[", "")
    if "[" in unescaped and any(spelling in unescaped for spelling in _MAY_WARN_IN_A_SET):
        return True
    return _CONDITIONAL in source and not _plain_conditions(source)


def _plain_conditions(source: str) -> bool:
    """Whether every conditional names its group as ``re`` does not warn about: a name, or
    a number in ASCII digits."""
    for after in source.split(_CONDITIONAL)[1:]:
        name = after.partition(")")[0]
        if not (name.isidentifier() or (name.isascii() and name.isdigit())):
            return False
    return True


def _through_cache(source: AnyStr, flags: int,
                   compile_program: Callable[[], re.Pattern[AnyStr]]) -> re.Pattern[AnyStr]:
    key = _entry_key(source, flags)
    pattern = _from_entry(_ENTRIES.load(key, lambda: _entry_name(source, flags)), source)
    if pattern is not None:
        return pattern
    pattern, arguments = _compile_capturing(source, compile_program)
    if arguments is not None:
        _ENTRIES.replace(key, _entry_name(source, flags), arguments, written=_written,
                         most_new=MAX_NEW_ENTRIES, subdirectory=_SUBDIRECTORY,
                         most_on_disk=MAX_ENTRIES_ON_DISK)
    return pattern


def _version_key(*parts: str | bytes) -> str:
    # not cache.environment_key: that imports regex, and regex's import compiles with re
    return cache.interpreter_key(f"re-cache {FORMAT}", sys.implementation.cache_tag or "",
                                 str(C_MODULE.MAGIC), str(C_MODULE.CODESIZE), *parts)


def _entry_name(source: str | bytes, flags: int) -> str:
    kind = "bytes" if isinstance(source, bytes) else "text"  # b"a" and "a" differ
    return f"{_SUBDIRECTORY}/{_version_key(kind, str(flags), source)}.bin"


def _entry_key(source: str | bytes, flags: int) -> tuple[str, int, str | bytes]:
    """What the gathered record finds an entry by: what ``_entry_name`` digests."""
    return ("bytes" if isinstance(source, bytes) else "text", flags, source)


_ENTRIES = cache.GatheredRecords(
    lambda: f"sre-gathered-{_version_key(cache.GATHERED_FORMAT)}.bin", MAX_GATHERED)


def _compile_capturing(source: AnyStr, compile_program: Callable[[], re.Pattern[AnyStr]]
                       ) -> tuple[re.Pattern[AnyStr], tuple[Any, ...] | None]:
    """The compiled pattern and the C compiler's arguments (None when they were not seen:
    the pattern was in ``re``'s own in-memory cache already)."""
    pattern, seen = cache.recorded_calls(C_MODULE, "compile", compile_program)
    if len(seen) != 1:
        return pattern, None
    return pattern, _portable(seen[0], source)


def _portable(arguments: tuple[Any, ...], source: str | bytes) -> tuple[Any, ...] | None:
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


def _from_entry(entry: Any, source: AnyStr) -> re.Pattern[AnyStr] | None:
    try:
        stored_flags, code, groups, group_index, index_group = entry
        if (type(stored_flags) is not int or type(code) is not list or type(groups) is not int
                or type(group_index) is not dict or type(index_group) is not tuple):
            return None
        pattern: re.Pattern[AnyStr] = C_MODULE.compile(
            source, stored_flags, code, groups, group_index, index_group)
        return pattern
    except (TypeError, ValueError, RuntimeError, OverflowError):
        return None
