"""Find encoded blobs (base64, base32, hex, URL-encoding, escapes, rot13), decode them, keep the readable ones.

A decoded blob is only kept when it reads as text (printable, mostly letters and spaces), so
image data, hashes and UUIDs never become findings. What is kept is rescanned by every rule.
"""
from __future__ import annotations

import base64
import binascii
import codecs
from dataclasses import dataclass
from urllib.parse import unquote

import regex

MAX_BLOBS = 64
MAX_BLOB_CHARS = 65_536


@dataclass(frozen=True)
class DecodedBlob:
    encoding: str
    start: int
    end: int
    text: str


_BASE64 = regex.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,65536}={0,2}(?![A-Za-z0-9+/=_-])")
_BASE32 = regex.compile(r"(?<![A-Za-z0-9=])[A-Z2-7]{16,65536}={0,6}(?![A-Za-z0-9=])")
_HEX = regex.compile(r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}){8,32768}(?![0-9A-Za-z])")
_PERCENT = regex.compile(r"(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~+-]){0,64}(?:%[0-9A-Fa-f]{2}[^\s%]{0,16}){3,8192}")
_ESCAPES = regex.compile(r"(?:\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}){4,16384}")
_ROT13_HINT = regex.compile(r"\brot[\s_-]?13\b|\bcaesar\b", regex.IGNORECASE)
_WORD = regex.compile(r"[A-Za-z]{2,}")


def reads_as_text(text: str) -> bool:
    """Printable, at least three words, and made mostly of letters and spaces."""
    if not text or any(not (ch.isprintable() or ch in "\n\t") for ch in text):
        return False
    if "\ufffd" in text or len(_WORD.findall(text)) < 3:
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in text)
    return letters / len(text) >= 0.75


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _base64(blob: str) -> str | None:
    core = blob.rstrip("=")
    if core.isalpha() and (core.islower() or core.isupper()):
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
    try:
        return _utf8(base64.b32decode(core + "=" * (-len(core) % 8)))
    except (binascii.Error, ValueError):
        return None


def _hex(blob: str) -> str | None:
    if blob.isdigit():
        return None
    return _utf8(bytes.fromhex(blob))


def _escapes(blob: str) -> str | None:
    try:
        return codecs.decode(blob, "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return None


_DECODERS = (
    ("base64", _BASE64, _base64),
    ("base32", _BASE32, _base32),
    ("hex", _HEX, _hex),
    ("url", _PERCENT, lambda blob: unquote(blob)),
    ("escapes", _ESCAPES, _escapes),
)


def decode_blobs(text: str) -> list[DecodedBlob]:
    """Readable decodings of the encoded blobs in `text`, in text order, at most MAX_BLOBS."""
    found: list[DecodedBlob] = []
    taken: list[tuple[int, int]] = []
    for name, pattern, decoder in _DECODERS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if end - start > MAX_BLOB_CHARS or any(a < end and start < b for a, b in taken):
                continue
            decoded = decoder(match.group())
            if decoded is not None and decoded != match.group() and reads_as_text(decoded):
                found.append(DecodedBlob(name, start, end, decoded))
                taken.append((start, end))
                if len(found) >= MAX_BLOBS:
                    return sorted(found, key=lambda blob: blob.start)
    if _ROT13_HINT.search(text):
        found.append(DecodedBlob("rot13", 0, len(text), codecs.encode(text, "rot13")))
    return sorted(found, key=lambda blob: blob.start)
