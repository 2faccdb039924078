"""Make attacker-controlled text safe to show: every hidden or dangerous character visible.

Everything a scanned file contributes to a report (snippets, lines, decoded payloads and
its path) goes through ``escape_text`` before any reporter sees it, and every format uses
these same rules, so a reader of the text, JSON, SARIF or GitHub output sees the same
thing. A character is escaped when it is

* a control character (C0, DEL, C1), including tab and newline;
* a format character (bidi embeddings, overrides and isolates, zero-width characters,
  invisible operators, the BOM, Unicode tag characters, interlinear annotation…);
* a line or paragraph separator, or a space other than U+0020 (NBSP, U+3000, …);
* default-ignorable (variation selectors, the combining grapheme joiner, Hangul fillers,
  Khmer inherent vowels, …) or the blank Braille pattern U+2800;
* private-use, a surrogate or unassigned.

Escapes are ``\\t``, ``\\n`` and ``\\r`` for the three common controls, ``\\x{FF}`` for an
undecodable byte of a file name (Python hands those over as lone surrogates U+DC80-DCFF),
and ``\\u{XXXX}`` (at least four upper-case hex digits, the notation of the runtime's
``invisible_unicode_U+XXXX`` ids) for everything else. A backslash is left alone: text that
merely looks like an escape can only over-report a hidden character, never hide one.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import regex

_HIDDEN_CLASS = (
    r"[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}"
    r"[\p{Zs}--\x20]\u2800]"
)
_HIDDEN = regex.compile(_HIDDEN_CLASS, regex.V1)
# Hidden characters come in runs (a line of zero-width spaces, tag-character smuggling):
# one callback a run, not one a character.
_HIDDEN_RUN = regex.compile(_HIDDEN_CLASS + "+", regex.V1)
# What Python's ``str.isprintable`` accepts but is hidden here (default-ignorable letters
# and marks, the blank Braille pattern): printable text without these has nothing to
# escape, which ``isprintable`` tells in C instead of a property lookup a character.
# The tests check the list against every code point. It holds for the Unicode versions
# below, provided ``regex`` knows each one's newest letter (else its tables are older than
# Python's and would hide characters Python prints): otherwise the shortcut stays off.
_PRINTABLE_BUT_HIDDEN = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u180f\u2800\u3164\ufe00-\ufe0f\uffa0"
    "\U000e0100-\U000e01ef]"
)
_NEWEST_LETTER = {"14.0.0": "\U0001e290", "15.0.0": "\U0001e030", "15.1.0": "\U0002ebf0"}
_PRINTABLE_SHORTCUT = (
    unicodedata.unidata_version in _NEWEST_LETTER
    and _HIDDEN.match(_NEWEST_LETTER[unicodedata.unidata_version]) is None
)
_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_SURROGATE_ESCAPED_BYTES = range(0xDC80, 0xDD00)
ELLIPSIS = "…"
# Escapes of the hidden characters met so far; bounded, because an attacker's file can
# hold hundreds of thousands of distinct unassigned or private-use code points.
_CACHE_LIMIT = 4096


def escape_char(char: str) -> str:
    """The visible form of one hidden character."""
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    code_point = ord(char)
    if code_point in _SURROGATE_ESCAPED_BYTES:
        return f"\\x{{{code_point - 0xDC00:02X}}}"
    return f"\\u{{{code_point:04X}}}"


class _EscapeCache(dict[str, str]):
    def __missing__(self, char: str) -> str:
        escaped = escape_char(char)
        if len(self) < _CACHE_LIMIT:
            self[char] = escaped
        return escaped


_ESCAPES = _EscapeCache()


def _escape_run(match: regex.Match[str]) -> str:
    run = match.group()
    if run.count(run[0]) == len(run):  # one character repeated (a line of zero-width spaces)
        return _ESCAPES[run[0]] * len(run)
    return "".join(map(_ESCAPES.__getitem__, run))


def needs_no_escape(text: str) -> bool:
    """Whether ``text`` holds no hidden character, told in C for most printable text."""
    return text.isprintable() and (  # in ASCII only C0 controls and DEL are hidden
        text.isascii() or _PRINTABLE_SHORTCUT and _PRINTABLE_BUT_HIDDEN.search(text) is None
    )


def escape_text(text: str) -> str:
    """``text`` with every hidden or dangerous character replaced by a visible escape."""
    if needs_no_escape(text):
        return text
    escaped: str = _HIDDEN_RUN.sub(_escape_run, text)
    return escaped


@dataclass(frozen=True)
class EscapedText:
    """``escape_text`` of one text and where each of its characters went.

    Escaping works one character at a time, so the escape of any slice of the text is
    the matching slice of the escape: the many findings near one another in a file then
    share one escape of the stretch they are shown in instead of escaping windows of it.
    """

    escaped: str
    # Where character i starts in ``escaped``, one more at the end; None when nothing
    # was escaped (the offsets are then the characters' own).
    offsets: tuple[int, ...] | None

    @classmethod
    def of(cls, text: str) -> EscapedText:
        # (the hidden ones among its distinct characters, one regex pass over those: a
        # stretch of emoji sequences holds a few dozen in thousands of characters)
        hidden = set() if needs_no_escape(text) else set(_HIDDEN.findall("".join(set(text))))
        if not hidden:
            return cls(text, None)
        escapes = {char: _ESCAPES[char] for char in hidden}
        # One escape or the character itself for each character, mapped in C: a stretch
        # dense with hidden characters costs no Python call per character or run.
        pieces = list(map(escapes.get, text, text))
        offsets = (0, *itertools.accumulate(map(len, pieces)))
        return cls("".join(pieces), offsets)


def escape_replacing(text: str, characters: Iterable[str], most: int) -> str | None:
    """``escape_text(text)``, ``characters`` being those of ``text``, by one C-level
    replacement a distinct hidden character, or None when ``text`` holds more than ``most``
    of them. A stretch dense with emoji sequences holds a few distinct hidden characters in
    thousands of runs: a callback a run (``escape_text``) or a lookup a character
    (``EscapedText``) costs more than a pass a character. An escape is printable ASCII, so
    no replacement meets another's escape."""
    hidden = _HIDDEN.findall("".join(characters))
    if len(hidden) > most:
        return None
    for char in hidden:
        text = text.replace(char, _ESCAPES[char])
    return text


# The ASCII characters ``escape_text`` escapes: C0 controls and DEL (tested).
ASCII_HIDDEN = re.compile("[\x00-\x1f\x7f]")


def hidden_among(characters: Iterable[str]) -> list[str]:
    """Those of ``characters`` that ``escape_text`` escapes."""
    return _HIDDEN.findall("".join(characters))


def escape_reach(escaped: str, hidden: Iterable[str]) -> tuple[bytes, bytes]:
    """For each position of ``escaped`` (``escape_text`` of a text whose hidden characters
    are among ``hidden``, and that holds no backslash): how far on the escape it falls
    inside ends, and how far back that escape starts; 0 and 0 at an escape's start and
    outside escapes. One byte a position: a thousand cuts are each moved out of an escape by
    an index and an addition.

    Made by C-level passes: the escaped text read as ASCII (each other character one
    ``?``), its characters read as their shapes (an escape of ``\\u{200D}`` reads
    ``\\u{0000}``, as each escape of its width), each escape's shape replaced by a code a
    position (its width and the position's place in it, 0x80 or more), and the codes read
    through two tables. Only escapes hold a backslash, and a shape is told by where its
    ``}`` lies: one width's shape never matches at an escape of another."""
    codes = escaped.encode("ascii", "replace").translate(_SHAPES)
    for shape in {_ESCAPES[char].encode("ascii").translate(_SHAPES) for char in hidden}:
        codes = codes.replace(shape, _PLACE_CODES[len(shape)])
    return codes.translate(_TO_END), codes.translate(_FROM_START)


# An escape's characters as their shapes: the backslash, ``u`` and ``x``, ``{``, each hex
# digit as ``0``, ``}``; every other byte 0 (``t``, ``n`` and ``r`` of the short escapes too)
_SHAPES = bytes(
    byte if chr(byte) in "\\u{}" else ord("u") if chr(byte) == "x"
    else ord("0") if chr(byte) in "0123456789ABCDEF" else 0
    for byte in range(256)
)


def _place_code(width: int, place: int) -> int:
    # (escapes are 2 to 10 characters wide, ``\\u{10FFFF}``: codes 0x8B to 0xE3)
    return 0x80 + 10 * (width - 1) + place


# An escape of each width as its codes: its backslash (read as 0), then each place's code.
_PLACE_CODES = {width: b"\\" + bytes(_place_code(width, place) for place in range(1, width))
                for width in range(2, 11)}


def _reach_tables() -> tuple[bytes, bytes]:
    """``bytes.translate`` tables: a place's code to how far its escape goes on, and to how
    far back it started; every other byte to 0."""
    to_end, from_start = bytearray(256), bytearray(256)
    for width in range(2, 11):
        for place in range(1, width):
            to_end[_place_code(width, place)] = width - place
            from_start[_place_code(width, place)] = place
    return bytes(to_end), bytes(from_start)


_TO_END, _FROM_START = _reach_tables()


def is_hidden(char: str) -> bool:
    """Whether ``escape_text`` would escape this one character."""
    return _HIDDEN.fullmatch(char) is not None


def escape_bounded(text: str, limit: int) -> str:
    """``shorten(escape_text(text), limit)`` without escaping more than the kept part.

    Escaping never shortens text, so only the first ``limit + 1`` characters can show.
    """
    return shorten(escape_text(text[: limit + 1]), limit)


def escape_bounded_left(text: str, limit: int) -> str:
    """Like ``escape_bounded`` but keeps the end of ``text``, marked with a leading ``…``."""
    return shorten_left(escape_text(text[-(limit + 1) :]), limit) if limit else ""


def shorten_left(escaped: str, limit: int) -> str:
    """Like ``shorten`` but keeps the end of already-escaped text, after a leading ``…``."""
    if len(escaped) <= limit:
        return escaped
    cut = len(escaped) - limit
    # (nor with a "}" just before the cut, which closes any opener before it: a run of
    # hidden characters, escaped alike, is most often cut at the end of an escape)
    if "\\" not in escaped or escaped[cut - 1] == "}":  # no escape sequence to keep whole
        return ELLIPSIS + escaped[cut:]
    opener = max(escaped.rfind("\\u{", 0, cut + 2), escaped.rfind("\\x{", 0, cut + 2))
    if opener != -1 and opener < cut and escaped.find("}", opener) >= cut:
        cut = escaped.find("}", opener) + 1
    elif escaped[cut - 1 : cut] == "\\" and escaped[cut : cut + 1] in ("t", "n", "r"):
        cut += 1
    return ELLIPSIS + escaped[cut:]


def shorten(escaped: str, limit: int) -> str:
    """Cut already-escaped text to at most ``limit`` characters plus ``…``.

    Never cuts inside an escape sequence, so a shortened snippet cannot end in a broken
    ``\\u{20`` that hides what the character was.
    """
    if len(escaped) <= limit:
        return escaped
    if "\\" not in escaped or escaped[limit - 1] == "}":  # no escape sequence to keep whole
        return escaped[:limit] + ELLIPSIS  # (as in ``shorten_left``)
    cut = limit
    opener = max(escaped.rfind("\\u{", 0, cut + 2), escaped.rfind("\\x{", 0, cut + 2))
    if opener != -1 and opener < cut and escaped.find("}", opener) >= cut:
        cut = opener
    elif escaped[cut - 1 : cut] == "\\" and escaped[cut : cut + 1] in ("t", "n", "r"):
        cut -= 1
    return escaped[:cut] + ELLIPSIS


def shorten_slices(text: str, lows: Iterable[int], highs: Iterable[int], limit: int) -> list[str]:
    """``shorten(text[low:high], limit)`` of each slice (``limit`` > 0), read in place: a
    slice to cut with a ``}`` just before the cut (``shorten``'s own shortcut) takes no call
    and is not copied whole first, as the hundreds of after pieces of a line of hidden bits
    are."""
    return [text[low:high] if high - low <= limit
            else text[low : low + limit] + ELLIPSIS if text[low + limit - 1] == "}"
            else shorten(text[low:high], limit)
            for low, high in zip(lows, highs)]


def shorten_left_slices(text: str, lows: Iterable[int], highs: Iterable[int], limit: int) -> list[str]:
    """``shorten_left(text[low:high], limit)`` of each slice, read in place as
    ``shorten_slices`` reads them."""
    return [text[low:high] if high - low <= limit
            else ELLIPSIS + text[high - limit : high] if text[high - limit - 1] == "}"
            else shorten_left(text[low:high], limit)
            for low, high in zip(lows, highs)]
