"""NFKC normalisation that remembers where each output character came from.

The runtime matches its patterns against ``unicodedata.normalize("NFKC", window)``.
To point a finding at the real characters of the file we normalise segment by
segment — a segment being a starter and the non-starters that follow it — and
record, for each output character, the segment's source range. If segment-wise
normalisation ever disagrees with normalising the whole text (compositions across
starters, e.g. Hangul jamo), segments are merged until it agrees, so the output
text is always exactly the runtime's.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class MappedText:
    text: str
    starts: tuple[int, ...]  # source start offset for each character of ``text``
    ends: tuple[int, ...]    # source end offset for each character of ``text``
    source_length: int

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a half-open range of ``text`` back to the source text."""
        if start >= len(self.text):
            return self.source_length, self.source_length
        if end <= start:
            return self.starts[start], self.starts[start]
        return self.starts[start], self.ends[end - 1]


def _segments(text: str) -> list[tuple[int, int]]:
    bounds: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(text)):
        if unicodedata.combining(text[i]) == 0:
            bounds.append((start, i))
            start = i
    if text:
        bounds.append((start, len(text)))
    return bounds


def nfkc_mapped(text: str) -> MappedText:
    whole = unicodedata.normalize("NFKC", text)
    if whole == text:  # the common case: nothing to map
        identity = tuple(range(len(text)))
        return MappedText(text, identity, tuple(i + 1 for i in identity), len(text))
    pieces = [(a, b, unicodedata.normalize("NFKC", text[a:b])) for a, b in _segments(text)]
    if "".join(p for _, _, p in pieces) != whole:
        pieces = _merge_until_equal(text, pieces, whole)
    starts: list[int] = []
    ends: list[int] = []
    for a, b, piece in pieces:
        starts.extend([a] * len(piece))
        ends.extend([b] * len(piece))
    return MappedText(whole, tuple(starts), tuple(ends), len(text))


def _merge_until_equal(text: str, pieces: list[tuple[int, int, str]],
                       whole: str) -> list[tuple[int, int, str]]:
    """Greedily grow pieces wherever the concatenation diverges from ``whole``."""
    out: list[tuple[int, int, str]] = []
    pos = 0  # position in ``whole`` matched so far
    i = 0
    while i < len(pieces):
        a, b, piece = pieces[i]
        j = i
        while not whole.startswith(piece, pos) or (
            j + 1 < len(pieces) and not _boundary_ok(text, whole, pos + len(piece), b)
        ):
            j += 1
            if j >= len(pieces):
                piece = whole[pos:]
                b = len(text)
                break
            b = pieces[j][1]
            piece = unicodedata.normalize("NFKC", text[a:b])
        out.append((a, b, piece))
        pos += len(piece)
        i = j + 1
    return out


def _boundary_ok(text: str, whole: str, pos: int, source_end: int) -> bool:
    """The rest of the text, normalised on its own, continues ``whole`` at ``pos``."""
    return unicodedata.normalize("NFKC", text[source_end:]) == whole[pos:]
