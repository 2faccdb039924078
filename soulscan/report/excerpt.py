"""The offending line of a finding, made safe to print, split around the matched span.

A reporter shows ``before``, ``match`` and ``after`` on one line and a caret run under
``match``. Each piece is redacted and escaped on its own, so the caret still lines up
after escapes have widened the text; a secret that only shows up when the pieces are
read together hides the whole line behind one redaction instead.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from soulscan.hardened.secrets import redact
from soulscan.hermes.sparse_window import distinct_characters
from soulscan.models import Location
from soulscan.report.escape import (
    ASCII_HIDDEN,
    ELLIPSIS,
    EscapedText,
    escape_bounded,
    escape_bounded_left,
    escape_reach,
    escape_replacing,
    escape_text,
    hidden_among,
    is_hidden,
    needs_no_escape,
    shorten,
    shorten_left,
    shorten_left_slices,
    shorten_slices,
)
from soulscan.report.repeats import repeated, repeating_from
from soulscan.report.secret_screen import LONGEST_ANCHOR, SecretScreen
from soulscan.textpos import LineIndex

BEFORE_LIMIT = 40
MATCH_LIMIT = 80
AFTER_LIMIT = 40
# Longer than any secret format the redactor knows but a PEM private key.
REDACTION_MARGIN = 4096


class Excerpt(NamedTuple):
    before: str
    match: str
    after: str


def excerpt(line: str, start: int, end: int, redact: Callable[[str], str] | None) -> Excerpt:
    """Pieces of ``line`` around ``line[start:end]`` (0-based; ``end`` clipped to the line).

    ``redact`` None says the line holds no secret: only what is shown is then escaped.
    """
    end = min(max(end, start), len(line))
    if redact is None:
        # ``escape_bounded(_left)`` of each piece, cut to one character past its limit. A
        # character is escaped or not on its own, so pieces whose join needs no escape need
        # none each: one C check for the three (most excerpts), not a call a piece.
        before = line[max(0, start - BEFORE_LIMIT - 1) : start]
        match = line[start : min(end, start + MATCH_LIMIT + 1)]
        after = line[end : end + AFTER_LIMIT + 1]
        if not needs_no_escape(before + match + after):
            before, match, after = escape_text(before), escape_text(match), escape_text(after)
        return _new(Excerpt, (shorten_left(before, BEFORE_LIMIT), shorten(match, MATCH_LIMIT),
                              shorten(after, AFTER_LIMIT)))
    # Only a bounded neighbourhood is ever shown; the margin lets redaction see a whole
    # secret that straddles the edge of what is shown.
    before = line[max(0, start - BEFORE_LIMIT - REDACTION_MARGIN) : start]
    match = line[start : min(end, start + MATCH_LIMIT + REDACTION_MARGIN)]
    after = line[end : end + AFTER_LIMIT + REDACTION_MARGIN]
    redacted = redact(before), redact(match), redact(after)
    if redact("".join(redacted)) != "".join(redacted):
        # A secret straddles the pieces: show the redacted text, caret at its start.
        return Excerpt("", escape_bounded(redact(before + match + after), MATCH_LIMIT), "")
    return Excerpt(
        escape_bounded_left(redacted[0], BEFORE_LIMIT),
        escape_bounded(redacted[1], MATCH_LIMIT),
        escape_bounded(redacted[2], AFTER_LIMIT),
    )


_new = tuple.__new__  # a named tuple built without its Python-level ``__new__`` (one a finding)
_LINE, _END_LINE = operator.itemgetter(0), operator.itemgetter(2)  # of a Location
_COLUMN, _END_COLUMN = operator.itemgetter(1), operator.itemgetter(3)  # of a Location

# A line longer than this is screened for secrets around each finding, not as a whole.
LONG_LINE = 2 * REDACTION_MARGIN
# Up to this many findings of a file are each shown from their own line.
FEW_FINDINGS = 8


class FileExcerpts:
    """The excerpts of many findings of one text, each exactly ``excerpt`` of its line.

    Work is bounded by what the excerpts show rather than by the size of their lines: a
    line is cut out of the text only to redact it; a long line is screened for secrets
    only around its findings; and the windows shown, merged where they touch, are each
    escaped once for every finding that shows part of them.
    """

    def __init__(self, text: str, index: LineIndex) -> None:
        self.text = text
        self.index = index
        self._screen = SecretScreen(text)
        self._lines: dict[int, _Line] = {}
        self._secret_free: dict[int, bool] = {}  # line number → redact leaves it alone
        self._free_lines: dict[str, bool] = {}  # a short line's text → the same
        self._known: dict[_ShownKey, Excerpt] = {}  # unredacted excerpts worked out
        # long line number → an offset before which (from the line's start) it holds no newline
        self._newline_free: dict[int, int] = {}

    def excerpts(self, locations: Sequence[Location]) -> list[Excerpt]:
        """The excerpt of each location: its line shown around ``[column, end_column)``,
        to the line's end when the location runs on past it."""
        if len(locations) > FEW_FINDINGS:
            return self._inside_one_line(locations) or self._shared(locations)
        # A finding or two (most flagged files): each is ``excerpt`` of its line, cut out
        # of the text when it is short; sharing escaped windows would cost more than it saves.
        shown: list[Excerpt] = []
        lines = self._lines
        for location in locations:
            number = location.line
            line = lines.get(number) or self._line(number)
            if not line.short:
                shown.extend(self._shared((location,)))
                continue
            line_text, free = self._short_line(number, line)
            start = location.column - 1
            # (a location that runs on past its line is shown to the line's end)
            end = location.end_column - 1 if location.end_line == number else len(line_text)
            shown.append(excerpt(line_text, start, end, None if free else redact))
        return shown

    def _shared(self, locations: Sequence[Location]) -> list[Excerpt]:
        """``excerpts`` of many locations: the neighbourhoods shown are escaped once."""
        # Each unredacted excerpt is known by the text it shows and where its pieces lie
        # in it, all it depends on: a repeating text (a file of emoji sequences lists a
        # thousand joiners) shows a few neighbourhoods many times, each worked out once.
        shown: list[_ShownKey | None] = []  # None: redacted
        new: dict[_ShownKey, _Cuts] = {}
        known = self._known
        redacted: dict[int, Excerpt] = {}
        text, lines, secret_free = self.text, self._lines, self._secret_free
        index, newline_free = self.index, self._newline_free
        text_length = len(text)
        # A stretch of the text where no secret anchor starts: a long line's neighbourhood
        # inside it needs no call to the screen (thousands of findings on one line).
        clear_from, clear_to = self._screen.known_clear()
        for position, location in enumerate(locations):
            number, column, end_line, end_column = location
            line = lines.get(number) or self._line(number)
            line_start, end_or_limit, short = line
            start = line_start + column - 1
            if end_line == number:
                end = line_start + end_column - 1
            elif short:  # a newline lies inside the span: the line ends there
                end = end_or_limit
            else:
                end = index.line_end(number, index.line_start(end_line) + end_column - 1)
            if short:  # (a short line is redacted whole: its answer is the line's)
                shows_no_secret = secret_free.get(number)
                if shows_no_secret is None:
                    shows_no_secret = self._short_line(number, line)[1]
            elif (end <= start + MATCH_LIMIT + REDACTION_MARGIN
                  and clear_from <= max(
                      0, max(line_start, start - BEFORE_LIMIT - REDACTION_MARGIN) - LONGEST_ANCHOR + 1)
                  and min(end + AFTER_LIMIT + REDACTION_MARGIN, text_length) <= clear_to):
                shows_no_secret = True  # what ``_shows_no_secret`` answers, without a call
            else:
                shows_no_secret = None
            if shows_no_secret is None:
                shows_no_secret = self._shows_no_secret(number, line, start, end)
                clear_from, clear_to = self._screen.known_clear()
            if shows_no_secret:
                after_end = end + AFTER_LIMIT + 1
                if after_end > end_or_limit:
                    if short:
                        after_end = end_or_limit
                    else:  # ``index.line_end``, read on from where the line is known to go
                        after_end = min(after_end, text_length)
                        free = newline_free.get(number, end_or_limit)
                        if after_end > free:
                            newline = text.find("\n", free, after_end)
                            if newline == -1:
                                newline_free[number] = after_end
                            else:
                                after_end = newline_free[number] = newline
                before = max(line_start, start - BEFORE_LIMIT - 1)
                match_end = min(end, start + MATCH_LIMIT + 1)
                key = (text[before : max(match_end, after_end)],
                       start - before, end - before, after_end - before)
                shown.append(key)
                if key not in known:
                    new[key] = _new(_Cuts, (before, start, match_end, end, after_end))
            else:
                shown.append(None)
                line_text = index.line_text(number)
                redacted[position] = excerpt(line_text, start - line_start, end - line_start, redact)
        if new:
            windows = _EscapedWindows(text, list(new.values()))
            for key, cuts in new.items():
                known[key] = windows.excerpt(cuts)
        return [redacted[position] if key is None else known[key]
                for position, key in enumerate(shown)]

    def _inside_one_line(self, locations: Sequence[Location]) -> list[Excerpt] | None:
        """``_shared`` of locations that all lie well inside one long line, far enough from
        its start and end that each excerpt shows its full before and after pieces, with
        short spans and no secret anchor anywhere near them (a file of hidden characters
        lists a thousand on one line); None when they do not. Locations that all lie on
        one short line are ``_on_one_short_line``'s. Each piece's cuts are then
        the same offsets from the span, so an excerpt is known by the text it shows, cut
        out in one C-level pass over all of them."""
        number = locations[0][0]
        # (every line and end line is the first line: each location ends on or after its line)
        if not min(map(_LINE, locations)) == max(map(_END_LINE, locations)) == number:
            return None
        line = self._lines.get(number) or self._line(number)
        if line.short:
            return self._on_one_short_line(number, line, locations)
        text, line_start = self.text, line.start
        starts = [line_start + location[1] - 1 for location in locations]
        ends = [line_start + location[3] - 1 for location in locations]
        widths = list(map(operator.sub, ends, starts))
        low, high = min(starts), max(ends)
        reach = high + AFTER_LIMIT + 1  # where the last after piece ends
        if (max(widths) > MATCH_LIMIT or reach > len(text)
                or text.find("\n", line_start, reach) != -1):
            return None
        # Every finding's neighbourhood (``_shows_no_secret``) lies inside this one.
        if not self._screen.clear(max(line_start, low - BEFORE_LIMIT - REDACTION_MARGIN),
                                  high + AFTER_LIMIT + REDACTION_MARGIN):
            return None
        # A repeating text with its findings at repeating places (a file of emoji
        # sequences): only the excerpts up to the first period of places that all show
        # the same text as the period before are worked out, the rest repeat them.
        repeats = repeating_from(text, line_start, BEFORE_LIMIT + 1, starts, ends, reach)
        if repeats is not None:
            period, first = repeats
            del starts[first:], ends[first:]
        elif widths.count(1) == len(widths):
            # (a file of one hidden character: a thousand of its places, none repeating)
            alike = _one_character_places(text, line_start, starts, reach)
            if alike is not None:
                return alike
        # (a before piece is cut at the line's start)
        befores = list(map(max, itertools.repeat(line_start),
                           map((-BEFORE_LIMIT - 1).__add__, starts)))
        after_ends = list(map((AFTER_LIMIT + 1).__add__, ends))
        shown_texts = map(text.__getitem__, map(slice, befores, after_ends))
        keys: list[_ShownKey] = list(zip(
            shown_texts, map(operator.sub, starts, befores), map(operator.sub, ends, befores),
            map(operator.sub, after_ends, befores)))
        known = self._known
        # (each distinct key with one place it is shown at, found in C: any place of a key
        # shows the same excerpt)
        places = dict(zip(keys, range(len(keys))))
        new = {key: _new(_Cuts, (befores[at], starts[at], ends[at], ends[at], after_ends[at]))
               for key, at in places.items() if key not in known}
        if new:
            windows = _EscapedWindows(text, list(new.values()))
            for key, cuts in new.items():
                known[key] = windows.excerpt(cuts)
        shown = list(map(known.__getitem__, keys))
        if repeats is not None:
            shown.extend(repeated(shown[first - period :], len(locations) - first))
        return shown

    def _on_one_short_line(
        self, number: int, line: _Line, locations: Sequence[Location]
    ) -> list[Excerpt] | None:
        """``_shared`` of locations that all lie on one short line holding no secret (a
        line of hidden-bit encodings lists a finding on nearly every character); None when
        the line holds one. The line is escaped once and every piece sliced from it, in
        C-level passes: escaping goes character by character, so a slice of the escaped
        line is the escape of the slice of the line that ``_shared`` shows."""
        line_text, free = self._short_line(number, line)
        if not free:
            return None
        repeat = itertools.repeat
        starts = list(map((-1).__add__, map(_COLUMN, locations)))  # (in the line)
        ends = list(map((-1).__add__, map(_END_COLUMN, locations)))
        befores = map(max, repeat(0), map((-BEFORE_LIMIT - 1).__add__, starts))
        match_ends = map(min, ends, map((MATCH_LIMIT + 1).__add__, starts))
        after_ends = map(min, repeat(len(line_text)), map((AFTER_LIMIT + 1).__add__, ends))
        escaped = EscapedText.of(line_text)
        shown, offsets = escaped.escaped, escaped.offsets
        if offsets is not None:  # (None: nothing escaped, the offsets are the characters')
            at = offsets.__getitem__
            befores, match_ends, after_ends = map(at, befores), map(at, match_ends), map(at, after_ends)
            starts, ends = list(map(at, starts)), list(map(at, ends))
        return list(map(_new, itertools.repeat(Excerpt), zip(
            shorten_left_slices(shown, befores, starts, BEFORE_LIMIT),
            shorten_slices(shown, starts, match_ends, MATCH_LIMIT),
            shorten_slices(shown, ends, after_ends, AFTER_LIMIT),
        )))

    def _short_line(self, number: int, line: _Line) -> tuple[str, bool]:
        """A short line's text, and whether it holds no secret (``redact`` leaves it as it
        is: remembered, as ``_shows_no_secret`` remembers it)."""
        line_text = self.text[line.start : line.end_or_limit]
        free = self._secret_free.get(number)
        if free is None:
            # (a line repeated elsewhere in the file is redacted once)
            free = self._free_lines.get(line_text)
            if free is None:
                free = self._free_lines[line_text] = redact(line_text) == line_text
            self._secret_free[number] = free
        return line_text, free

    def _line(self, number: int) -> _Line:
        line = self._lines.get(number)
        if line is None:
            text = self.text
            start = self.index.line_start(number)
            limit = start + LONG_LINE + 1
            # (``index.line_end``, from the start just found)
            end = text.find("\n", start, limit)
            if end == -1:
                end = min(limit, len(text))
            short = end < limit or end == len(text)
            line = self._lines[number] = _new(_Line, (start, end, short))
        return line

    def _shows_no_secret(self, number: int, line: _Line, start: int, end: int) -> bool:
        """Whether the unredacted excerpt is the excerpt: the line holds no secret, or
        nothing that ``excerpt`` would redact lies near the span."""
        if not line.short and end <= start + MATCH_LIMIT + REDACTION_MARGIN:
            # ``excerpt`` redacts contiguous pieces of this neighbourhood (cut at the line's
            # end, which only narrows it) and their join; with no anchor in it none of
            # them changes, and then it shows what it shows of a secret-free line.
            low = max(line.start, start - BEFORE_LIMIT - REDACTION_MARGIN)
            if self._screen.clear(low, end + AFTER_LIMIT + REDACTION_MARGIN):
                return True
        free = self._secret_free.get(number)
        if free is None:
            text = self.index.line_text(number)
            free = self._secret_free[number] = redact(text) == text
        return free


def _one_character_places(
    text: str, line_start: int, starts: list[int], reach: int
) -> list[Excerpt] | None:
    """``one_character_pieces`` as excerpts."""
    pieces = one_character_pieces(text, line_start, starts, reach)
    if pieces is None:
        return None
    befores, match, afters = pieces
    return list(map(_new, itertools.repeat(Excerpt), zip(befores, itertools.repeat(match), afters)))


class KnownCharacters(NamedTuple):
    """The non-ASCII characters of ``text[start:end]`` (a scan window's, ``last_window``)."""

    characters: AbstractSet[str]
    start: int
    end: int


class OneCharacterPieces(NamedTuple):
    """The excerpts of many one-character spans, piece by piece: each one's before and
    after pieces, and the match piece they all show."""

    befores: list[str]
    match: str
    afters: list[str]


def one_character_pieces(
    text: str, line_start: int, starts: list[int], reach: int, *, places: bool = False,
    known: KnownCharacters | None = None,
) -> OneCharacterPieces | None:
    """``_inside_one_line``'s excerpts of one-character spans, in text order, that are the
    first places of one hidden character in the stretch they show, ``text[low:reach]``,
    when that stretch is dense with them and holds no backslash, tab or carriage return
    (a file of emoji sequences: a thousand joiners among its flags and keycaps); None
    otherwise.

    The stretch is escaped once, in C, and each span is found in it by the character's
    escape, the next one on. Each match piece is the character's escape. Each after piece
    (41 characters escape to more than 40) and each before piece not cut at the line's
    start is shortened at 40 characters from the span, moved out of an escape it falls
    inside: with no backslash but the escapes' own (each ``\\u{...}`` or ``\\x{..}``, none
    ``\\t``), how far each position's escape goes on and back is worked out for the whole
    stretch at once (``escape_reach``).

    ``places``: the caller knows ``starts`` are places of one character in text order
    (``hidden_places``), which is then not checked again (whether they are the first is).
    ``known``: the characters of a stretch of ``text`` holding the one shown, if known
    (then only its ASCII ones are looked for)."""
    count = len(starts)
    first, last = starts[0], starts[-1]
    char = text[first]
    low = max(line_start, first - BEFORE_LIMIT - 1)
    if (reach - low > count * (BEFORE_LIMIT + AFTER_LIMIT + 2)  # sparse: windows cost less
            or not is_hidden(char) or text.count(char, low, last + 1) != count):
        return None
    if not places and not (all(map(operator.lt, starts, starts[1:]))
                           and all(map(char.__eq__, map(text.__getitem__, starts)))):
        return None
    stretch = text[low:reach]
    if ("\\" in stretch or "\t" in stretch or "\r" in stretch
            or not last + 2 + AFTER_LIMIT <= reach <= len(text)):  # (each after piece whole)
        return None
    hidden = _hidden_known(stretch, low, reach, known)
    if hidden is None:
        # (its characters told by a sample of its start: a set of it makes an object a character)
        hidden = hidden_among(distinct_characters(stretch, utf8=stretch.encode("utf-8", "surrogatepass")))
    escaped = escape_replacing(stretch, hidden, _FEW_HIDDEN)
    if escaped is None:
        return None
    shown = escape_text(char)
    width = len(shown)
    # (how far on and back each position's escape goes: both 0 outside escapes)
    to_end, from_start = escape_reach(escaped, hidden)
    find = escaped.find
    befores: list[str] = []
    afters: list[str] = []
    add_before, add_after = befores.append, afters.append
    match_end = 0
    for _ in starts:  # (one turn a place, a thousand in a file)
        # (the place's escape: the first after the last place's; the stretch holds no
        # other backslash, and no escape starts another)
        match_start = find(shown, match_end)
        # The before piece ends 40 escaped characters back, moved on past an escape it
        # falls inside; the after piece 40 on, moved back to the start of one.
        cut = match_start - BEFORE_LIMIT
        cut += to_end[cut]
        match_end = match_start + width
        after_cut = match_end + AFTER_LIMIT
        after_cut -= from_start[after_cut]
        add_before(ELLIPSIS + escaped[cut:match_start])
        add_after(escaped[match_end:after_cut] + ELLIPSIS)
    # The first few before pieces are cut at the line's start: as ``excerpt`` makes them
    # (in place of the loop's, cut before it)
    for position in range(bisect.bisect_left(starts, line_start + BEFORE_LIMIT + 1)):
        start = starts[position]
        befores[position] = escape_bounded_left(
            text[max(line_start, start - BEFORE_LIMIT - 1) : start], BEFORE_LIMIT)
    return _new(OneCharacterPieces, (befores, shown, afters))


def _hidden_known(stretch: str, low: int, reach: int, known: KnownCharacters | None) -> list[str] | None:
    """The hidden characters ``stretch`` (``text[low:reach]``) may hold, when ``known``
    tells its non-ASCII ones (and they are few) and it holds no ASCII one; None otherwise."""
    if known is None or not known.start <= low <= reach <= known.end:
        return None
    hidden = hidden_among(known.characters)
    if len(hidden) > _FEW_HIDDEN or ASCII_HIDDEN.search(stretch) is not None:
        return None
    return hidden


class OneLinePieces(NamedTuple):
    """``one_character_pieces`` of places on one line, with the line's number and start."""

    line: int
    line_start: int
    pieces: OneCharacterPieces


def one_line_character_pieces(
    text: str, starts: list[int], known: KnownCharacters | None = None
) -> OneLinePieces | None:
    """``FileExcerpts.excerpts`` of more than ``FEW_FINDINGS`` one-character spans at
    ``starts`` (places of one character in ``text``, in text order) as pieces, with the
    line they lie on, found without a location a span: when they lie on one long line,
    each after piece inside it, with no secret anchor near any of them, and
    ``one_character_pieces`` shows them (or the places up to the first whose excerpts
    repeat, ``repeating_from``); None otherwise. ``known``: as for
    ``one_character_pieces``."""
    if len(starts) <= FEW_FINDINGS:
        return None
    first, last = starts[0], starts[-1]
    reach = last + 1 + AFTER_LIMIT + 1  # where the last after piece ends
    if reach > len(text) or text.find("\n", first, reach) != -1:
        return None
    line_start = text.rfind("\n", 0, first) + 1
    # (a long line, as ``FileExcerpts._line`` tells it: no newline up to its limit, which
    # the text runs past)
    limit = line_start + LONG_LINE + 1
    if limit >= len(text) or text.find("\n", reach, limit) != -1:
        return None
    screen = SecretScreen(text)
    if not screen.clear(max(line_start, first - BEFORE_LIMIT - REDACTION_MARGIN),
                        last + 1 + AFTER_LIMIT + REDACTION_MARGIN):
        return None
    # (places that repeat along a text that repeats: a period's pieces repeated, as
    # ``_inside_one_line`` repeats its excerpts)
    repeats = repeating_from(text, line_start, BEFORE_LIMIT + 1, starts, None, reach)
    head = starts if repeats is None else starts[: repeats[1]]
    pieces = one_character_pieces(
        text, line_start, head, head[-1] + 2 + AFTER_LIMIT, places=True, known=known)
    if pieces is None:
        return None
    if repeats is not None:
        period, repeated_from = repeats
        more = len(starts) - repeated_from
        befores, match, afters = pieces
        pieces = _new(OneCharacterPieces, (befores + repeated(befores[repeated_from - period :], more),
                                           match, afters + repeated(afters[repeated_from - period :], more)))
    return _new(OneLinePieces, (text.count("\n", 0, first) + 1, line_start, pieces))


# The most distinct hidden characters a stretch is escaped with one pass each.
_FEW_HIDDEN = 32


class _Line(NamedTuple):
    start: int
    # Where the line ends when it is short; else a point before which it holds no newline.
    end_or_limit: int
    short: bool


class _Cuts(NamedTuple):
    """Where an unredacted excerpt's pieces lie in the text: before is
    ``[before, start)``, the match ``[start, match_end)``, after ``[end, after_end)``."""

    before: int
    start: int
    match_end: int
    end: int
    after_end: int


# The text an unredacted excerpt shows (from its before piece to the end of its match or
# after piece) and where, in that text, its match starts and ends and its after piece ends.
_ShownKey = tuple[str, int, int, int]


class _EscapedWindows:
    """The windows excerpts show, merged where they overlap or touch, each escaped once."""

    def __init__(self, text: str, shown: Sequence[_Cuts]) -> None:
        windows = sorted(
            window for cuts in shown
            for window in ((cuts.before, cuts.match_end), (cuts.end, cuts.after_end))
        )
        self._starts: list[int] = []
        self._ends: list[int] = []
        for start, end in windows:
            if self._ends and start <= self._ends[-1]:
                self._ends[-1] = max(self._ends[-1], end)
            else:
                self._starts.append(start)
                self._ends.append(end)
        self._escaped = [EscapedText.of(text[start:end])
                         for start, end in zip(self._starts, self._ends, strict=True)]

    def excerpt(self, cuts: _Cuts) -> Excerpt:
        """``excerpt(line, ..., None)``: each piece escaped, then shortened.

        The pieces are neighbouring slices of one escaped window (the after piece may lie
        in the next); one call a finding, the slicing written out."""
        before_at, start, match_end, end, after_end = cuts
        starts = self._starts
        which = bisect.bisect_right(starts, before_at) - 1
        offset, escaped = starts[which], self._escaped[which]
        shown, offsets = escaped.escaped, escaped.offsets
        # (with no offsets nothing was escaped: the offsets are the characters' own)
        low, middle, high = before_at - offset, start - offset, match_end - offset
        if offsets is not None:
            low, middle, high = offsets[low], offsets[middle], offsets[high]
        before, match = shown[low:middle], shown[middle:high]
        if end >= after_end:
            after = ""
        else:
            if end >= self._ends[which]:  # not merged with the window before the match
                which = bisect.bisect_right(starts, end) - 1
                offset, escaped = starts[which], self._escaped[which]
                shown, offsets = escaped.escaped, escaped.offsets
            low, high = end - offset, after_end - offset
            after = shown[low:high] if offsets is None else shown[offsets[low]:offsets[high]]
        return _new(Excerpt, (
            before if len(before) <= BEFORE_LIMIT else shorten_left(before, BEFORE_LIMIT),
            match if len(match) <= MATCH_LIMIT else shorten(match, MATCH_LIMIT),
            after if len(after) <= AFTER_LIMIT else shorten(after, AFTER_LIMIT),
        ))
