"""Code-point offsets to 1-based line and column numbers.

Lines are split on ``\\n`` of the decoded text. The runtime reads files with universal
newlines, so CRLF and lone CR are already ``\\n`` there; because a CR only ever sits at
the end of a line, line and column numbers computed on the translated text are also
right for the file on disk. Columns count code points (a character outside the BMP is
one column, a leading BOM is column 1), which is what the JSON contract promises.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from soulscan.models import Location


@dataclass(frozen=True)
class LineIndex:
    """Start offsets of every line of one text, for repeated offset lookups."""

    text: str
    line_starts: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> LineIndex:
        starts = [0]
        position = text.find("\n")
        while position != -1:
            starts.append(position + 1)
            position = text.find("\n", position + 1)
        return cls(text, tuple(starts))

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``; ``len(text)`` is a valid end position."""
        if not 0 <= offset <= len(self.text):
            raise ValueError(f"offset {offset} outside text of length {len(self.text)}")
        line_number = bisect.bisect_right(self.line_starts, offset)
        return line_number, offset - self.line_starts[line_number - 1] + 1

    def location(self, start: int, end: int) -> Location:
        """Location of the half-open span ``[start, end)``; the end column is exclusive."""
        if end < start:
            raise ValueError(f"span end {end} before start {start}")
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Location(line, column, end_line, end_column)

    def line_text(self, line: int) -> str:
        """The text of 1-based ``line`` without its newline."""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.text)
        return self.text[start:end]


def location_of(text: str, start: int, end: int) -> Location:
    """One-off lookup; build a ``LineIndex`` when mapping many spans of one text."""
    return LineIndex.of(text).location(start, end)
