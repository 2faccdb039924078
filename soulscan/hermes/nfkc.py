"""NFKC normalisation that remembers where each output character came from.

The runtime matches its patterns against ``unicodedata.normalize("NFKC", window)``.
To point a finding at the real characters of the file we normalise piece by piece
and record, for each output character, the source range of its piece.

Pieces are cut before ASCII characters: an ASCII character is a starter that
never composes with what precedes it, so normalising the pieces separately gives
exactly the NFKC of the whole. Within a piece that changes, characters are
grouped as a starter plus its following non-starters; where grouping disagrees
with the piece's own NFKC (compositions across starters, e.g. Hangul jamo),
groups are merged until it agrees.

CPython's canonical reordering is an insertion sort, quadratic in the length of
a run of combining marks (32,000 marks: 0.7 s). ``nfkc`` gives the same result in
linear time for such text: decompose character by character, sort each run of
marks by combining class (stable, as the standard requires), then compose with
NFC, whose own reordering is linear on already-ordered input. For mapping, a run
with no cut point for ``MAX_PIECE`` characters (only a crafted file has one) is
cut anyway; that can only change the order of marks inside the run, never a
letter, and the verdict is always computed on the exact NFKC of the scan window.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

import regex

PIECE = 2048  # aim for pieces of about this size
LONG_MARK_RUN = 32  # from this many marks in a row, CPython's reordering gets slow
MAX_PIECE = 8192  # never normalise a longer run in one call


@dataclass(frozen=True)
class MappedText:
    text: str
    # Source start/end offset of each character of ``text``; None when ``text`` is
    # the source itself (the common case: most files need no normalisation).
    starts: tuple[int, ...] | None
    ends: tuple[int, ...] | None
    source_length: int

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a half-open range of ``text`` back to the source text."""
        if start >= len(self.text):
            return self.source_length, self.source_length
        if self.starts is None or self.ends is None:
            return start, max(start, end)
        if end <= start:
            return self.starts[start], self.starts[start]
        return self.starts[start], self.ends[end - 1]


def _pieces(text: str) -> Iterator[tuple[int, int]]:
    """Cut points: before an ASCII character after ``PIECE`` chars, else before a
    starter, else (a crafted run of marks) at ``MAX_PIECE``."""
    start = 0
    n = len(text)
    while start < n:
        if n - start <= PIECE:
            yield start, n
            return
        cut = _next_cut(text, start + PIECE, min(n, start + MAX_PIECE))
        yield start, cut
        start = cut


def _next_cut(text: str, lo: int, hi: int) -> int:
    for i in range(lo, hi):
        if text[i].isascii():
            return i
    for i in range(lo, hi):
        if unicodedata.combining(text[i]) == 0:
            return i
    return hi


def nfkc(text: str) -> str:
    """Exactly ``unicodedata.normalize("NFKC", text)``, in linear time."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text
    if not _has_long_mark_run(text):
        return unicodedata.normalize("NFKC", text)
    decomposed = "".join([unicodedata.normalize("NFKD", ch) for ch in text])
    return unicodedata.normalize("NFC", _canonical_order(decomposed))


# Only decides which of two exact paths to take, so it may be approximate: marks
# by general category rather than by combining class, and regex's Unicode version.
_MARK_RUN = regex.compile(rf"[\p{{Mn}}\p{{Mc}}\p{{Me}}]{{{LONG_MARK_RUN}}}")


def _has_long_mark_run(text: str) -> bool:
    return _MARK_RUN.search(text) is not None


def _canonical_order(text: str) -> str:
    out: list[str] = []
    run: list[str] = []
    combining = unicodedata.combining
    for ch in text:
        if combining(ch):
            run.append(ch)
            continue
        if run:
            out.extend(sorted(run, key=combining))
            run = []
        out.append(ch)
    out.extend(sorted(run, key=combining))
    return "".join(out)


def _groups(text: str) -> list[tuple[int, int]]:
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
    if text.isascii():  # NFKC leaves ASCII alone: nothing to map
        return MappedText(text, None, None, len(text))
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for a, b in _pieces(text):
        piece = text[a:b]
        normal = nfkc(piece)
        if normal == piece:
            out.append(piece)
            starts.extend(range(a, b))
            ends.extend(range(a + 1, b + 1))
            continue
        for ga, gb, group in _map_piece(piece, normal):
            out.append(group)
            starts.extend([a + ga] * len(group))
            ends.extend([a + gb] * len(group))
    normalised = "".join(out)
    if normalised == text:
        return MappedText(text, None, None, len(text))
    return MappedText(normalised, tuple(starts), tuple(ends), len(text))


def _map_piece(piece: str, whole: str) -> list[tuple[int, int, str]]:
    groups = [(a, b, nfkc(piece[a:b])) for a, b in _groups(piece)]
    if "".join(g for _, _, g in groups) == whole:
        return groups
    return _merge_until_equal(piece, groups, whole)


def _merge_until_equal(text: str, pieces: list[tuple[int, int, str]],
                       whole: str) -> list[tuple[int, int, str]]:
    """Greedily grow groups wherever the concatenation diverges from ``whole``."""
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
