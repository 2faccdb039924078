"""Code-point offsets to 1-based line and column numbers.

Lines are split on ``\\n`` of the decoded text. The runtime reads files with universal
newlines, so CRLF and lone CR are already ``\\n`` there; because a CR only ever sits at
the end of a line, line and column numbers computed on the translated text are also
right for the file on disk. Columns count code points (a character outside the BMP is
one column, a leading BOM is column 1), which is what the JSON contract promises.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Sequence

from soulscan.models import Location

_new = tuple.__new__  # a named tuple built without its Python-level ``__new__``
_START, _END = operator.itemgetter(0), operator.itemgetter(1)
_NO_LOCATION = Location(0, 0, 0, 0)  # a placeholder, every one replaced

# Newlines are looked for at least this far ahead at a time (and the stretch read at least
# doubles each time), so a file whose findings all sit near its start is never read to its end.
_FIRST_STRETCH = 4096


class LineIndex:
    """Start offsets of the lines of one text, for repeated offset lookups.

    The starts are found only as far into the text as offsets have been asked for
    (doubling each time): a megabyte file whose findings all lie in its first few
    kilobytes costs a few kilobytes of newline search, not a megabyte.
    """

    __slots__ = ("_known", "_searched", "_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0]
        self._searched = 0  # every newline before this offset is in ``_starts``
        self._known: dict[int, int] = {}  # line number -> start, of the lines ``locations`` met

    @classmethod
    def of(cls, text: str) -> LineIndex:
        return cls(text)

    @property
    def line_starts(self) -> Sequence[int]:
        """The start offset of every line of the text."""
        self._search_to(len(self.text))
        return self._starts

    def _search_to(self, offset: int) -> None:
        if offset <= self._searched:
            return
        start = self._searched
        end = min(len(self.text), max(offset, 2 * start, _FIRST_STRETCH))
        if self.text.find("\n", start, end) != -1:
            pieces = self.text[start:end].split("\n")
            del pieces[-1]  # what follows the last newline is no line start's business
            # A line starts one past each newline: accumulate piece lengths + 1, in C.
            ends = itertools.accumulate(map((1).__add__, map(len, pieces)), initial=start)
            self._starts.extend(itertools.islice(ends, 1, None))
        self._searched = end

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``; ``len(text)`` is a valid end position."""
        if not 0 <= offset <= len(self.text):
            raise ValueError(f"offset {offset} outside text of length {len(self.text)}")
        self._search_to(offset)
        line_number = bisect.bisect_right(self._starts, offset)
        return line_number, offset - self._starts[line_number - 1] + 1

    def location(self, start: int, end: int) -> Location:
        """Location of the half-open span ``[start, end)``; the end column is exclusive."""
        if end < start:
            raise ValueError(f"span end {end} before start {start}")
        line, column = self.position(start)
        if end > len(self.text):
            raise ValueError(f"offset {end} outside text of length {len(self.text)}")
        self._search_to(end)
        starts = self._starts
        if line < len(starts) and end >= starts[line]:  # the span runs on past its line
            end_line = bisect.bisect_right(starts, end, line)
            return Location(line, column, end_line, end - starts[end_line - 1] + 1)
        return Location(line, column, line, end - starts[line - 1] + 1)

    def locations(self, spans: Sequence[tuple[int, int]]) -> list[Location]:
        """``location`` of each ``(start, end)`` span, worked out in one walk through the
        spans in text order: the newlines between one span and the next are counted in C,
        and no list of line starts is built (a flagged file has a finding or two, or
        thousands on a few lines). The lines met are remembered for ``line_start``."""
        text = self.text
        text_length = len(text)
        order: Sequence[int] = range(len(spans))
        if len(spans) == 1:  # (most flagged files: the one span checked and walked to)
            start, end = spans[0]
            if not 0 <= start <= end <= text_length:
                return [self.location(start, end)]  # raises the error
        elif spans:
            starts = list(map(_START, spans))
            ends = list(map(_END, spans))
            low, high = min(starts), max(ends)
            # (each span is 0 <= start <= end <= text_length: checked in C)
            if low < 0 or high > text_length or any(map(operator.gt, starts, ends)):
                return [self.location(start, end) for start, end in spans]  # raises the error
            if text.find("\n", low, high) == -1:
                # All on one line (a thousand hidden characters of a long line): its number
                # and start found once, each column by C-level map.
                line = text.count("\n", 0, low) + 1
                line_start = self._known[line] = text.rfind("\n", 0, low) + 1
                rows = zip(itertools.repeat(line), map((1 - line_start).__add__, starts),
                           itertools.repeat(line), map((1 - line_start).__add__, ends))
                return list(map(_new, itertools.repeat(Location), rows))
            if any(map(operator.gt, starts, starts[1:])):
                order = sorted(order, key=starts.__getitem__)
        else:
            return []
        count, find, rfind = text.count, text.find, text.rfind
        known = self._known
        found: list[Location] = [_NO_LOCATION] * len(spans)
        line, line_start, counted = 1, 0, 0  # every newline before ``counted`` is counted
        for position in order:
            start, end = spans[position]
            breaks = count("\n", counted, start)
            if breaks:
                line += breaks
                line_start = rfind("\n", counted, start) + 1
            counted = start
            known[line] = line_start
            inside = find("\n", start, end)
            if inside == -1:
                found[position] = _new(Location, (line, start - line_start + 1, line, end - line_start + 1))
            else:  # the span runs on past its line
                end_line = line + count("\n", inside, end)
                end_line_start = rfind("\n", inside, end) + 1
                known[end_line] = end_line_start
                found[position] = _new(Location, (line, start - line_start + 1, end_line,
                                                  end - end_line_start + 1))
        return found

    def line_start(self, line: int) -> int:
        """The offset where 1-based ``line`` starts."""
        known = self._known.get(line)
        if known is not None:
            return known
        while len(self._starts) < line and self._searched < len(self.text):
            self._search_to(self._searched + 1)
        return self._starts[line - 1]

    def line_end(self, line: int, limit: int) -> int:
        """Where 1-based ``line`` ends (its newline, or the end of the text), or ``limit``
        if that comes first: the text is searched no further than ``limit`` for it."""
        limit = min(limit, len(self.text))
        end = self.text.find("\n", self.line_start(line), limit)
        return limit if end == -1 else end

    def line_text(self, line: int) -> str:
        """The text of 1-based ``line`` without its newline."""
        start = self.line_start(line)
        end = self.text.find("\n", start)
        return self.text[start : len(self.text) if end == -1 else end]


def location_of(text: str, start: int, end: int) -> Location:
    """One-off lookup; build a ``LineIndex`` when mapping many spans of one text."""
    return LineIndex.of(text).location(start, end)
