"""Find encoded blobs (base64/32, hex, URL, escapes, Morse, NATO, braille, UU, rot13), decode, keep readable ones.

A decoded blob is only kept when it reads as text (printable, mostly letters and spaces), so
image data, hashes and UUIDs never become findings. What is kept is rescanned by every rule.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

import regex

from soulscan.engine.anchors import fold

MAX_BLOBS = 64
MAX_BLOB_CHARS = 65_536


@dataclass(frozen=True)
class DecodedBlob:
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


def _printable_but(text: str, allowed: str) -> bool:
    """Every character printable or one of `allowed` (str methods, no loop in Python)."""
    if text.isprintable():
        return True
    for char in allowed:
        text = text.replace(char, "")
    return text.isprintable()


def _printable(text: str) -> bool:
    return len(text) >= 16 and _printable_but(text, "\n\t\r")


# ASCII-only patterns use `re`, which runs them several times faster than `regex`.
# A base64 blob is a whole run of `_RUN` characters; the lookaheads are exactly what
# `_base64` accepts before decoding: a digit, + or /; or both cases and a _, a - or 16
# characters (tests/test_decode_prefilters.py).
_BASE64 = re.compile(
    r"(?:(?=[A-Za-z_-]*+[0-9+/])"
    r"|(?=[A-Z0-9+/_-]*+[a-z])(?=[a-z0-9+/_-]*+[A-Z])(?:(?=[A-Za-z]*+[_-])|(?=[A-Za-z0-9+/_-]{16})))"
    r"[A-Za-z0-9+/_-]{8,65536}={0,2}(?![A-Za-z0-9+/=_-])"
)
_BASE32 = re.compile(r"(?<![A-Za-z0-9=])[A-Z2-7]{8,65536}={0,6}(?![A-Za-z0-9=])")
_HEX = re.compile(r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}){5,32768}(?![0-9A-Za-z])")
# Every base64, base32 and hex blob lies inside one maximal run of these characters. One
# `re` pass finds the runs that may hold one (`re` jumps from one character outside the
# set to the next): at least 8 long but not 8-15 letters (`_base64` and `_base32` reject
# those, and hex without a digit decodes to non-ASCII text too short to keep), and either
# a base64 blob whole or holding 8 base32 or 10 hex characters in a row. The blob patterns
# then search only these runs; their lookarounds see the characters around a run as before.
_RUN = "A-Za-z0-9+/=_-"
_CANDIDATE_RUN = (
    rf"(?=[{_RUN}]{{8}})(?![A-Za-z]{{8,15}}(?![{_RUN}]))"
    rf"(?:(?={_BASE64.pattern})|(?=[{_RUN}]*?[A-Z2-7]{{8}})|(?=[{_RUN}]*?[0-9A-Fa-f]{{10}}))"
    rf"[{_RUN}]++"
)
_RUN_AT_START = re.compile(_CANDIDATE_RUN)
_RUN_AFTER_BOUNDARY = re.compile(rf"[^{_RUN}]({_CANDIDATE_RUN})")
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
_NATO_SET = frozenset(_NATO_WORDS)
_BRAILLE = regex.compile(r"[\u2800-\u283F]*\u2820[\u2801-\u283F][\u2800-\u283F ]{1,4096}")
# A line of uuencoded data; its first character gives the length, which `_uu` accepts only
# between 3 and 45: "#" to "M" (of the 0x21-0x60 the format allows).
_UU = regex.compile(r"(?m)^[#-M][\x20-\x60]{3,60}$")
_MORSE_TABLE = {
    ".-": "a",
    "-...": "b",
    "-.-.": "c",
    "-..": "d",
    ".": "e",
    "..-.": "f",
    "--.": "g",
    "....": "h",
    "..": "i",
    ".---": "j",
    "-.-": "k",
    ".-..": "l",
    "--": "m",
    "-.": "n",
    "---": "o",
    ".--.": "p",
    "--.-": "q",
    ".-.": "r",
    "...": "s",
    "-": "t",
    "..-": "u",
    "...-": "v",
    ".--": "w",
    "-..-": "x",
    "-.--": "y",
    "--..": "z",
    "-----": "0",
    ".----": "1",
    "..---": "2",
    "...--": "3",
    "....-": "4",
    ".....": "5",
    "-....": "6",
    "--...": "7",
    "---..": "8",
    "----.": "9",
}
# Grade-1 braille: dot patterns of a-z (U+2800 + dot bits).
_BRAILLE_LETTERS = dict(
    zip(
        (
            0x01,
            0x03,
            0x09,
            0x19,
            0x11,
            0x0B,
            0x1B,
            0x13,
            0x0A,
            0x1A,
            0x05,
            0x07,
            0x0D,
            0x1D,
            0x15,
            0x0F,
            0x1F,
            0x17,
            0x0E,
            0x1E,
            0x25,
            0x27,
            0x3A,
            0x2D,
            0x3D,
            0x35,
        ),
        "abcdefghijklmnopqrstuvwxyz",
    )
)


def _morse(blob: str) -> str | None:
    if "." not in blob or "-" not in blob:
        return None
    words = []
    for word in regex.split(r" / |/| {2,3}", blob.strip()):
        letters = [_MORSE_TABLE.get(code) for code in word.split()]
        if None in letters:
            return None
        words.append("".join(letters))  # type: ignore[arg-type]
    return " ".join(words)


def _nato(blob: str) -> str:
    return "".join(word[0] for word in regex.findall(r"[A-Za-z-]+", blob)).lower()


def _braille(blob: str) -> str | None:
    out = []
    for ch in blob:
        code = ord(ch) - 0x2800
        if ch in " \u2800":
            out.append(" ")
        elif code == 0x20:
            continue  # capital sign
        elif code in _BRAILLE_LETTERS:
            out.append(_BRAILLE_LETTERS[code])
        else:
            return None
    return "".join(out)


def _uu(blob: str) -> str | None:
    expected = (ord(blob[0]) - 32) & 0x3F
    if not 3 <= expected <= 45 or abs(len(blob) - 1 - (expected * 4 + 2) // 3) > 3:
        return None
    try:
        return _utf8(binascii.a2b_uu(blob))
    except (binascii.Error, ValueError):
        return None


_ROT13_HINT = regex.compile(r"\brot[\s_-]?13\b|\bcaesar\b", regex.IGNORECASE)
_WORD = regex.compile(r"[A-Za-z]{2,}")


def reads_as_text(text: str, *, min_words: int = 3) -> bool:
    """Printable, at least `min_words` words, and made mostly of letters and spaces.

    A single word of five or more letters also counts when `min_words` is 1: the encodings
    that accept it (hex, base32/64 of letters only, Morse, NATO, braille, UU) practically
    never decode to a clean word by chance.
    """
    if not text or not _printable_but(text, "\n\t"):
        return False
    words = _WORD.findall(text)
    if "\ufffd" in text or len(words) < min_words:
        return False
    letters = _letters_and_spaces(text)
    if min_words == 1 and len(words) < 3:
        # One or two words: only a clean ASCII word of five or more letters counts.
        return text.isascii() and sum(map(len, words)) >= 5 and letters / len(text) >= 0.85
    return letters / len(text) >= 0.75


_ASCII_LETTERS_AND_SPACES = bytes(
    code for code in range(128) if chr(code).isalpha() or chr(code).isspace()
)


def _letters_and_spaces(text: str) -> int:
    """How many characters are letters or white space (`str.isalpha`, `str.isspace`)."""
    if text.isascii():
        data = text.encode("ascii")
        return len(data) - len(data.translate(None, _ASCII_LETTERS_AND_SPACES))
    return sum(ch.isalpha() or ch.isspace() for ch in text)


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _base64(blob: str) -> str | None:
    core = blob.rstrip("=")
    if core.isalpha() and (len(core) < 16 or core.islower() or core.isupper()):
        return None  # a plain word or identifier, not base64
    if not any(ch.isdigit() or ch in "+/" for ch in core) and not (
        any(ch.islower() for ch in core) and any(ch.isupper() for ch in core)
    ):
        return None
    if len(core) % 4 == 1:
        return None  # no base64 ends with a single character
    padded = core + "=" * (-len(core) % 4)
    if "-" in core or "_" in core:
        padded = padded.translate(_URL_SAFE)  # what b64decode(altchars="-_") does first
    try:
        data = binascii.a2b_base64(padded, strict_mode=True)  # b64decode(validate=True)
    except (binascii.Error, ValueError):
        return None
    return _utf8(data)


_URL_SAFE = str.maketrans("-_", "+/")


def _base32(blob: str) -> str | None:
    core = blob.rstrip("=")
    if core.isalpha() and len(core) < 16 and not blob.endswith("="):
        return None  # an upper-case word (INSTANCE, INDUSTRY), not base32
    try:
        return _utf8(base64.b32decode(core + "=" * (-len(core) % 8)))
    except (binascii.Error, ValueError):
        return None


def _hex(blob: str) -> str | None:
    decoded = _utf8(bytes.fromhex(blob))
    if blob.isdigit() and (len(blob) < 12 or decoded is None or not decoded.isalpha()):
        return None  # a plain number, unless it spells a word
    return decoded


def _escapes(blob: str) -> str | None:
    try:
        return codecs.decode(blob, "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return None


@dataclass(frozen=True)
class _Decoder:
    name: str
    decode: Callable[[str], str | None]
    min_words: int  # minimum words for the decoding to count as text

    def kept(self, blob: str) -> tuple[str, bool] | None:
        """(decoded text, readable) when the decoding of `blob` is kept, else None."""
        decoded = self.decode(blob)
        if decoded is None or decoded == blob:
            return None
        readable = reads_as_text(decoded, min_words=self.min_words)
        if readable or (self.name in _KEPT_WHEN_PRINTABLE and _printable(decoded)):
            return decoded, readable
        return None


_KEPT_WHEN_PRINTABLE = frozenset({"base64", "base32", "hex", "escapes", "uu"})
# Kept decodings: (decoder, start, end, decoded text, readable).
Kept = tuple[_Decoder, int, int, str, bool]

_BASE64_DECODER = _Decoder("base64", _base64, 1)
_BASE32_DECODER = _Decoder("base32", _base32, 1)
_HEX_DECODER = _Decoder("hex", _hex, 1)


def _blobs_in_run(run: str) -> tuple[Kept, ...]:
    """The kept base64, base32 and hex decodings in one candidate run, offsets in the run.

    A run's blobs depend on the run alone (every blob pattern stops at its edges), so
    the short runs that recur (identifiers, dates, paths) are worked out once."""
    if len(run) <= _CACHED_RUN_CHARS:
        return _cached_blobs_in_run(run)
    return _find_blobs_in_run(run)


def _find_blobs_in_run(run: str) -> tuple[Kept, ...]:
    found: list[Kept] = []
    if _BASE64.match(run) and (kept := _BASE64_DECODER.kept(run)):
        found.append((_BASE64_DECODER, 0, len(run), *kept))
    for decoder, pattern in ((_BASE32_DECODER, _BASE32), (_HEX_DECODER, _HEX)):
        for match in pattern.finditer(run):
            if kept := decoder.kept(match.group()):
                found.append((decoder, match.start(), match.end(), *kept))
    return tuple(found)


_CACHED_RUN_CHARS = 256
_cached_blobs_in_run = functools.lru_cache(maxsize=4096)(_find_blobs_in_run)


class _Source:
    """The text being decoded, and its case-folded form worked out once, when first asked."""

    def __init__(self, text: str) -> None:
        self.text = text

    @functools.cached_property
    def folded(self) -> str:
        return fold(self.text)


def _may_hold_nato(source: _Source) -> bool:
    """False only when the text provably holds no NATO run (a case-insensitive alternation
    at every word is slow). A run is five NATO words or more, each of the middle three
    between a space or comma and a space or comma: three words of the text split there.
    `fold` sends every case variant of an ASCII letter to that letter (tests/test_anchors.py)."""
    words = source.folded.replace(",", " ").split()
    return not _NATO_SET.isdisjoint(words) and sum(map(_NATO_SET.__contains__, words)) >= 3


def _always(source: _Source) -> bool:
    return True


# The decoders searched over the whole text, each after a quick test that is False only
# when the text provably holds no blob of its encoding.
_SEARCHED: tuple[tuple[_Decoder, regex.Pattern[str], Callable[[_Source], bool]], ...] = (
    # A one-character `in` (memchr) first: most texts hold no "%" and no backslash at all.
    (
        _Decoder("url", unquote, 3),
        _PERCENT,
        lambda source: "%" in source.text and source.text.count("%") >= 3,
    ),
    (
        _Decoder("escapes", _escapes, 3),
        _ESCAPES,
        lambda source: "\\" in source.text and ("\\x" in source.text or "\\u" in source.text),
    ),
    (_Decoder("morse", _morse, 1), _MORSE, _always),
    (_Decoder("nato", _nato, 1), _NATO, _may_hold_nato),
    (_Decoder("braille", _braille, 1), _BRAILLE, lambda source: "\u2820" in source.text),
    (_Decoder("uu", _uu, 1), _UU, _always),
)
_ROT_13 = re.compile(r"rot(?s:.)?13")


def _candidate_runs(text: str) -> list[tuple[int, int]]:
    first = _RUN_AT_START.match(text)
    runs = [first.span()] if first else []
    runs.extend(match.span(1) for match in _RUN_AFTER_BOUNDARY.finditer(text))
    return runs


def _has_rot13_hint(source: _Source) -> bool:
    # The hint's literals, case-folded, first: `in` and a literal search are much faster.
    text, folded = source.text, source.folded
    if "caesar" not in folded and not ("13" in text and _ROT_13.search(folded)):
        return False
    return bool(_ROT13_HINT.search(text))


def decode_blobs(text: str) -> list[DecodedBlob]:
    """Readable decodings of the encoded blobs in `text`, in text order, at most MAX_BLOBS."""
    found: list[DecodedBlob] = []
    taken: list[tuple[int, int]] = []

    def keep(decoder: _Decoder, start: int, end: int, decoded: str, readable: bool) -> bool:
        """Record a kept decoding unless it overlaps one kept before; True when full."""
        if end - start > MAX_BLOB_CHARS or any(a < end and start < b for a, b in taken):
            return False
        found.append(DecodedBlob(decoder.name, start, end, decoded, readable))
        taken.append((start, end))
        return len(found) >= MAX_BLOBS

    in_runs = [
        (start + blob_start, start + blob_end, decoder, decoded, readable)
        for start, end in _candidate_runs(text)
        for decoder, blob_start, blob_end, decoded, readable in _blobs_in_run(text[start:end])
    ]
    # base64 first, then base32, then hex, each in text order.
    for wanted in (_BASE64_DECODER, _BASE32_DECODER, _HEX_DECODER):
        for start, end, decoder, decoded, readable in in_runs:
            if decoder is wanted and keep(decoder, start, end, decoded, readable):
                return sorted(found, key=lambda blob: blob.start)
    source = _Source(text)
    for decoder, pattern, may_hold in _SEARCHED:
        if not may_hold(source):
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if end - start > MAX_BLOB_CHARS:
                continue
            kept = decoder.kept(match.group())
            if kept and keep(decoder, start, end, *kept):
                return sorted(found, key=lambda blob: blob.start)
    if _has_rot13_hint(source):
        found.append(DecodedBlob("rot13", 0, len(text), codecs.encode(text, "rot13")))
    return sorted(found, key=lambda blob: blob.start)
