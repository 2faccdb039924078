"""Find encoded blobs (base64/32, hex, URL, escapes, Morse, NATO, braille, UU, rot13), decode, keep readable ones.

A decoded blob is only kept when it reads as text (printable, mostly letters and spaces), so
image data, hashes and UUIDs never become findings. What is kept is rescanned by every rule.
"""

from __future__ import annotations

import codecs
import operator
import re
import string
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import unquote

import regex

from soulscan.engine.anchors import fold, folds_to_ascii
from soulscan.hardened.blob_runs import (
    BASE32_DECODER,
    BASE64_DECODER,
    HEX_DECODER,
    ascii_bytes,
    blobs_in_runs,
    candidate_runs,
)
from soulscan.hardened.decode_screens import Screened, ScreensWhenDue
from soulscan.hardened.decoded_text import Decoder
from soulscan.hardened.decoders import (
    decode_braille,
    decode_escapes,
    decode_morse,
    decode_nato,
    decode_uu,
)

MAX_BLOBS = 64
MAX_BLOB_CHARS = 65_536


@dataclass(frozen=True)
class DecodedBlob:
    """An encoded blob found in the text, with its decoding."""
    encoding: str
    start: int
    end: int
    text: str
    readable: bool = True  # natural text; False for printable code, kept only for rescanning

    @property
    def label(self) -> str:
        """`code` when it runs something, else `base64`, ... for readable text, else `printable`."""
        if _RUNS_CODE.search(self.text):
            return "code"
        return self.encoding if self.readable else "printable"


_RUNS_CODE = regex.compile(
    r"os\.system|subprocess|\bexec\(|\beval\(|\bcurl\s|\bwget\s|/bin/(?:ba)?sh|bash -c|powershell|"
    r"child_process|import socket|/dev/tcp/|Invoke-Expression|\|\s{0,4}(?:ba)?sh\b"
)

_PERCENT = regex.compile(
    r"(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~+-]){0,64}(?:%[0-9A-Fa-f]{2}[^\s%]{0,16}){3,8192}"
)
_ESCAPES = regex.compile(r"(?:\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}){4,16384}")
_MORSE = regex.compile(r"(?<![\w.-])(?:[.-]{1,7}(?: / | {1,3}|/)){3,4096}[.-]{1,7}(?![\w.-])")
_NATO_WORDS = [
    "alfa",
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "x-ray",
    "yankee",
    "zulu",
]
_NATO = regex.compile(
    r"\b(?:(?:"
    + "|".join(_NATO_WORDS)
    + r")\b[ ,]{1,3}){4,4096}(?:"
    + "|".join(_NATO_WORDS)
    + r")\b",
    regex.IGNORECASE,
)
_BRAILLE = regex.compile(r"[\u2800-\u283F]*\u2820[\u2801-\u283F][\u2800-\u283F ]{1,4096}")
# A line of uuencoded data; its first character gives the length, which `decode_uu` accepts
# only between 3 and 45: "#" to "M" (of the 0x21-0x60 the format allows).
_UU = regex.compile(r"(?m)^[#-M][\x20-\x60]{3,60}$")


_ROT13_HINT = regex.compile(r"\brot[\s_-]?13\b|\bcaesar\b", regex.IGNORECASE)


# Every case variant of an ASCII letter, lower-cased, and commas as spaces: what the NATO
# and rot13 pre-checks read, one byte a character.
_LOWERED = bytes.maketrans(
    string.ascii_uppercase.encode() + b",", string.ascii_lowercase.encode() + b" "
)


class _Source:
    """The text being decoded, and the forms the pre-checks read, one byte a character
    (every pre-check runs on every text: worked out at once, not when first asked), and
    what the RE2 screens found in them when they are built and the text is long enough
    (else None)."""

    __slots__ = ("ascii", "lowered", "screened", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = ascii_bytes(text)
        # Case-folded (`fold` sends every case variant of an ASCII letter to that letter,
        # tests/test_anchors.py), commas as spaces.
        folded = ascii_bytes(fold(text)) if folds_to_ascii(text) else self.ascii
        self.lowered = folded.translate(_LOWERED)
        short = len(text) < SCREENED_FROM_CHARS
        self.screened: Screened | None = None if short else _SCREENS(self.lowered)


_NATO_BYTES = frozenset(word.encode() for word in _NATO_WORDS)
_SCREENS = ScreensWhenDue(tuple(_NATO_WORDS))
# A shorter text is pre-checked in Python: an RE2 call costs more than its few steps
# (corpus texts under 200 characters: 18.0 ms without, 19.1 with; 200-1,000: 21.8, 16.9).
SCREENED_FROM_CHARS = 256


def _may_hold_nato(source: _Source) -> bool:
    """False only when the text provably holds no NATO run (a case-insensitive alternation
    at every word is slow). A run is five NATO words or more, each of the middle three
    between a space or comma and a space or comma: three words in a row of the text split
    there (also split at any other white space: a NATO word holds none, nor any non-ASCII
    "?"). Whether each word is one is a byte, and the three in a row one `in`; or the RE2
    screen's answer, the same."""
    if source.screened is not None:
        return source.screened.nato
    words = source.lowered.split()
    if _NATO_BYTES.isdisjoint(words):
        return False
    return b"\x01\x01\x01" in bytes(map(_NATO_BYTES.__contains__, words))


# Where a Morse run may be: the text with "." and "-" as ".", its separators as they are and
# the rest "x"; a run holds four codes and three separators, which `re` finds from each ".".
_MORSE_CLASSES = bytes(
    ord(".") if chr(code) in ".-" else code if chr(code) in " /" else ord("x")
    for code in range(256)
)
_MORSE_SHAPE = re.compile(rb"\.(?:(?: / | {1,3}|/)\.{1,7}){2}(?: / | {1,3}|/)\.")
# How every shape starts: two codes and a separator. Most texts hold none, and `re` tries
# this faster at each "." (`-` of a comment or a rule, `.` of a sentence) than the shape.
_MORSE_GAP = re.compile(rb"\.(?: / | {1,3}|/)\.")


def _may_hold_morse(source: _Source) -> bool:
    if source.screened is not None and not source.screened.morse:
        return False
    shapes = source.ascii.translate(_MORSE_CLASSES)
    return _MORSE_GAP.search(shapes) is not None and _MORSE_SHAPE.search(shapes) is not None


def _found(pattern: regex.Pattern[str]) -> Callable[[str], Iterator[tuple[int, int]]]:
    return lambda text: (match.span() for match in pattern.finditer(text))


def _uu_lines(text: str) -> Iterator[tuple[int, int]]:
    """The matches of `_UU`: `re` jumps from one newline to the next, where `(?m)^` is tried
    at every character (`regex` and `re` end a line at "\n" alone, tests/test_decode_prefilters)."""
    first = _UU_FIRST_LINE.match(text)
    if first:
        yield first.span()
    for line in _UU_LINE.finditer(text):
        yield line.span(1)


_UU_LINE_SOURCE = r"[#-M][\x20-\x60]{3,60}(?=\n|\Z)"
_UU_FIRST_LINE = re.compile(_UU_LINE_SOURCE)
_UU_LINE = re.compile(rf"\n({_UU_LINE_SOURCE})")


# Three escapes in a row, each followed by at most 16 other characters, as every `_PERCENT`
# match holds: `re` jumps from one "%" to the next.
_PERCENT_SHAPE = re.compile(r"%[0-9A-Fa-f]{2}(?:[^%]{0,16}%[0-9A-Fa-f]{2}){2}")


def _may_hold_percent_run(source: _Source) -> bool:
    text = source.text
    return "%" in text and text.count("%") >= 3 and _PERCENT_SHAPE.search(text) is not None


def _always(source: _Source) -> bool:
    return True


# The decoders searched over the whole text, each after a quick test that is False only
# when the text provably holds no blob of its encoding.
_SEARCHED: tuple[
    tuple[Decoder, Callable[[str], Iterable[tuple[int, int]]], Callable[[_Source], bool]], ...
] = (
    # A one-character `in` (memchr) first: most texts hold no "%" and no backslash at all.
    (Decoder("url", unquote, 3), _found(_PERCENT), _may_hold_percent_run),
    (
        Decoder("escapes", decode_escapes, 3),
        _found(_ESCAPES),
        lambda source: "\\" in source.text and ("\\x" in source.text or "\\u" in source.text),
    ),
    (Decoder("morse", decode_morse, 1), _found(_MORSE), _may_hold_morse),
    (Decoder("nato", decode_nato, 1), _found(_NATO), _may_hold_nato),
    (
        Decoder("braille", decode_braille, 1),
        _found(_BRAILLE),
        lambda source: "\u2820" in source.text,
    ),
    (Decoder("uu", decode_uu, 1), _uu_lines, _always),
)
_ROT_13 = re.compile(rb"rot(?s:.)?13")


def _has_rot13_hint(source: _Source) -> bool:
    # The hint's literals, case-folded, first (the RE2 screen's answer, or an `in` and a
    # literal search): much faster.
    lowered = source.lowered
    if source.screened is not None:
        if not source.screened.rot13:
            return False
    elif b"caesar" not in lowered and not ("13" in source.text and _ROT_13.search(lowered)):
        return False
    return bool(_ROT13_HINT.search(source.text))


class _Kept:
    """The decodings kept so far, none overlapping another, at most MAX_BLOBS."""

    __slots__ = ("blobs", "taken")

    def __init__(self) -> None:
        self.blobs: list[DecodedBlob] = []
        self.taken: list[tuple[int, int]] = []

    def keep(self, decoder: Decoder, start: int, end: int, decoded: str, readable: bool) -> bool:
        """Record a kept decoding unless it overlaps one kept before; True when full."""
        if end - start > MAX_BLOB_CHARS or any(a < end and start < b for a, b in self.taken):
            return False
        self.blobs.append(DecodedBlob(decoder.name, start, end, decoded, readable))
        self.taken.append((start, end))
        return len(self.blobs) >= MAX_BLOBS

    def in_runs(self, text: str, runs: list[tuple[int, int]]) -> bool:
        """Keep the blobs of the candidate `runs`: base64 first, then base32, then hex, each
        in text order; True when full."""
        in_runs = blobs_in_runs(text, runs)
        if not in_runs:
            return False
        for wanted in (BASE64_DECODER, BASE32_DECODER, HEX_DECODER):
            for decoder, start, end, decoded, readable in in_runs:
                if decoder is wanted and self.keep(decoder, start, end, decoded, readable):
                    return True
        return False

    def in_text_order(self) -> list[DecodedBlob]:
        blobs = self.blobs
        return sorted(blobs, key=_START) if len(blobs) > 1 else blobs


_START = operator.attrgetter("start")


def decode_blobs(text: str) -> list[DecodedBlob]:
    """Readable decodings of the encoded blobs in `text`, in text order, at most MAX_BLOBS."""
    kept = _Kept()
    source = _Source(text)
    runs = candidate_runs(text, source.ascii)
    if runs and kept.in_runs(text, runs):
        return kept.in_text_order()
    for decoder, spans, may_hold in _SEARCHED:
        if not may_hold(source):
            continue
        for start, end in spans(text):
            if end - start > MAX_BLOB_CHARS:
                continue
            decoded = decoder.kept(text[start:end])
            if decoded and kept.keep(decoder, start, end, *decoded):
                return kept.in_text_order()
    if _has_rot13_hint(source):
        kept.blobs.append(DecodedBlob("rot13", 0, len(text), codecs.encode(text, "rot13")))
    return kept.in_text_order()
