"""A linear-time matcher for patterns of one bounded-gap shape, exact to Python's ``re``.

The shape is ``OPEN [^X]{0,a} (?:W1|W2|...) [^X]{0,b} CLOSE`` with literal ``OPEN``,
literal words ``Wi``, and a literal ``CLOSE`` whose last character is the stop character
``X`` and the only ``X`` in the literals (the runtime's ``html_comment_injection``:
``<!--[^>]{0,512}(?:ignore|...)[^>]{0,512}-->``). A backtracking engine restarts at every
``OPEN`` and walks up to ``a + b`` characters from each: quadratic-looking work on a text of
nested openers. What any match must be follows from the shape:

* a match holds exactly one ``X``, its last character: every other part excludes it. So a
  match starting at ``s`` ends just after ``G``, the first ``X`` past the opener, and
  ``CLOSE`` must end there (it cannot end earlier: its ``X`` would come before ``G``);
* whichever word the engine settles on, the span is therefore ``[s, G + 1)``, and there is
  one when some word ends by ``CLOSE``'s start, starts at most ``a`` characters after
  ``OPEN`` and ends at most ``b`` characters before ``CLOSE``;
* the stretches between consecutive ``X`` are independent: ``finditer`` reports, for each
  stretch ending in ``CLOSE``, the leftmost opener of the stretch that has such a word.

Each stretch is read once, by ``re`` itself (same flags, so the same case rules), and only
its last ``len(OPEN) + a + max(len(Wi)) + b + len(CLOSE)`` characters can hold a match.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

from soulscan.engine import cache


@dataclass(frozen=True)
class BoundedGap:
    """A linear matcher for an opener, a bounded gap, a word, a bounded gap and a closer."""
    opener: re.Pattern[str]  # each finds every occurrence (a lookahead), overlapping ones too
    words: re.Pattern[str]
    closer: re.Pattern[str]
    opener_length: int
    closer_length: int
    longest_word: int
    stop: str
    before: int  # a: most characters between the opener and a word
    after: int  # b: most characters between a word and the closer
    caseless_closer: str | None  # the closer, when no character of it has another case
    caseless_opener: str | None  # the opener, when no character of it has another case

    def finditer(self, text: str) -> Iterator[tuple[int, int]]:
        """The spans ``re.finditer`` reports for the pattern, in order."""
        stretch_start = 0
        for close_at in _starts(self.closer, self.caseless_closer, text, 0, len(text)):
            stop_at = close_at + self.closer_length - 1
            previous_stop = text.rfind(self.stop, stretch_start, stop_at)
            if previous_stop >= 0:
                stretch_start = previous_stop + 1
            start = self._leftmost_start(text, stretch_start, close_at)
            if start is not None:
                yield start, stop_at + 1
            stretch_start = stop_at + 1

    def search(self, text: str) -> bool:
        return next(self.finditer(text), None) is not None

    def _leftmost_start(self, text: str, lo: int, close_at: int) -> int | None:
        """The first opener in ``[lo, close_at)`` with a word close enough to it and to the
        closer at ``close_at``."""
        reach = self.opener_length + self.before + self.longest_word + self.after
        lo = max(lo, close_at - reach)
        openings = _starts(self.opener, self.caseless_opener, text, lo, close_at)
        first = next(openings, None)
        if first is None:
            return None
        # A word counts only after an opener's end and at most ``after`` characters before
        # the closer: the words are read from there on, not over the whole reach (a closer
        # with no opener near it reads nothing).
        words_from = max(first + self.opener_length, close_at - self.after - self.longest_word)
        # Word starts p with p + len(word) <= close_at and close_at - (p + len(word)) <= after.
        places = [
            found.start() for found in self.words.finditer(text, words_from, close_at)
            if close_at - found.start() - len(found.group(1)) <= self.after
        ]
        if not places:
            return None
        for opening in itertools.chain((first,), openings):
            first_word = opening + self.opener_length
            index = bisect.bisect_left(places, first_word)
            if index < len(places) and places[index] - first_word <= self.before:
                return opening
        return None


def _starts(
    finder: re.Pattern[str], caseless: str | None, text: str, lo: int, end: int
) -> Iterator[int]:
    """Where a literal (the opener or the closer) starts inside ``[lo, end)``, overlapping
    ones too: by its ``_finder``, or by ``str.find`` (C speed) when it is ``caseless``, the
    literal itself, no character of it having another case."""
    if caseless is None:
        yield from (found.start() for found in finder.finditer(text, lo, end))
        return
    index = text.find(caseless, lo, end)
    while index >= 0:
        yield index
        index = text.find(caseless, index + 1, end)


def bounded_gap(pattern: str, flags: int) -> BoundedGap | None:
    """The linear matcher for ``pattern`` (Python ``re`` syntax and flags), if it has the shape."""
    if pattern.count("[^") < 2:
        return None  # not worth parsing: the shape has two negated sets
    shape = _shape(pattern, int(flags))
    if shape is None:
        return None
    opener, words, closer, stop, before, after, flags = shape
    return BoundedGap(
        opener=_finder(opener, flags), words=_finder("|".join(map(re.escape, words)), flags, raw=True),
        closer=_finder(closer, flags), opener_length=len(opener), closer_length=len(closer),
        longest_word=max(map(len, words)), stop=stop, before=before, after=after,
        caseless_closer=None if any(map(_has_case, closer)) else closer,
        caseless_opener=None if any(map(_has_case, opener)) else opener,
    )


# The shape's parts: opener, words, closer, stop character, the gaps before and after the
# word, and the flags the parse ends with.
Shape = tuple[str, tuple[str, ...], str, str, int, int, int]


@cache.persistent  # parsed with re's parser (pure Python) for each runtime rule at start-up
def _shape(pattern: str, flags: int) -> Shape | None:
    try:
        parsed = _parser.parse(pattern, flags)
    except re.error:
        return None
    nodes, flags = list(parsed), parsed.state.flags
    opener = _literal_run(nodes, 0)
    if opener is None or len(nodes) < len(opener) + 4:
        return None
    gap_before = _gap(nodes[len(opener)])
    words = _alternatives(nodes[len(opener) + 1])
    gap_after = _gap(nodes[len(opener) + 2])
    closer = _literal_run(nodes, len(opener) + 3)
    if gap_before is None or gap_after is None or words is None or closer is None:
        return None
    if len(opener) + 3 + len(closer) != len(nodes):
        return None
    (before, stop), (after, other_stop) = gap_before, gap_after
    literals = opener + closer[:-1] + "".join(words)
    if stop != other_stop or closer[-1] != stop or stop in literals or _has_case(stop):
        return None
    if not _one_word_per_place(words):
        return None
    return opener, tuple(words), closer, stop, before, after, int(flags)


def _finder(literal: str, flags: int, raw: bool = False) -> re.Pattern[str]:
    body = literal if raw else re.escape(literal)
    return re.compile(f"(?=({body}))", flags)


def _one_word_per_place(words: list[str]) -> bool:
    """Can at most one word match at any place? ASCII words, none a prefix of another
    ignoring case (``re`` pairs each ASCII letter only with its own cases), so the first
    alternative ``re`` finds at a place is the only one, with the only possible length."""
    lowered = sorted(word.lower() for word in words)
    return all(word.isascii() for word in words) and not any(
        later.startswith(earlier) for earlier, later in itertools.pairwise(lowered)
    )


def _has_case(ch: str) -> bool:
    return ch.lower() != ch or ch.upper() != ch or not ch.isascii()


def _literal_run(nodes: list[Any], start: int) -> str | None:
    chars = []
    for op, av in nodes[start:]:
        if op is not C.LITERAL:
            break
        chars.append(chr(av))
    return "".join(chars) or None


def _gap(node: tuple[Any, Any]) -> tuple[int, str] | None:
    """``[^X]{0,n}`` as (n, X)."""
    op, av = node
    if op is not C.MAX_REPEAT:
        return None
    low, high, body = av
    items = list(body)
    if low != 0 or high is C.MAXREPEAT or len(items) != 1 or items[0][0] is not C.NOT_LITERAL:
        return None
    return high, chr(items[0][1])


def _alternatives(node: tuple[Any, Any]) -> list[str] | None:
    op, av = node
    if op is C.SUBPATTERN and not (av[1] | av[2]) and len(av[3]) == 1:
        return _alternatives(av[3][0])
    if op is not C.BRANCH:
        return None
    words = []
    for branch in av[1]:
        word = _literal_run(list(branch), 0)
        if word is None or len(word) != len(branch):
            return None
        words.append(word)
    return words
