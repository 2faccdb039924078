"""The hardened views map every character back exactly as the per-character reference does.

`soulscan.hardened.views` keeps a view's offset map as segments over a chain of rewrites and
skips passes that cannot apply; `support.views_reference` rebuilds every view character by
character with plain lists. Texts, per-character offsets and mapped spans must be identical.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.views_reference import REFERENCE_VIEWS

from soulscan.bench import corpus_texts
from soulscan.hardened.view_offsets import EditedMap, Edits, IdentityMap
from soulscan.hardened.view_rules import hardened_rules
from soulscan.hardened.views import VIEW_NAMES, Views

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"

# Pieces an obfuscated instruction is made of: every one exercises a pass of some view.
FRAGMENTS = [
    "ignore", "Ignore", "IGNORE", "previous", "instructions", "you are now", "from now on",
    "do now not", " now ", "really", "very", "kindly", "um", "anyways", "1gn0r3", "pr3v10us",
    "v2", "x86", "sha256", "4th", "0x1f", "h3ll0", "a1b2c3d4e5f6g7h8i9j0k1l2m3", "1" * 30 + "a",
    " ", "  ", "\t", "\n", "\r\n", "\r", "-\n", "- \n  ", ".", ",", "!", "_", "...", "--",
    "*", "**", "`", "~", "'", "\u2019", "\u02bc", "#", "> ", "- ",
    "<b>", "</b>", "<br>", "<p >", "<div class=x>", "<<b></b>/b>", "<!---->", "<!-- -->",
    "<!-**--->", "<", ">", "&", "&amp;", "&#105;", "&#x69;", "&lt;", "&NotEqualTilde;",
    "&bogus;", "&#0;",
    "\u0456", "\u0430", "\u0435", "\u043e", "\u0441", "\u0440", "\u0251", "\u0131",  # confusables
    "\u0441 \u0435\u0451", "\u0442\u0435\u043a\u0441\u0442",  # genuine Cyrillic
    "\uff49\uff47\uff4e\uff4f\uff52\uff45", "\uff21", "\ufb01", "\u2460", "\u00bd",  # NFKC
    "\u0301", "\u0316\u0300", "e\u0301", "\u20dd",  # combining marks
    "\u200b", "\u200d", "\u2061", "\u00ad", "\u202e", "\ufeff", "\u2800", "\u3164",  # invisible
    "\x00", "\x07", "\x7f", "\x85",
    "\U0001f600", "\U0001d422\U0001d420", "\U000e0041", "\U0001f1fa\U0001f1f8",  # astral
    "\u0130", "\u1e9e", "\u00df", "\u03a3",  # case changes that change the length
    "\u4e2d\u6587", "\u0928\u092e\u0938\u094d\u0924\u0947",
]  # fmt: skip

texts = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.characters(codec="utf-8")), max_size=40
).map("".join)


def _assert_same_as_reference(text: str, spans: Sequence[tuple[int, int]] = ()) -> None:
    views = Views(text)
    for name in VIEW_NAMES:
        view, expected = views.get(name), REFERENCE_VIEWS[name](text)
        assert view.text == expected.text, (name, text)
        got = (
            [view.offsets.start(i) for i in range(len(view.text))],
            [view.offsets.end(i) for i in range(len(view.text))],
        )
        assert got == (expected.starts, expected.ends), (name, text)
        for a, b in spans:
            assert view.span(a, b) == expected.span(a, b), (name, text, a, b)
        # the tokens a view worked out on the way (the words view's anchor lookup reads them)
        if view.tokens is not None:
            assert view.tokens == set(view.text.split(" ")), (name, text)


@settings(max_examples=600, deadline=None)
@given(texts, st.lists(st.tuples(st.integers(-2, 60), st.integers(-2, 60)), max_size=6))
def test_views_map_like_the_per_character_reference(
    text: str, spans: list[tuple[int, int]]
) -> None:
    _assert_same_as_reference(text, spans)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param(" ", id="one-space"),
        pytest.param("really", id="only-a-filler"),
        pytest.param("  really  very  ", id="fillers-between-spaces"),
        pytest.param("***", id="only-joiners"),
        pytest.param("\u200b\u200b", id="only-invisible"),
        pytest.param("\u0130GNORE ALL", id="dotted-capital-i"),
        pytest.param("a\r\nb-\r\nc", id="crlf-and-broken-word"),
        pytest.param("&#105;gnore&#32;previous &NotEqualTilde;", id="entities"),
        pytest.param("x <<b></b>/b> y <!-**---> z", id="nested-markup"),
        pytest.param("\U0001f600 ig\u2061nore \uff49\uff47\uff4e", id="astral-invisible-fullwidth"),
        pytest.param("\U0001f468\u200d\U0001f469 #\ufe0f\u20e3 \u2764\ufe0f", id="emoji-sequences"),
        pytest.param("of\ufb01ce\u00a0\u2460\u00bd\u3371x", id="nfkc-longer-forms"),
        pytest.param("a\u0301\u0316\u0334\u0308\u0323b\u0301", id="mixed-combining-run"),
    ],
)
def test_edge_cases_map_like_the_reference(text: str) -> None:
    every_span = [(a, b) for a in range(-1, len(text) + 3) for b in range(a, len(text) + 3)]
    _assert_same_as_reference(text, every_span[:400])


def test_rule_examples_map_like_the_reference() -> None:
    for rule in hardened_rules():
        for text in (*rule.examples.match, *rule.examples.no_match):
            _assert_same_as_reference(text)


def test_corpus_items_map_like_the_reference() -> None:
    if not SHARED.is_dir():
        pytest.skip("shared corpora absent")
    _, texts = corpus_texts(SHARED, every=7)
    assert texts
    for text in texts:
        if len(text) <= 20_000:
            _assert_same_as_reference(text)


_ASCII_FRAGMENTS = [fragment for fragment in FRAGMENTS if fragment.isascii()]
_NON_ASCII_FRAGMENTS = [fragment for fragment in FRAGMENTS if not fragment.isascii()]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_ASCII_FRAGMENTS), min_size=1, max_size=60),
    st.lists(st.tuples(st.integers(0, 60), st.sampled_from(_NON_ASCII_FRAGMENTS)), min_size=1, max_size=3),
    st.lists(st.tuples(st.integers(-2, 400), st.integers(-2, 400)), max_size=6),
)
def test_few_non_ascii_characters_map_like_the_reference(
    pieces: list[str], inserted: list[tuple[int, str]], spans: list[tuple[int, int]]
) -> None:
    """A text with few non-ASCII characters (one in sixteen or fewer), whose words view is
    spaced by C passes with its non-ASCII letters kept in place."""
    for at, fragment in inserted:
        pieces.insert(at % (len(pieces) + 1), fragment)
    text = "".join(pieces)
    text += " plain words" * len(text)  # (each non-ASCII fragment is a few characters)
    _assert_same_as_reference(text, spans)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sampled_from(FRAGMENTS), min_size=300, max_size=900).map("".join),
    st.lists(st.integers(0, 10_000), min_size=1, max_size=30),
)
def test_long_views_map_in_any_order(text: str, positions: list[int]) -> None:
    """Replacements are listed in chunks as far as the spans mapped so far need: a long text
    (thousands of replacements a view) mapped at random places, in any order, still maps
    every character like the reference."""
    views = Views(text)
    for name in VIEW_NAMES:
        view, expected = views.get(name), REFERENCE_VIEWS[name](text)
        for position in positions:
            index = position % max(len(view.text), 1)
            assert view.span(index, index + 3) == expected.span(index, index + 3), (name, index)
        got = [(view.offsets.start(i), view.offsets.end(i)) for i in range(len(view.text))]
        assert got == list(zip(expected.starts, expected.ends, strict=True)), name


def test_a_chunk_is_taken_while_its_first_replacement_can_stand_at_the_index() -> None:
    """Adjacent deletions share their new start: the one in the next chunk decides."""
    first = Edits.uniform([5], [7], 0)
    second = Edits.uniform([7], [9], 0, shift=-2)
    offsets = EditedMap(IdentityMap(), iter([first, second]))
    assert [offsets.start(i) for i in (4, 5, 6)] == [4, 9, 10]
