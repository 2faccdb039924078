"""How far around the place it is tried at a pattern can read the text.

``pattern.match(text, place)`` reads characters before `place` (lookbehinds, ``\\b``) and
after it (what it consumes, lookaheads). When both are bounded, the answer at a place is
decided by the text from `behind` characters before the place to `ahead` after it: two
places with the same such window, both far enough from the text's ends (where ``^``, ``$``,
``\\A`` and ``\\Z`` answer otherwise), get the same answer. ``branch_search`` uses this to
try a rule once per distinct window of a text that repeats itself.

The bounds are worked out from ``re``'s parse of a regex-dialect pattern (read as
``pattern_reading`` reads leading strings: only patterns ``re`` reads the same), node by
node, each an upper bound: a node at a place reads no further than its widest width from
it, a lookahead or lookbehind no further than its body's widest width and reach.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from re import _constants as C  # type: ignore[attr-defined]
from typing import Any, NamedTuple

import regex

from soulscan.hardened.pattern_reading import parsed_pattern
from soulscan.hardened.repeated_lines import RepeatedLines

# A single character each (the case flags never make one match two: FULLCASE is refused).
_ONE_CHARACTER = (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.RANGE, C.CATEGORY)
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)
# Flags under which ``regex`` reads a pattern otherwise than this module assumes: full case
# folding (a character matches two), Unicode word boundaries (read whole words), V1 sets.
_REFUSED_FLAGS = regex.FULLCASE | regex.WORD | regex.V1 | regex.VERBOSE


class Reach(NamedTuple):
    """At most `behind` characters before a try's place and `ahead` from it are read."""

    behind: int
    ahead: int


class _Extent(NamedTuple):
    width: int  # the most characters consumed
    behind: int  # the most characters read before the start
    ahead: int  # the most characters read from the start on


@functools.lru_cache(maxsize=1024)
def reach(source: str, flags: int, longest_word: int | None = None) -> Reach | None:
    """How far a regex-dialect pattern reads around the place it is tried at; None when
    unbounded or unknown.

    `longest_word`: no run of characters other than a space in the text the pattern is
    tried in is longer (the words view's longest token). An unbounded repeat of a character
    that is never a space (``\\S+``, ``\\w*``, ``[^ ]+``) then takes and reads no more than
    that many in this text, as the same repeat bounded by it would: tried in this text, the
    pattern answers as that bounded one does, whose reach this is."""
    nodes = _nodes(source, flags)
    if nodes is None:
        return None
    extent = _extent(nodes, longest_word)
    return None if extent is None else Reach(extent.behind, extent.ahead)


@functools.lru_cache(maxsize=256)
def _nodes(source: str, flags: int) -> list[Any] | None:
    """The pattern's parse (read, never changed), once a pattern: the words view asks for
    its reach again with each text's longest word."""
    if flags & _REFUSED_FLAGS:
        return None
    # (their inline forms, `(?f)`, `(?w)`, `(?V1)`, are refused by the parse: ``re`` knows
    # no such flag)
    parsed = parsed_pattern(source, flags)
    return None if parsed is None else list(parsed)


# One-character nodes that never match a space, whatever the flags: ``\\S``, ``\\w``, ``\\d``,
# ``[^ ]`` and any literal but a space (no case folding makes a letter a space).
_NEVER_A_SPACE = (
    (C.IN, [(C.CATEGORY, C.CATEGORY_NOT_SPACE)]),
    (C.IN, [(C.CATEGORY, C.CATEGORY_WORD)]),
    (C.IN, [(C.CATEGORY, C.CATEGORY_DIGIT)]),
    (C.NOT_LITERAL, ord(" ")),
)


def _never_a_space(body: list[Any]) -> bool:
    if len(body) != 1:
        return False
    op, av = body[0]
    return (op, av) in _NEVER_A_SPACE or op is C.LITERAL and av != ord(" ")


def _extent(nodes: list[Any], longest_word: int | None = None) -> _Extent | None:
    """The extent of a sequence of nodes, from their first one's place."""
    width = behind = ahead = 0
    for op, av in nodes:
        node = _node_extent(op, av, longest_word)
        if node is None:
            return None
        # the node is tried from 0 to `width` characters after the start
        behind = max(behind, node.behind)
        ahead = max(ahead, width + node.ahead)
        width += node.width
    return _Extent(width, behind, max(ahead, width))


def _node_extent(op: Any, av: Any, longest_word: int | None) -> _Extent | None:
    if op in _ONE_CHARACTER:
        return _Extent(1, 0, 1)
    if op is C.AT:
        # ``\b`` reads a character each side, ``$`` the next one and the text's length
        return _Extent(0, 1, 2)
    if op is C.SUBPATTERN:
        return _extent(list(av[-1]), longest_word)
    if op is C.ATOMIC_GROUP:
        return _extent(list(av), longest_word)
    if op is C.BRANCH:
        branches = [_extent(list(branch), longest_word) for branch in av[1]]
        if any(branch is None for branch in branches) or not branches:
            return None
        known = [branch for branch in branches if branch is not None]
        return _Extent(*(max(values) for values in zip(*known)))
    if op in _REPEATS:
        low, high, body = av
        if high == C.MAXREPEAT:
            if longest_word is None or not _never_a_space(list(body)):
                return None
            high = max(low, longest_word)
        inner = _extent(list(body), longest_word)
        if inner is None:
            return None
        if high == 0:
            return _Extent(0, 0, 0)
        # the last time starts at most (high - 1) widths after the first
        return _Extent(high * inner.width, inner.behind, (high - 1) * inner.width + inner.ahead)
    if op in (C.ASSERT, C.ASSERT_NOT):
        direction, body = av
        inner = _extent(list(body), longest_word)
        if inner is None:
            return None
        if direction == 1:
            return _Extent(0, inner.behind, inner.ahead)
        # a lookbehind's body is tried ending at the place: it starts up to its width before
        return _Extent(0, inner.width + inner.behind, inner.ahead)
    return None  # back-references, conditionals and anything else: unknown


# A memo that has answered fewer than one try in two after this many is given up on.
MEMO_PROBE = 64
# A window over more lines than this (very many short ones) is tried, not keyed: its key
# would cost more than most tries.
MAX_KEY_LINES = 1024


def matches_at_by_window(
    pattern: regex.Pattern[str], lines: RepeatedLines, places: Iterable[int], around: Reach
) -> Iterator[tuple[int, int]]:
    """``prefilter.matches_at`` in the text `lines` reads, with the pattern tried once per
    distinct window of the text it can read (`around`) at places far enough from the
    text's ends: each other place with that window gets the answer of the first (the end of
    its match, relative to the place). A window is told by the lines it lies in
    (``RepeatedLines.window``), not by its characters. A memo that is seldom asked again
    (the windows do not repeat) is given up on."""
    text = lines.text
    end = 0
    behind, ahead = around
    first = behind + _END_MARGIN
    last = len(text) - ahead - _END_MARGIN
    memo: dict[tuple[int, tuple[int, ...]], int] = {}
    window, starts = lines.window, lines.starts
    tries = hits = 0
    remembering = True
    match = pattern.match
    for place in places:
        if place < end:
            continue
        if (remembering and first <= place <= last
                and bisect_right(starts, place + ahead - 1) - bisect_right(starts, place - behind) < MAX_KEY_LINES):
            key = window(place - behind, place + ahead - 1)
            length = memo.get(key, _UNKNOWN)
            tries += 1
            if length == _UNKNOWN:
                found = match(text, place)
                length = _NO_MATCH if found is None else found.end() - place
                memo[key] = length
            else:
                hits += 1
            if tries == MEMO_PROBE and hits * 2 < tries:
                remembering = False
                memo.clear()
            if length != _NO_MATCH:
                yield place, place + length
                end = place + length
            continue
        found = match(text, place)
        if found is not None:
            yield found.span()
            end = found.end()


_UNKNOWN, _NO_MATCH = -2, -1
# ``\\A``, ``^``, ``$`` and ``\\Z`` answer alike at places this far from the text's ends
_END_MARGIN = 2
