"""Find encoded blobs (base64/32, hex, URL, escapes, Morse, NATO, braille, UU, rot13), decode, keep readable ones.

A decoded blob is only kept when it reads as text (printable, mostly letters and spaces), so
image data, hashes and UUIDs never become findings. What is kept is rescanned by every rule.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
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


def _printable(text: str) -> bool:
    return len(text) >= 16 and all(ch.isprintable() or ch in "\n\t\r" for ch in text)


# ASCII-only patterns use `re`, which runs them several times faster than `regex`.
_BASE64 = re.compile(
    r"(?<![A-Za-z0-9+/=_-])"
    # what `_base64` accepts at all: a digit, + or /, or both cases (skips plain words fast)
    r"(?:(?=[A-Za-z_-]*+[0-9+/])|(?=[A-Z0-9+/_-]*+[a-z])(?=[a-z0-9+/_-]*+[A-Z]))"
    r"[A-Za-z0-9+/_-]{8,65536}={0,2}(?![A-Za-z0-9+/=_-])"
)
_BASE32 = regex.compile(r"(?<![A-Za-z0-9=])[A-Z2-7]{8,65536}={0,6}(?![A-Za-z0-9=])")
_HEX = re.compile(r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}){5,32768}(?![0-9A-Za-z])")
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
_NATO_FOLLOWED = re.compile("(?:" + "|".join(_NATO_WORDS) + ")[ ,]")
_BRAILLE = regex.compile(r"[\u2800-\u283F]*\u2820[\u2801-\u283F][\u2800-\u283F ]{1,4096}")
_UU = regex.compile(r"(?m)^[\x21-\x60][\x20-\x60]{3,60}$")
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
    if not text or any(not (ch.isprintable() or ch in "\n\t") for ch in text):
        return False
    words = _WORD.findall(text)
    if "\ufffd" in text or len(words) < min_words:
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in text)
    if min_words == 1 and len(words) < 3:
        # One or two words: only a clean ASCII word of five or more letters counts.
        return text.isascii() and sum(map(len, words)) >= 5 and letters / len(text) >= 0.85
    return letters / len(text) >= 0.75


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
    padded = core + "=" * (-len(core) % 4)
    try:
        alt = "-_" if ("-" in core or "_" in core) else None
        data = base64.b64decode(padded, altchars=alt.encode() if alt else None, validate=True)
    except (binascii.Error, ValueError):
        return None
    return _utf8(data)


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


# (name, pattern, decoder, minimum words for the decoding to count as text)
_DECODERS = (
    ("base64", _BASE64, _base64, 1),
    ("base32", _BASE32, _base32, 1),
    ("hex", _HEX, _hex, 1),
    ("url", _PERCENT, lambda blob: unquote(blob), 3),
    ("escapes", _ESCAPES, _escapes, 3),
    ("morse", _MORSE, _morse, 1),
    ("nato", _NATO, _nato, 1),
    ("braille", _BRAILLE, _braille, 1),
    ("uu", _UU, _uu, 1),
)


def _may_hold(name: str, text: str, folded: str) -> bool:
    """False only when `text` provably holds no blob of this encoding: a cheap test that
    spares the slower scans (NATO is a case-insensitive alternation at every word)."""
    if name == "url":
        return text.count("%") >= 3
    if name == "escapes":
        return "\\x" in text or "\\u" in text
    if name == "braille":
        return "\u2820" in text
    if name == "nato":
        # A run is five NATO words or more; `fold` sends every case variant of an ASCII
        # letter to that letter (tests/test_anchors.py), and `count` finds the most
        # non-overlapping occurrences of each word.
        if sum(folded.count(word) for word in _NATO_WORDS) < 5:
            return False
        # ... and the first four of them are each followed by a space or a comma.
        return len(_NATO_FOLLOWED.findall(folded)) >= 4
    return True


def decode_blobs(text: str) -> list[DecodedBlob]:
    """Readable decodings of the encoded blobs in `text`, in text order, at most MAX_BLOBS."""
    found: list[DecodedBlob] = []
    taken: list[tuple[int, int]] = []
    folded = fold(text)
    for name, pattern, decoder, min_words in _DECODERS:
        if not _may_hold(name, text, folded):
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if end - start > MAX_BLOB_CHARS or any(a < end and start < b for a, b in taken):
                continue
            decoded = decoder(match.group())
            if decoded is None or decoded == match.group():
                continue
            readable = reads_as_text(decoded, min_words=min_words)
            if readable or (name in ("base64", "base32", "hex", "escapes", "uu") and _printable(decoded)):
                found.append(DecodedBlob(name, start, end, decoded, readable))
                taken.append((start, end))
                if len(found) >= MAX_BLOBS:
                    return sorted(found, key=lambda blob: blob.start)
    if _ROT13_HINT.search(text):
        found.append(DecodedBlob("rot13", 0, len(text), codecs.encode(text, "rot13")))
    return sorted(found, key=lambda blob: blob.start)
