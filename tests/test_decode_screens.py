"""The RE2 screens of decoding (soulscan.hardened.decode_screens) answer as the pre-checks do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from soulscan.engine.re2_literals import ScreenSet, use_literal_sets
from soulscan.hardened import decode
from soulscan.hardened.decode_screens import (
    MORSE,
    MORSE_SOURCE,
    NATO,
    ROT13,
    ROT13_SOURCE,
    Screened,
    ScreensWhenDue,
    nato_source,
)

_SCREENS = ScreenSet((nato_source(tuple(decode._NATO_WORDS)), ROT13_SOURCE, MORSE_SOURCE))

# NATO words in every case and fold (Kelvin sign, long s, dotted I), every white space of
# `bytes.split()` and some it does not split at (NBSP, \x1c), commas, rot13 hints, Morse codes
# and separators, and other words and characters.
_PIECES = [
    "alfa", "Alpha", "x-ray", "xray", "\u212aILO", "echo", "ECHO", "lima", "\u0130ndia",
    "\u017fierra", "caesar", "CAE\u017fAR", "rot13", "ROT-13", "rot 13", "rot", "r0t13", "13", "word",
    "echoes", " ", "  ", ", ", ",", "\n", "\t", "\r", "\x0b", "\x0c", "\u00a0", "\x1c", "\u2028",
    ".", "-", "...", "-.-", " / ", "/", "(", "\u00e9", "a",
]  # fmt: skip


@pytest.fixture(autouse=True)
def _default_mode() -> Iterator[None]:
    yield
    use_literal_sets()


def _unscreened(text: str) -> decode._Source:
    source = decode._Source(text)
    source.screened = None
    return source


def _literal_rot13(source: decode._Source) -> bool:
    """The literal pre-check of `_has_rot13_hint` without a screen."""
    lowered = source.lowered
    return b"caesar" in lowered or ("13" in source.text and bool(decode._ROT_13.search(lowered)))


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=16))
@example(["alfa", " ", "echo", "\x0b", "lima"])  # a vertical tab splits
@example(["alfa", "\x1c", "echo", " ", "lima", " ", "echo"])  # \x1c does not
@example(["(", "alfa", " ", "echo", " ", "lima"])  # `(alfa` is no NATO token
@example(["alfa", ",", "echo", ",", "lima"])  # commas are spaces in the lowered bytes
@example(["rot", "\n", "13"])  # any byte between
def test_a_screen_answers_as_the_pre_checks(pieces: list[str]) -> None:
    text = "".join(pieces)
    source = _unscreened(text)
    found = _SCREENS.found(source.lowered)
    assert found is not None
    assert (NATO in found) is decode._may_hold_nato(source)
    assert (ROT13 in found) is _literal_rot13(source)
    if decode._may_hold_morse(source):
        assert MORSE in found


def test_screens_are_built_once_the_literal_sets_are_due() -> None:
    use_literal_sets(None)
    when_due = ScreensWhenDue(tuple(decode._NATO_WORDS))
    assert when_due(b"alfa echo lima") is None
    use_literal_sets(0)
    assert when_due(b"alfa echo lima") == Screened(nato=True, rot13=False, morse=False)
    assert when_due(b"a caesar shift") == Screened(nato=False, rot13=True, morse=False)
    assert when_due(b". - .. / -") == Screened(nato=False, rot13=False, morse=True)


_DECODABLE = [
    *_PIECES, "bravo", "charlie", "delta", "... --- ...", ".- -... -.-.", "uryyb jbeyq",
    "\n#86)C\n", "aGVsbG8gd29ybGQgdGhpcyBpcyBh",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_DECODABLE), max_size=20))
def test_decode_blobs_finds_the_same_with_screens_and_without(pieces: list[str]) -> None:
    text = "lorem ipsum " * 22 + "".join(pieces)  # long enough to be screened
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decode, "_SCREENS", lambda lowered: None)
        without = decode.decode_blobs(text)
    use_literal_sets(0)
    assert decode._Source(text).screened is not None
    assert decode.decode_blobs(text) == without


def test_a_short_text_is_pre_checked_in_python() -> None:
    use_literal_sets(0)
    short = "alfa bravo charlie delta echo"
    assert decode._Source(short).screened is None
    assert decode._Source(short.ljust(decode.SCREENED_FROM_CHARS)).screened is not None
    assert decode.decode_blobs(short)[0].encoding == "nato"
