"""Where strings occur in a long text that repeats its lines, found through its distinct lines.

A generated file or a padded attack repeats its lines, and a rule's start strings then occur
at the same offsets of every copy of a line. A string without a line break lies inside one
line wherever it occurs, so its places in the text are its places in each distinct line,
moved to where each copy of that line starts: the strings are searched for in the distinct
lines (joined by line breaks, a small part of the text) instead of in the whole text, once a
string. Strings that hold a line break are searched for in the text itself.

``tests/test_hardened_repeated_lines.py`` compares this with a search of the whole text.
"""

from __future__ import annotations

import itertools
import operator
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field

from soulscan.engine.text_memos import text_memo
from soulscan.hardened.branch_search import found_each, places_string_by_string


@dataclass(frozen=True)
class RepeatedLines:
    """A text read as its distinct lines: `distinct` joins them with line breaks, the line
    numbered i starts at ``firsts[i]`` there and at each of ``copies[i]`` in the text, and
    the text's own lines are ``numbered``, starting at ``starts``."""

    text: str
    distinct: str
    firsts: list[int]
    copies: list[list[int]]
    numbered: list[int]  # the number of each line of the text
    starts: list[int]  # where each line of the text starts
    # string -> every place of it (``every``): rules share their start strings
    _every: dict[str, list[int]] = field(default_factory=dict, compare=False, repr=False)

    def every(self, string: str) -> list[int]:
        """Every place of `string` in the text, in increasing order."""
        found = self._every.get(string)
        if found is None:
            found = self.places((string,), len(self.text), len(self.text) + 1) or []
            self._every[string] = found
        return found

    def window(self, first: int, last: int) -> tuple[int, tuple[int, ...]]:
        """A key of the text from `first` to `last` (both in it): where `first` lies in its
        line, and the numbers of the lines from its line to `last`'s. Two stretches of the
        same length with the same key read the same (their lines are the same lines)."""
        starts = self.starts
        top = bisect_right(starts, first) - 1
        bottom = bisect_right(starts, last, top)
        return first - starts[top], tuple(self.numbered[top:bottom])

    def places(
        self, strings: Iterable[str], limit: int, most: int, begin: int = 0
    ) -> list[int] | None:
        """``branch_search.start_places``: every offset from `begin` where one of `strings`
        occurs whole below `limit` (string by string, each in increasing order); None past
        `most`."""
        return places_string_by_string(strings, limit, most, begin, self._places_of)

    def _places_of(self, string: str, begin: int, limit: int, most: int) -> list[int] | None:
        if not string or "\n" in string:
            return found_each(self.text, (string,), limit, most, begin)
        return self._found(string, begin, limit, most)

    def _found(self, string: str, begin: int, limit: int, most: int) -> list[int] | None:
        """The places of a string without a line break; None past `most`."""
        firsts, copies, find = self.firsts, self.copies, self.distinct.find
        # (line, offset in it, the copies of the line where the string lies in range)
        hits: list[tuple[int, int, int, int]] = []
        count = 0
        last_copy = limit - len(string)
        at = find(string)
        while at >= 0:
            line = bisect_right(firsts, at) - 1
            offset = at - firsts[line]
            starts = copies[line]
            first = bisect_left(starts, begin - offset)
            past = bisect_right(starts, last_copy - offset)
            if past > first:
                hits.append((line, offset, first, past))
                count += past - first
                if count > most:
                    return None
            at = find(string, at + 1)
        found: list[int] = []
        for line, offset, first, past in hits:
            found += map(offset.__add__, copies[line][first:past])
        if len(hits) > 1:
            found.sort()
        return found


@text_memo(maxsize=8)
def repeated_lines(text: str) -> RepeatedLines | None:
    """The text read as its distinct lines, when they make up at most half of it; None
    otherwise. (``branch_search`` asks only for long texts, which pay the split.)"""
    return lines_of(text, most_chars=len(text) // 2)


def lines_of(text: str, most_chars: int | None = None) -> RepeatedLines | None:
    """The text read as its distinct lines; None when they pass `most_chars`."""
    lines = text.split("\n")
    numbers: dict[str, int] = {}
    numbered = [numbers.setdefault(line, len(numbers)) for line in lines]
    distinct = "\n".join(numbers)
    if most_chars is not None and len(distinct) > most_chars:
        return None
    line_starts = joined_starts(lines)
    copies: list[list[int]] = [[] for _ in numbers]
    for number, start in zip(numbered, line_starts):
        copies[number].append(start)
    firsts = joined_starts(numbers)
    return RepeatedLines(text, distinct, firsts, copies, numbered, line_starts)


def joined_starts(pieces: Iterable[str]) -> list[int]:
    """Where each of `pieces` starts in them joined by a one-character separator (and, last,
    one past the end of the joined text): their lengths plus one, accumulated in C."""
    return list(itertools.accumulate(map(operator.add, map(len, pieces), itertools.repeat(1)), initial=0))
