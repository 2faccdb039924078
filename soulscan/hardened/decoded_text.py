"""When a decoding is kept: it reads as text, or is printable and of an encoding that hides code.

A decoded blob is only kept when it reads as text (printable, mostly letters and spaces), so
image data, hashes and UUIDs never become findings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import regex


def _printable_but(text: str, allowed: str) -> bool:
    """Every character printable or one of `allowed` (str methods, no loop in Python)."""
    if text.isprintable():
        return True
    for char in allowed:
        text = text.replace(char, "")
    return text.isprintable()


def _printable(text: str) -> bool:
    return len(text) >= 16 and _printable_but(text, "\n\t\r")


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


@dataclass(frozen=True)
class Decoder:
    """One encoding: how to decode a blob, and how many words make it text."""
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
Kept = tuple[Decoder, int, int, str, bool]
