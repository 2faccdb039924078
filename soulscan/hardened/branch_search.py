r"""Search the live branches of a hardened rule only where a match can start.

When every branch left by the gate begins with literal text (``' ignore'``, ``'<|im_start'``,
``'忽略'``), every match starts where one of those strings occurs; when a branch begins with a
short run of bounded width (``(?:^|\n)[ \t>]{0,8}\[system``), every match starts that many
characters (``lo`` to ``hi``) before one. Trying the pattern with ``match`` at each such place,
skipping the places a previous match covers, gives exactly what ``finditer`` gives over the
whole text: ``finditer`` takes the leftmost match at or after the end of the previous one, and
only those places can start one. ``match(text, place)`` sees the whole text, so lookbehinds,
``^`` and ``\b`` read the same characters either way. A branch whose text starts anywhere else
leaves the whole-text ``finditer``.

The strings, their distance and the closing strings are read from each pattern by
``soulscan.hardened.pattern_reading``. A text with many places is searched whole instead: one
``finditer`` is cheaper than hundreds of ``match`` calls (``soulscan.engine.prefilter.most_places``,
the runtime rules' trade-off too). A long text that repeats its lines has its strings found
through its distinct lines (``repeated_lines``), and a rule that reads a wide but bounded window
around each place is tried once per distinct window (``reach``).
``tests/test_hardened_branch_search.py`` compares this with ``finditer``, branch by branch.
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import regex

from soulscan.engine.matcher import PreparedText
from soulscan.engine.prefilter import matches_at, most_places
from soulscan.engine.text_memos import text_memo
from soulscan.hardened.anchor_finder import WordsIndex
from soulscan.hardened.pattern_reading import Ends, Starts
from soulscan.hardened.possessive_runs import possessive_run

if TYPE_CHECKING:
    from soulscan.hardened.repeated_lines import RepeatedLines


@dataclass(frozen=True)
class BranchSearch:
    """`pattern`: the rule's own; `live`: the alternation of the branches the gate left, when
    it dropped some. A dropped branch matches nowhere in the text, so at each place the
    first branch of `pattern` that matches is a live one: trying `pattern` at the live
    branches' places gives what `live` gives. Only a whole-text search, or one at very many
    places, compiles `live` (sparing the dropped branches' tries at each of them): each text
    may leave another set of branches, and compiling one costs as much as hundreds of
    searches."""

    pattern: regex.Pattern[str]
    starts: tuple[Starts, ...] | None  # every match is placed by one; None: search the whole text
    # string of `starts` -> anchors it holds once folded: a text without one of them has no
    # such string (folding keeps each character's place and turns it into the same ASCII)
    needs: Mapping[str, frozenset[str]] = field(default_factory=dict)
    live: tuple[str, int] | None = None  # (source, flags)
    # every match ends with one of the strings and is `shortest` to `widest` long
    # (``trailing_strings``), so it starts that far before the end of one of their places
    ends: Ends | None = None
    # a match starts only right after a character this zero-width pattern (the pattern's
    # own leading lookbehind, ``leading_lookbehind``) finds: the places of a search in
    # windows without start strings
    after: regex.Pattern[str] | None = None

    @functools.cached_property
    def _ignorecase(self) -> bool:
        # cached: `flags & IGNORECASE` is a slow enum operation, not worth repeating a text
        return bool(self.pattern.flags & regex.IGNORECASE)

    def spans(
        self,
        prepared: PreparedText,
        words: WordsIndex | None = None,
        present: set[str] | None = None,
    ) -> list[tuple[int, int]]:
        """Every match, as ``finditer`` gives them. `words`: the index of the prepared words
        view's folded text; `present`: which of the anchors `needs` names occur in it (all
        of them looked up): the strings they rule out are not searched for."""
        text = prepared.text
        # the index of a long words view (``repeated_windows``, ``word_requirements``: long
        # texts only)
        long_words = words if len(text) >= REPEATED_LINES_FROM else None
        if self.starts is not None:
            places = self._places(prepared, words, present)
            if long_words is not None and (places is None or len(places) >= REQUIREMENTS_FROM_PLACES):
                from soulscan.hardened.word_requirements import may_match

                # every requirement of the live branches, told by its tokens
                if not may_match(*(self.live or (self.pattern.pattern, self.pattern.flags)), long_words):
                    return []
            if places is None and long_words is not None:
                # too many to try each, but a words view may repeat its windows
                from soulscan.hardened.repeated_windows import every_match

                pattern = self.pattern if self.live is None else _compiled(*self.live)
                haystack = prepared.folded if self._ignorecase else text
                groups = [(self._strings(starts, words, present), starts.lo, starts.hi)
                          for starts in self.starts]
                found = every_match(pattern, text, haystack, groups, long_words)
                if found is not None:
                    return found
        else:
            places = self._window_places(prepared)
        if places is not None:
            narrow = self.live is not None and len(places) >= NARROWED_FROM_PLACES
            pattern = _compiled(*self.live) if narrow and self.live else self.pattern
            lines = _repeated_lines(text) if len(places) >= MEMO_FROM_PLACES else None
            if lines is not None:
                from soulscan.hardened import reach  # long texts only: not at every start

                around = reach.reach(pattern.pattern, pattern.flags)
                if around is not None and around.behind + around.ahead >= MEMO_FROM_REACH:
                    return list(reach.matches_at_by_window(pattern, lines, places, around))
            if long_words is not None and len(places) >= MEMO_FROM_PLACES:
                from soulscan.hardened.repeated_windows import word_matches

                found = word_matches(pattern, text, places, long_words)
                if found is not None:
                    return found
            return list(matches_at(pattern, text, places))
        pattern = self.pattern if self.live is None else _compiled(*self.live)
        return [match.span() for match in pattern.finditer(text)]

    def _places(
        self, prepared: PreparedText, words: WordsIndex | None, present: set[str] | None
    ) -> list[int] | None:
        """Every place where a match can start, or None when there are too many to try."""
        text = prepared.text
        haystack = prepared.folded if self._ignorecase else text
        most = most_places(len(text))
        unfolded = text if haystack is not text else None
        windows = self._windows(haystack, len(text), most, unfolded)
        places: set[int] = set()
        for starts in self.starts or ():
            strings = self._strings(starts, words, present)
            # each place of a string is tried at `width` places
            width = starts.hi - starts.lo + 1
            budget = (most - len(places)) // width
            if windows is None:
                found = start_places(haystack, strings, len(text), budget, unfolded=unfolded)
            else:
                found = _places_in(windows, starts, strings, haystack, len(text), budget, unfolded)
            if found is None:
                return None
            if starts.hi:
                found = [p - d for p in found for d in range(starts.lo, starts.hi + 1) if p >= d]
            places.update(found)
            if len(places) > most:
                return None
        return sorted(places)

    def _strings(
        self, starts: Starts, words: WordsIndex | None, present: set[str] | None
    ) -> Sequence[str]:
        """The strings of `starts` the text may hold."""
        needs = self.needs
        if present is not None and needs:
            # the gate's lookup says which strings occur: the words index adds nothing
            return [s for s in starts.strings if s not in needs or needs[s] <= present]
        return starts.held_by(words)

    def _windows(
        self, haystack: str, length: int, most: int, unfolded: str | None = None
    ) -> list[tuple[int, int]] | None:
        """The ranges where a match can start (from `widest` to `shortest` characters
        before the end of a place of a string every match ends with), merged, in order;
        None to look everywhere. (`unfolded`: the text `haystack` folds, when it does.)"""
        if self.ends is None:
            return None
        ends = self.ends
        closings = self._closings(haystack, length, most, unfolded)
        if closings is None:
            return None
        windows: list[tuple[int, int]] = []
        for closing in closings:
            first, last = max(0, closing - ends.widest), closing - ends.shortest
            if windows and first <= windows[-1][1] + 1:
                windows[-1] = (windows[-1][0], max(windows[-1][1], last))
            else:
                windows.append((first, last))
        return windows

    def _closings(
        self, haystack: str, length: int, most: int, unfolded: str | None = None
    ) -> list[int] | None:
        """Where a place of one of the strings every match ends with ends, in increasing
        order (a place may be listed twice); None past `most`."""
        closings: list[int] = []
        for string in self.ends.strings if self.ends is not None else ():
            found = start_places(haystack, (string,), length, most - len(closings), unfolded=unfolded)
            if found is None:
                return None
            closings += [place + len(string) for place in found]
        return sorted(closings)

    def _window_places(self, prepared: PreparedText) -> list[int] | None:
        """Every place in the windows (``_windows``) where a match of a pattern without
        start strings can start, or None to search the whole text: a non-empty match
        starts in a window, and right after a character `after` finds when it is known."""
        if self.ends is None or self.ends.shortest < 1:
            return None
        text = prepared.text
        haystack = prepared.folded if self._ignorecase else text
        unfolded = text if haystack is not text else None
        # ``finditer`` of such a pattern tries it at every place of the text, each try far
        # cheaper than a ``match`` call: only a text with few places in windows pays
        most = len(text) // WINDOW_CHARS_PER_PLACE
        run = None if self.after is None else possessive_run(self.pattern.pattern, self.pattern.flags)
        if run is not None:
            # a match ends where the run from its start ends: a handful of places a closing
            closings = self._closings(haystack, len(text), most, unfolded)
            return None if closings is None else run.starts(text, closings, most)
        windows = self._windows(haystack, len(text), most, unfolded)
        if windows is None:
            return None
        places: list[int] = []
        after = self.after
        for first, last in windows:
            if after is None:
                places.extend(range(first, last + 1))
            else:
                places.extend(m.start() for m in after.finditer(text, first, last + 1))
            if len(places) > most:
                return None
        return places


def _places_in(
    windows: list[tuple[int, int]], starts: Starts, strings: Sequence[str],
    haystack: str, length: int, most: int, unfolded: str | None = None,
) -> list[int] | None:
    """The places of `strings` that put a match start in one of the windows; None past
    `most`. (A string `lo` to `hi` after a start in [a, b] starts in [a + lo, b + hi].)"""
    found: list[int] = []
    longest = max(map(len, strings), default=0)
    lines = _repeated_lines(haystack, unfolded)
    if lines is not None:
        # each string's places found once, those in each window picked out of them
        every = [(len(string), lines.every(string)) for string in strings]
        for first, last in windows:
            limit = min(length, last + starts.hi + longest)
            begin = first + starts.lo
            for size, places in every:
                found += places[bisect_left(places, begin) : bisect_right(places, limit - size)]
            if len(found) > most:
                return None
        return found
    for first, last in windows:
        limit = min(length, last + starts.hi + longest)
        more = start_places(haystack, strings, limit, most - len(found), first + starts.lo, unfolded)
        if more is None:
            return None
        found += more
    return found


# Texts shorter than this are searched whole: splitting a text into lines costs about as
# much as a few searches of it (``anchor_finder.DISTINCT_LINES_FROM`` too).
REPEATED_LINES_FROM = 1 << 15
# Nor is a text of lines shorter than this on average read through its lines: reading them
# costs a Python step a line (a megabyte of empty lines, ~0.2 s), more than searches save.
MIN_LINE_CHARS = 16


def _repeated_lines(haystack: str, unfolded: str | None = None) -> RepeatedLines | None:
    """The haystack read as its distinct lines, when it is long, of lines long enough, and
    repeats its lines. `unfolded`: the text `haystack` is the folded form of, when it is one
    (``PreparedText.folded``): its lines are read from that text's (``folded_lines``)."""
    if len(haystack) < REPEATED_LINES_FROM or not _long_lines(haystack):
        return None
    if unfolded is not None:
        return _folded_repeated_lines(haystack, unfolded)
    from soulscan.hardened import repeated_lines  # long texts only: not at every start

    return repeated_lines.repeated_lines(haystack)


@text_memo(maxsize=8)
def _folded_repeated_lines(folded: str, text: str) -> RepeatedLines | None:
    from soulscan.hardened import repeated_lines
    from soulscan.hardened.folded_lines import folded_lines

    lines = _repeated_lines(text)
    derived = None if lines is None else folded_lines(lines, folded)
    return repeated_lines.repeated_lines(folded) if derived is None else derived


@text_memo(maxsize=8)
def _long_lines(haystack: str) -> bool:
    return haystack.count("\n") * MIN_LINE_CHARS <= len(haystack)


# A long words view whose start strings have this many places (or too many to try) is first
# told by its tokens whether every requirement of a live branch can occur
# (``word_requirements``): a look at up to hundreds of anchors costs about what this many
# tries of the pattern do.
REQUIREMENTS_FROM_PLACES = 512
# A text that repeats its lines is searched once per distinct window a pattern can read
# (``reach.matches_at_by_window``) when there are this many places to try, and the pattern
# reads this far around each: a try that may read that far costs more than the key of its
# window (narrower reaches gain nothing measurable on the 1 MB near-misses).
MEMO_FROM_PLACES = 64
MEMO_FROM_REACH = 1024


# After this many places of one string, found a ``find`` each, the rest are counted in one
# C pass when they look too many: a string that occurs everywhere is given up on without a
# call a place.
FINDS_BEFORE_COUNT = 8


def start_places(
    haystack: str, strings: Iterable[str], limit: int, most: int, begin: int = 0,
    unfolded: str | None = None,
) -> list[int] | None:
    """Every offset from `begin` where one of `strings` occurs whole below `limit` (string
    by string, each in increasing order); None past `most`. `unfolded`: the text `haystack`
    is the folded form of, when it is one (``PreparedText.folded``)."""
    if len(haystack) >= REPEATED_LINES_FROM:
        lines = _repeated_lines(haystack, unfolded)
        if lines is not None:
            return lines.places(strings, limit, most, begin)
        from soulscan.hardened.token_places import token_places  # long texts only

        return token_places(haystack).places(strings, limit, most, begin)
    return found_each(haystack, strings, limit, most, begin)


# The places of one string from `begin` below `limit`; None past `most`.
PlacesOfOne = Callable[[str, int, int, int], list[int] | None]


def places_string_by_string(
    strings: Iterable[str], limit: int, most: int, begin: int, places_of: PlacesOfOne
) -> list[int] | None:
    """``start_places`` with each string's places found by ``places_of(string, begin,
    limit, most left)``: string by string, each in increasing order; None past `most`."""
    places: list[int] = []
    for string in strings:
        found = places_of(string, begin, limit, most - len(places))
        if found is None:
            return None
        places += found
    return places


def found_each(
    haystack: str, strings: Iterable[str], limit: int, most: int, begin: int = 0
) -> list[int] | None:
    """``start_places`` by a ``find`` a place."""
    places: list[int] = []
    find = haystack.find
    for string in strings:
        index = find(string, begin, limit)
        found = 0
        while index >= 0:
            places.append(index)
            found += 1
            if len(places) > most:
                return None
            if (found == FINDS_BEFORE_COUNT
                    and (limit - index) * found > (most - len(places)) * (index - begin + 1)
                    and len(places) + haystack.count(string, index + 1, limit) > most):
                # at the rate found so far the string would pass `most`, and ``count`` (of
                # occurrences that do not overlap: never more than there are) says it does
                return None
            index = find(string, index + 1, limit)
    return places


# Compiling the live branches' alternation costs about as much as trying the dropped
# branches too at this many places.
NARROWED_FROM_PLACES = 2048


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, flags: int) -> regex.Pattern[str]:
    return regex.compile(source, flags)


# A search in windows without start strings tries the pattern at every place of a window
# (after a character `after` finds): one ``match`` call costs about what ``finditer``
# spends on this many characters of a whole-text search of such a pattern.
WINDOW_CHARS_PER_PLACE = 8
