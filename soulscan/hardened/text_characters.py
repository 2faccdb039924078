"""What several passes over one text ask of its characters, worked out once from one encoding.

The skeleton view and the Unicode analysis both ask of the same text which non-ASCII
characters it holds and whether it holds an ASCII control (an invisible): each answer is a
C pass over its UTF-8 bytes, which are encoded once for all of them.
"""

from __future__ import annotations

import re

from soulscan.hardened.view_rewrite import non_ascii_of

# The ASCII members of `views.INVISIBLE_SOURCE` (no Default_Ignorable or Cf character is
# ASCII), for `re`: an ASCII text is scanned several times faster without the Unicode
# property tables.
ASCII_INVISIBLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+")
_ALL_BUT_ASCII_INVISIBLE = bytes(b for b in range(256) if not ASCII_INVISIBLE.match(chr(b)))


def _ascii_invisibles(utf8: bytes) -> bytes:
    # deleting bytes is several times faster than `re` scanning for the few left
    return utf8.translate(None, _ALL_BUT_ASCII_INVISIBLE)


def ascii_invisible_count(text: str) -> int:
    return len(_ascii_invisibles(text.encode("utf-8", "surrogatepass")))


class TextCharacters:
    """Which non-ASCII characters a text holds (`view_rewrite.non_ascii_chars`) and whether
    it holds an `ASCII_INVISIBLE` character, each worked out at first need from one UTF-8
    encoding of it."""

    __slots__ = ("_ascii_invisible", "_rare", "_utf8", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._utf8: bytes | None = None
        self._rare: str | None = None
        self._ascii_invisible: bool | None = None

    def _encoded(self) -> bytes:
        if self._utf8 is None:
            self._utf8 = self.text.encode("utf-8", "surrogatepass")
        return self._utf8

    @property
    def rare(self) -> str:
        """The text's non-ASCII characters."""
        if self._rare is None:
            self._rare = "" if self.text.isascii() else non_ascii_of(self._encoded())
        return self._rare

    @property
    def ascii_invisible(self) -> bool:
        """Does the text hold an `ASCII_INVISIBLE` character?"""
        if self._ascii_invisible is None:
            self._ascii_invisible = bool(_ascii_invisibles(self._encoded()))
        return self._ascii_invisible
