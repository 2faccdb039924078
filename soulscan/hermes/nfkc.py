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

import bisect
import functools
import itertools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

import regex

from soulscan.hermes.sparse_window import distinct_characters as _distinct
from soulscan.hermes.sparse_window import proven_normal

PIECE = 2048  # aim for pieces of about this size
LONG_MARK_RUN = 32  # from this many marks in a row, CPython's reordering gets slow
SHORT_TEXT = 2048  # at worst a few milliseconds of reordering: not worth looking for runs
MAX_PIECE = 8192  # never normalise a longer run in one call
CHUNK = 256  # a long text is normalised this much at a time (``nfkc_by_chunks``)


@dataclass(frozen=True)
class MappedText:
    """A text's NFKC form and, piece by piece, where each of its characters came from.

    Each piece of ``text`` from ``out_starts[k]`` either maps one to one onto the source
    from ``src_starts[k]`` (``one_to_one[k]``), or came as a whole from the source range
    ``src_starts[k]:src_ends[k]``. No pieces: ``text`` is the source itself (the common
    case: most files need no normalisation).
    """

    text: str
    source_length: int
    out_starts: tuple[int, ...] = ()
    src_starts: tuple[int, ...] = ()
    src_ends: tuple[int, ...] = ()
    one_to_one: tuple[bool, ...] = ()

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a half-open range of ``text`` back to the source text."""
        if start >= len(self.text):
            return self.source_length, self.source_length
        if not self.out_starts:
            return start, max(start, end)
        first = self._source_start(start)
        if end <= start:
            return first, first
        return first, self._source_end(end - 1)

    def _source_start(self, index: int) -> int:
        k = bisect.bisect_right(self.out_starts, index) - 1
        if self.one_to_one[k]:
            return self.src_starts[k] + index - self.out_starts[k]
        return self.src_starts[k]

    def _source_end(self, index: int) -> int:
        k = bisect.bisect_right(self.out_starts, index) - 1
        if self.one_to_one[k]:
            return self.src_starts[k] + index - self.out_starts[k] + 1
        return self.src_ends[k]


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


_ASCII = re.compile("[\x00-\x7f]")


def _marks_of(text: str, distinct: set[str] | None = None) -> str:
    """A ``re`` set body of the characters of ``text`` (whose distinct characters are
    ``distinct``, when known) with a non-zero combining class."""
    chars = _distinct(text) if distinct is None else distinct
    return "".join(f"\\U{ord(ch):08x}" for ch in sorted(chars) if unicodedata.combining(ch))


@functools.lru_cache(maxsize=64)
def _starter(marks: str) -> re.Pattern[str]:
    """A character of combining class 0, among text whose marks are ``marks``."""
    return re.compile(f"[^{marks}]" if marks else "(?s:.)")


@functools.lru_cache(maxsize=64)
def _mark_run(marks: str) -> re.Pattern[str]:
    """Two or more marks in a row, among text whose marks are ``marks``."""
    return re.compile(f"[{marks}]{{2,}}")


def _next_cut(text: str, lo: int, hi: int) -> int:
    found = _ASCII.search(text, lo, hi) or _starter(_marks_of(text[lo:hi])).search(text, lo, hi)
    return found.start() if found else hi


def nfkc(text: str) -> str:
    """Exactly ``unicodedata.normalize("NFKC", text)``, in linear time."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text
    if len(text) > 2 * CHUNK:
        return nfkc_by_chunks(text, CHUNK)
    return _nfkc_whole(text)


def nfkc_by_chunks(text: str, size: int) -> str:
    """``nfkc`` of pieces of about ``size`` characters, each cut before an ASCII character
    (so each normalises on its own, as for ``nfkc_mapped``); a piece already normal is kept.

    A long file that needs NFKC usually needs it in a few places (a ``…``, a no-break
    space): the quick check reads the rest at C speed, where normalising would decompose
    and recompose every character.
    """
    out = []
    start, length, size = 0, len(text), max(size, 1)  # every piece holds a character
    while start < length:
        cut = _ASCII.search(text, start + size) if start + size < length else None
        end = cut.start() if cut else length
        piece = text[start:end]
        normal = piece.isascii() or unicodedata.is_normalized("NFKC", piece)
        out.append(piece if normal else _nfkc_whole(piece))
        start = end
    return "".join(out)


def _nfkc_whole(text: str) -> str:
    if len(text) <= SHORT_TEXT or not _has_long_mark_run(text):
        return unicodedata.normalize("NFKC", text)
    distinct = _distinct(text)
    decomposed = _decomposed(text, distinct)
    marks = _marks_of(decomposed, distinct if decomposed is text else None)
    return unicodedata.normalize("NFC", _canonical_order(decomposed, marks))


def _decomposed(text: str, distinct: set[str]) -> str:
    """NFKD before canonical reordering: each character's own full decomposition."""
    table = {}
    for ch in distinct:
        decomposition = unicodedata.normalize("NFKD", ch)
        if decomposition != ch:
            table[ord(ch)] = decomposition
    return text.translate(table) if table else text


# Only decides which of two exact paths to take, so it may be approximate: marks
# by general category rather than by combining class, and regex's Unicode version.
# (``\p{M}`` is Mn, Mc and Me; one property test a character is four times quicker.)
_MARK_RUN = regex.compile(rf"\p{{M}}{{{LONG_MARK_RUN}}}")


def _has_long_mark_run(text: str) -> bool:
    return _MARK_RUN.search(text) is not None


def _canonical_order(text: str, marks: str) -> str:
    """Each run of marks (``marks``: those of the text) stably sorted by combining class,
    as the standard orders them."""
    return _mark_run(marks).sub(_sorted_run, text) if marks else text


def _sorted_run(found: re.Match[str]) -> str:
    run = found.group()
    present = _distinct(run)
    by_class: dict[int, list[str]] = {}
    for ch in present:
        by_class.setdefault(unicodedata.combining(ch), []).append(ch)
    if len(by_class) == 1:
        return run
    # A stable sort: for each class in order, the run with every other class removed.
    return "".join(_only(run, set(chars), present) for _, chars in sorted(by_class.items()))


def _only(run: str, keep: set[str], present: set[str]) -> str:
    if len(keep) == 1:
        (char,) = keep
        return char * run.count(char)
    others = present - keep
    if len(others) > 16:
        return run.translate({ord(ch): None for ch in others})
    for ch in others:  # a C-speed pass each: faster than translate for a few characters
        run = run.replace(ch, "")
    return run


def _groups(text: str) -> list[tuple[int, int]]:
    """Each starter with the non-starters after it (a leading run of non-starters alone)."""
    cuts = [0, *(found.start() for found in _starter(_marks_of(text)).finditer(text, 1)), len(text)]
    return [(a, b) for a, b in itertools.pairwise(cuts) if a < b]


def nfkc_mapped(text: str) -> MappedText:
    # (the runtime profile maps the window its scan has just proven normal)
    if text.isascii() or proven_normal(text) or unicodedata.is_normalized("NFKC", text):
        return MappedText(text, len(text))  # nothing changes: nothing to map
    out: list[str] = []
    out_starts: list[int] = []
    src_starts: list[int] = []
    src_ends: list[int] = []
    one_to_one: list[bool] = []
    length = 0

    def record(piece: str, start: int, end: int, whole: bool) -> None:
        nonlocal length
        out.append(piece)
        out_starts.append(length)
        src_starts.append(start)
        src_ends.append(end)
        one_to_one.append(not whole)
        length += len(piece)

    for a, b in _pieces(text):
        piece = text[a:b]
        if nfkc(piece) == piece:
            record(piece, a, b, whole=False)
            continue
        done = 0  # the piece is recorded up to here
        for start, end in _non_ascii_units(piece):
            if start > done:  # plain ASCII: unchanged, one character for one
                record(piece[done:start], a + done, a + start, whole=False)
            unit = piece[start:end]
            for ga, gb, group in _map_piece(unit, nfkc(unit)):
                if group:
                    record(group, a + start + ga, a + start + gb, whole=True)
            done = end
        if done < len(piece):
            record(piece[done:], a + done, a + len(piece), whole=False)
    normalised = "".join(out)
    if normalised == text:
        return MappedText(text, len(text))
    return MappedText(normalised, len(text), tuple(out_starts), tuple(src_starts),
                      tuple(src_ends), tuple(one_to_one))


_NON_ASCII_RUN = re.compile("[^\x00-\x7f]+")


def _non_ascii_units(piece: str) -> Iterator[tuple[int, int]]:
    """Each run of non-ASCII characters with the ASCII character before it (a letter that
    its marks may compose with). The piece normalises unit by unit: each unit ends before
    an ASCII character, and the ASCII characters between units are left as they are.
    Mapping a unit group by group gives the groups mapping the whole piece would (groups
    and merges only look as far as the next cut before an ASCII character)."""
    for run in _NON_ASCII_RUN.finditer(piece):
        start, end = run.span()
        yield (start - 1 if start else start), end


def _map_piece(piece: str, whole: str) -> list[tuple[int, int, str]]:
    bounds = _groups(piece)
    if len(bounds) == 1:
        return [(0, len(piece), whole)]
    groups = [(a, b, nfkc(piece[a:b])) for a, b in bounds]
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
