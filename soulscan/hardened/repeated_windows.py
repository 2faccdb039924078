"""Tries of a pattern once per distinct window of characters, in a long text of one line.

``reach.matches_at_by_window`` tells a window by the lines it lies in; the words view is one
line, and a padded attack (a page of ``<!-- ignore <!-- system``, thousands of short lines
run together) repeats its words instead. Here a window is told by its characters: the text
from `behind` characters before a place to `ahead` after it, one slice a place, the slices
made and told apart in C (``map``, a dict), the pattern tried once per distinct slice. The
words view's rules read ``\\S+`` and so have a reach only in a given text
(``reach.reach``'s `longest_word`).

``matches_at`` tries each place that the previous match does not cover; a place whose
window does not match changes nothing, so the matches are those of the places whose window
matches, kept in order when no earlier kept match covers them.
``tests/test_hardened_repeated_windows.py`` compares this with a try at each place.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import regex

from soulscan.engine.text_memos import text_memo
from soulscan.hardened.anchor_finder import WordsIndex
from soulscan.hardened.branch_search import found_each
from soulscan.hardened.reach import Reach, reach

# The windows of this many first places are told apart before the others are made: past
# half of them distinct, the windows do not repeat and each place is tried instead.
PROBE = 64
# The first places' windows are first told apart this far ahead: narrower than any rule reads.
_PROBE_AHEAD = 16
# A window wider than this costs more to slice and hash than most tries.
MAX_WINDOW = 2048
# ``^``, ``$``, ``\\A`` and ``\\Z`` answer alike at places this far from the text's ends
_END_MARGIN = 2


def matches_by_window(
    pattern: regex.Pattern[str], text: str, places: Sequence[int], around: Reach
) -> list[tuple[int, int]] | None:
    """``list(prefilter.matches_at(pattern, text, places))`` (`places` in increasing
    order) with one try per distinct window that `around` says the pattern reads; None
    when the windows are too wide or seldom repeat (try each place then)."""
    behind, ahead = around
    if behind + ahead > MAX_WINDOW:
        return None
    low = bisect_left(places, behind + _END_MARGIN)
    high = bisect_right(places, len(text) - ahead - _END_MARGIN)
    inner = places[low:high]
    probe = _windows(text, inner[:PROBE], behind, ahead)
    if _seldom_repeat(probe):
        return None
    windows = probe + _windows(text, inner[PROBE:], behind, ahead)
    # each distinct window at one of its places (a later one: any answers alike)
    lengths: dict[str, int] = {}
    match = pattern.match
    for window, place in dict(zip(windows, inner, strict=True)).items():
        found = match(text, place)
        if found is not None:
            lengths[window] = found.end() - place
    candidates = _each(pattern, text, places[:low])
    if lengths:
        candidates += [
            (place, place + lengths[window])
            for window, place in zip(windows, inner, strict=True)
            if window in lengths
        ]
    candidates += _each(pattern, text, places[high:])
    return _uncovered(candidates)


def _seldom_repeat(windows: Sequence[str]) -> bool:
    """Whether more than half of the first places' `windows` are distinct: trying each
    place then costs less than telling the windows apart."""
    return len(set(windows)) * 2 > len(windows)


def _each(pattern: regex.Pattern[str], text: str, places: Sequence[int]) -> list[tuple[int, int]]:
    """The match at each place near the text's ends (where a window may not tell), covered
    or not: which are kept is decided with the others."""
    return [found.span() for found in map(pattern.match, itertools.repeat(text), places) if found]


def _windows(text: str, places: Sequence[int], behind: int, ahead: int) -> list[str]:
    """The text from `behind` before to `ahead` after each place, sliced in C."""
    return list(map(text.__getitem__, map(slice, map(behind.__rsub__, places), map(ahead.__add__, places))))


def _uncovered(candidates: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The matches, in order of place, that start at or after the end of the last one kept."""
    kept: list[tuple[int, int]] = []
    end = 0
    for start, stop in candidates:
        if start >= end:
            kept.append((start, stop))
            end = stop
    return kept


def word_matches(
    pattern: regex.Pattern[str], text: str, places: Sequence[int], words: WordsIndex
) -> list[tuple[int, int]] | None:
    """``matches_by_window`` in a words view (`words`: its index), whose longest token
    bounds what ``\\S+`` reads; None when the pattern's reach is unbounded even so."""
    if _seldom_repeat(_windows(text, places[:PROBE], 0, _PROBE_AHEAD)):
        # a window that reads further repeats no more often: tell that before working out
        # the pattern's reach in this text (a walk of its parse)
        return None
    around = reach(pattern.pattern, pattern.flags, words.longest)
    return None if around is None else matches_by_window(pattern, text, places, around)


# Start strings of several places (`strings`) `lo` to `hi` characters after a match's start.
StartGroup = tuple[Sequence[str], int, int]


def every_match(
    pattern: regex.Pattern[str], text: str, haystack: str, groups: Sequence[StartGroup],
    words: WordsIndex,
) -> list[tuple[int, int]] | None:
    """What ``finditer`` gives, in a words view `text` where every match starts `lo` to
    `hi` characters before a place of one of a group's strings in `haystack` (the text, or
    its folded form: the places are the same), each window tried once; None when the
    windows are too wide or seldom repeat (search the whole text then).

    The windows at the places of each string are kept per text (``StringWindows``: rules
    share their start strings), each a little wider than the pattern reads, so that rules of
    about the same reach share them too."""
    around = reach(pattern.pattern, pattern.flags, words.longest)
    if around is None or any("" in strings for strings, _, _ in groups):
        return None
    behind, ahead = _rounded_up(around.behind, _SHARED_BEHIND), _rounded_up(around.ahead, _SHARED_AHEAD)
    if behind + ahead > MAX_WINDOW:
        return None
    windows = string_windows(text, haystack)
    lengths: dict[str, int] = {}  # window -> length of its match, _NO_MATCH if none
    match = pattern.match
    candidates: list[tuple[int, int]] = []
    for strings, lo, hi in groups:
        for string in strings:
            for shift in range(lo, hi + 1):
                inner, keys, edges = windows.of(string, shift, behind, ahead)
                if _seldom_repeat(keys[:PROBE]):
                    return None
                for key, place in dict(zip(keys, inner, strict=True)).items():
                    if key not in lengths:
                        found = match(text, place)
                        lengths[key] = _NO_MATCH if found is None else found.end() - place
                candidates += [
                    (place, place + lengths[key])
                    for key, place in zip(keys, inner, strict=True)
                    if lengths[key] != _NO_MATCH
                ]
                candidates += _each(pattern, text, edges)
    return _uncovered(sorted(set(candidates)))


_NO_MATCH = -1
# The window of every place is rounded up to these: most rules of the words view read a
# few hundred characters ahead at most, and share theirs.
_SHARED_BEHIND, _SHARED_AHEAD = 32, 256


def _rounded_up(value: int, step: int) -> int:
    return -(-value // step) * step


class StringWindows:
    """A text's windows at every place of its start strings."""

    def __init__(self, text: str, haystack: str) -> None:
        self.text = text
        self.haystack = haystack
        self._places: dict[str, list[int]] = {}
        self._windows: dict[tuple[str, int, int, int], tuple[list[int], list[str], list[int]]] = {}

    def places(self, string: str) -> list[int]:
        """Every place of `string` in the haystack, in increasing order."""
        found = self._places.get(string)
        if found is None:
            # (a string occurs at most once a place: never past that many)
            found = found_each(self.haystack, (string,), len(self.haystack), len(self.haystack) + 1)
            assert found is not None
            self._places[string] = found
        return found

    def of(
        self, string: str, shift: int, behind: int, ahead: int
    ) -> tuple[list[int], list[str], list[int]]:
        """The places `shift` characters before each place of `string` far enough from the
        text's ends, their windows, and the places nearer the ends."""
        key = (string, shift, behind, ahead)
        known = self._windows.get(key)
        if known is None:
            text = self.text
            places = self.places(string)
            if shift:
                places = [place - shift for place in places if place >= shift]
            low = bisect_left(places, behind + _END_MARGIN)
            high = bisect_right(places, len(text) - ahead - _END_MARGIN)
            inner = places[low:high]
            known = (inner, _windows(text, inner, behind, ahead), places[:low] + places[high:])
            self._windows[key] = known
        return known


@text_memo(maxsize=4)
def string_windows(text: str, haystack: str) -> StringWindows:
    return StringWindows(text, haystack)
