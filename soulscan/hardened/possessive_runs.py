r"""Where a match of a pattern that is one possessive run can start, given where it can end.

A pattern written ``(?<=X)C{lo,hi}+`` followed only by zero-width assertions (SS201:
``(?<=[\s"'@=])[^\s"'@|<>;()]{1,160}+(?<=\.env|...)(?:...)``) consumes, from a place s,
exactly the run of characters of class C that starts there, cut at `hi`: the run takes all it
can and gives nothing back, and the rest reads without consuming. Its match from s, if any,
therefore ends at a place the text fixes, and when every match ends with one of some strings
(``pattern_reading.trailing_strings``), that place is the end of one of their occurrences: a
closing. A closing c is the end of the run from s only when the run covers [s, c) (s is past
the last character before c that is not in C) and stops at c (c is `hi` after s, or the text
ends at c, or its character is not in C), `lo` to `hi` characters after s. Only those places
(where the pattern's leading lookbehind finds) can start a match ending at c; the pattern is
still tried at each, so this only leaves out tries that cannot match.

``branch_search`` tries the pattern at these places in place of every place of the windows
before the closings (a window's dozens of places are a handful here).
``tests/test_hardened_possessive_runs.py`` compares this with ``finditer``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

import regex

from soulscan.hardened.pattern_reading import leading_lookbehind, parsed_pattern

# a character class or an escape of one character (``\w``, ``\S``), then a possessive bound
_RUN = regex.compile(r"(\[(?:\\.|[^\]\\])+\]|\\[a-zA-Z])\{(\d+),(\d+)\}\+")


@dataclass(frozen=True)
class PossessiveRun:
    """The run ``member{lo,hi}+`` right after the pattern's leading lookbehind `after`."""

    after: regex.Pattern[str]
    member: regex.Pattern[str]  # one character of the run's class
    back: regex.Pattern[str]  # up to `hi` characters of it, read backwards
    lo: int
    hi: int

    def starts(self, text: str, closings: Iterable[int], most: int) -> list[int] | None:
        """The places where a match ending at one of `closings` (the ends of the strings
        every match ends with) can start, in increasing order; None past `most`."""
        places: set[int] = set()
        for closing in closings:
            # the start of the run of the class that ends at `closing`, at most `hi` back
            # (an empty run matches: never None)
            run = self.back.match(text, max(0, closing - self.hi), closing)
            first = closing if run is None else run.start()
            if closing < len(text) and self.member.match(text, closing):
                # the run goes on past `closing`: only one cut there by `hi` stops at it
                if first != closing - self.hi:
                    continue
                last = first
            else:
                last = closing - self.lo
            if first > last:
                continue
            places.update(found.start() for found in self.after.finditer(text, first, last + 1)
                          if found.start() <= last)
            if len(places) > most:
                return None
        return sorted(places)


@functools.lru_cache(maxsize=256)
def possessive_run(source: str, flags: int) -> PossessiveRun | None:
    """The run of a pattern made of a leading lookbehind of one character, a possessive
    bounded run of one class (at least one character long) and zero-width assertions;
    None for any other pattern."""
    after = leading_lookbehind(source, flags)
    if after is None:  # (also refuses case folding and inline flags)
        return None
    written = _RUN.match(source, len(after.pattern))
    if written is None:
        return None
    lo, hi = int(written.group(2)), int(written.group(3))
    if not 1 <= lo <= hi:
        return None
    parsed = parsed_pattern(source, flags)
    if parsed is None:
        return None
    nodes = list(parsed)
    if len(nodes) < 2 or nodes[1][0] is not C.POSSESSIVE_REPEAT:
        return None
    low, high, body = nodes[1][1]
    try:
        alone = list(_parser.parse(written.group(1), 0))
    except (re.error, OverflowError, RecursionError):
        return None
    # the run read alone as in the pattern (SubPatterns compare by identity: by repr), of
    # one character a time, and nothing after it consumes a character
    if (low, high) != (lo, hi) or repr(list(body)) != repr(alone):
        return None
    if _parser.SubPattern(parsed.state, alone).getwidth() != (1, 1):
        return None
    if _parser.SubPattern(parsed.state, nodes[2:]).getwidth() != (0, 0):
        return None
    member = regex.compile(written.group(1), flags)
    back = regex.compile(f"{written.group(1)}{{0,{hi}}}", flags | regex.REVERSE)
    return PossessiveRun(after, member, back, lo, hi)
