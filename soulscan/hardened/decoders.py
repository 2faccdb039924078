"""One decoder per encoding: the text of a blob in, its decoded text out, or None.

Which blobs are decoded and which decodings are kept is decided elsewhere (`blob_runs`,
`decode`, `decoded_text`); these functions only undo the encoding.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re

import regex

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


def decode_morse(blob: str) -> str | None:
    if "." not in blob or "-" not in blob:
        return None
    words = []
    for word in regex.split(r" / |/| {2,3}", blob.strip()):
        letters = [_MORSE_TABLE.get(code) for code in word.split()]
        if None in letters:
            return None
        words.append("".join(letters))  # type: ignore[arg-type]
    return " ".join(words)


def decode_nato(blob: str) -> str:
    return "".join(word[0] for word in regex.findall(r"[A-Za-z-]+", blob)).lower()


def decode_braille(blob: str) -> str | None:
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


def decode_uu(blob: str) -> str | None:
    expected = (ord(blob[0]) - 32) & 0x3F
    if not 3 <= expected <= 45 or abs(len(blob) - 1 - (expected * 4 + 2) // 3) > 3:
        return None
    try:
        return _utf8(binascii.a2b_uu(blob))
    except (binascii.Error, ValueError):
        return None


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decode_base64(blob: str) -> str | None:
    core = blob.rstrip("=")
    if core.isalpha() and (len(core) < 16 or core.islower() or core.isupper()):
        return None  # a plain word or identifier, not base64
    if not _has_digit_plus_slash_or_both_cases(core):
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
_DIGIT_PLUS_SLASH = re.compile("[0-9+/]")


def _has_digit_plus_slash_or_both_cases(core: str) -> bool:
    """A digit, `+` or `/`, or both a lower- and an upper-case letter: by C passes for an ASCII
    text (where `isdigit` is [0-9], and a text holds a lower-case letter exactly when upper-
    casing changes it), by a look at each character for any other."""
    if not core.isascii():
        return any(ch.isdigit() or ch in "+/" for ch in core) or (
            any(ch.islower() for ch in core) and any(ch.isupper() for ch in core)
        )
    if _DIGIT_PLUS_SLASH.search(core):
        return True
    return core.upper() != core and core.lower() != core


def decode_base32(blob: str) -> str | None:
    core = blob.rstrip("=")
    if core.isalpha() and len(core) < 16 and not blob.endswith("="):
        return None  # an upper-case word (INSTANCE, INDUSTRY), not base32
    try:
        return _utf8(base64.b32decode(core + "=" * (-len(core) % 8)))
    except (binascii.Error, ValueError):
        return None


def decode_hex(blob: str) -> str | None:
    decoded = _utf8(bytes.fromhex(blob))
    if blob.isdigit() and (len(blob) < 12 or decoded is None or not decoded.isalpha()):
        return None  # a plain number, unless it spells a word
    return decoded


def decode_escapes(blob: str) -> str | None:
    try:
        return codecs.decode(blob, "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return None
