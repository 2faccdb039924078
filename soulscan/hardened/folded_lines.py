"""A folded text read as its distinct lines, taken from the text's own (no second split).

A case-insensitive rule looks for its strings in the folded text (``PreparedText.folded``),
and a long text that repeats its lines is searched through its distinct lines
(``repeated_lines``): reading the folded text's lines costs as much as reading the text's,
a few milliseconds a megabyte. Folding turns each character into one character, a line
break into a line break and nothing else into one, and reads no further than the line a
character is in (the one rule of ``lower()`` that reads around a character, the final
sigma, stops at a line break: it is neither cased nor case-ignorable), so two equal lines of
the text fold to equal lines, at the same places. The folded text's lines are then the
text's, each distinct line read at its first copy in the folded text. The folded form of a
text that is not all ASCII ends with a marker (``anchors.NON_ASCII``, no line break): its
last line is then a distinct line of its own.
``tests/test_hardened_folded_lines.py`` compares this with reading the folded text itself.
"""

from __future__ import annotations

from soulscan.engine.anchors import NON_ASCII
from soulscan.hardened.repeated_lines import RepeatedLines, joined_starts


def folded_lines(lines: RepeatedLines, folded: str) -> RepeatedLines | None:
    """`lines` (of a text) read in `folded`, that text folded (maybe with a marker added at
    its end); None when `folded` is not such a text."""
    text = lines.text
    marker = folded[len(text):]
    if len(folded) < len(text) or marker not in ("", NON_ASCII):
        return None
    firsts, copies, numbered, starts = lines.firsts, lines.copies, lines.numbered, lines.starts
    if marker:
        # the last line (the last copy of its line) is a distinct line of its own
        last = numbered[-1]
        copies = [*copies[:last], copies[last][:-1], *copies[last + 1:], [starts[-2]]]
        numbered = [*numbered[:-1], len(lines.copies)]
        starts = [*starts[:-1], starts[-1] + len(marker)]
    # each distinct line at its first copy (a line whose one copy was the last keeps its own
    # characters: it has no place left to find a string at)
    pieces = []
    for number in range(len(lines.copies)):
        first, width = firsts[number], firsts[number + 1] - firsts[number] - 1
        places = copies[number]
        pieces.append(folded[places[0] : places[0] + width] if places
                      else lines.distinct[first : first + width])
    if marker:
        pieces.append(folded[starts[-2]:])
    return RepeatedLines(folded, "\n".join(pieces), joined_starts(pieces), copies, numbered, starts)
