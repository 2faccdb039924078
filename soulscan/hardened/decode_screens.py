"""Three of decoding's pre-checks (NATO, rot13, Morse) in one RE2 pass, once RE2 passes pay.

`soulscan.hardened.decode` asks, of every text, whether it may hold a NATO run (three NATO
words in a row between white space), a rot13 hint (`caesar`, `rot?13`) and a Morse shape: a
split of the whole text into words and a set lookup each, a literal search and a class map
and a `re` search (~110 ms over the corpora). An RE2 set reads the text's lowered bytes
once for all three (~17 ms; built when such sets pay, `soulscan.hardened.re2_screens`). Its
answers for NATO and rot13 are those pre-checks' own: the same strings, written as
patterns. Its Morse pattern is read on the lowered bytes, where a comma is a space: a
superset of the Morse pre-check, which still runs where it matches.
"""

from __future__ import annotations

from dataclasses import dataclass

from soulscan.hardened.re2_screens import ScreenSetWhenDue

NATO, ROT13, MORSE = 0, 1, 2

# `bytes.split()`'s white space
_SPACE = r"[ \t\n\r\x0b\x0c]"


def nato_source(words: tuple[str, ...]) -> str:
    """Three whole tokens of a `bytes.split()` in a row, each one of `words`."""
    word = "(?:" + "|".join(w.replace("-", r"\-") for w in words) + ")"
    return rf"(?:^|{_SPACE}){word}{_SPACE}+{word}{_SPACE}+{word}(?:{_SPACE}|$)"


# `decode._ROT_13` or the literal `caesar`
ROT13_SOURCE = r"caesar|rot(?s:.)?13"
_MORSE_SEPARATOR = r"(?: / | {1,3}|/)"
# `decode._MORSE_SHAPE` on the text itself: its class map writes `.` for both `.` and `-`.
MORSE_SOURCE = (
    rf"[.\-]{_MORSE_SEPARATOR}[.\-]{{1,7}}{_MORSE_SEPARATOR}[.\-]{{1,7}}{_MORSE_SEPARATOR}[.\-]"
)


@dataclass(frozen=True)
class Screened:
    """What the pass found in a text's lowered bytes."""

    nato: bool  # exactly `decode._may_hold_nato`
    rot13: bool  # exactly the literal pre-check of `decode._has_rot13_hint`
    morse: bool  # False only where `decode._may_hold_morse` is False


class ScreensWhenDue:
    """The three screens' set, once it is built (`ScreenSetWhenDue`)."""

    def __init__(self, nato_words: tuple[str, ...]) -> None:
        self._set = ScreenSetWhenDue((nato_source(nato_words), ROT13_SOURCE, MORSE_SOURCE))

    def __call__(self, lowered: bytes) -> Screened | None:
        """What the pass finds in `lowered` (ASCII bytes); None when no set answers."""
        found = self._set(lowered)
        if found is None:
            return None
        return Screened(NATO in found, ROT13 in found, MORSE in found)
