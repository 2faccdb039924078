"""Three of decoding's pre-checks (NATO, rot13, Morse) in one RE2 pass, once RE2 passes pay.

`soulscan.hardened.decode` asks, of every text, whether it may hold a NATO run (three NATO
words in a row between white space), a rot13 hint (`caesar`, `rot?13`) and a Morse shape: a
split of the whole text into words and a set lookup each, a literal search and a class map
and a `re` search (~110 ms over the corpora). An RE2 set reads the text's lowered bytes
once for all three (~17 ms). Its answers for NATO and rot13 are those pre-checks' own: the
same strings, written as patterns. Its Morse pattern is read on the lowered bytes, where a
comma is a space: a superset of the Morse pre-check, which still runs where it matches.

Built with the hardened literal sets, once they are due (by their own counter,
`soulscan.engine.re2_literals`): a one-file run never imports RE2 for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from soulscan.engine import re2_literals

NATO, ROT13, MORSE = 0, 1, 2
_SENTINEL = 3

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


class _ScreenSet:
    def __init__(self, nato_words: tuple[str, ...]) -> None:
        """Raises `re2_gate.SetUnavailable` when google-re2 is missing or refuses."""
        from soulscan.engine.re2_gate import SetUnavailable, bytes_matcher, search_set

        re2, built = search_set()
        try:
            for source in (nato_source(nato_words), ROT13_SOURCE, MORSE_SOURCE, r"\z"):
                built.Add(source)
            built.Compile()
        except re2.error as exc:
            raise SetUnavailable(str(exc)) from exc
        self._match: Callable[[bytes], list[int]] = bytes_matcher(built)

    def screened(self, lowered: bytes) -> Screened | None:
        found = self._match(lowered)
        if _SENTINEL not in found:  # the DFA gave up before the end of the text
            return None
        return Screened(NATO in found, ROT13 in found, MORSE in found)


class ScreensWhenDue:
    """The screen set: None until the literal sets are due, then built once (and None for
    good when it cannot be built)."""

    def __init__(self, nato_words: tuple[str, ...]) -> None:
        self._nato_words = nato_words
        self._set: _ScreenSet | None = None
        self._refused = False

    def __call__(self, lowered: bytes) -> Screened | None:
        """What the pass finds in `lowered` (ASCII bytes); None when no set answers (as
        `re2_literals.LiteralSetWhenDue` does, by the same counter)."""
        due = re2_literals._DUE
        if due.after is None or self._refused:
            return None
        if self._set is None:
            if not due.due(0):
                return None
            from soulscan.engine.re2_gate import SetUnavailable

            try:
                self._set = _ScreenSet(self._nato_words)
            except SetUnavailable:
                self._refused = True
                return None
        return self._set.screened(lowered)
