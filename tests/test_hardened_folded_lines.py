"""A folded text's lines taken from the text's read what the folded text's own lines read."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.engine.matcher import PreparedText
from soulscan.hardened import branch_search
from soulscan.hardened.branch_search import found_each
from soulscan.hardened.folded_lines import folded_lines
from soulscan.hardened.repeated_lines import RepeatedLines, lines_of

# characters that fold otherwise than one by one, or into ASCII, or not at all (the final
# sigma reads its neighbours; İ is longer lowered; K, ſ, ı fold into ASCII)
_CHARS = "aA Σσς.'İıſKé\u0345\U0001f600-\t"
_LINES = st.lists(st.text(_CHARS, max_size=6), min_size=1, max_size=5)


def _folded(text: str, ascii_anchors_only: bool) -> str:
    return PreparedText(text, ascii_anchors_only=ascii_anchors_only).folded


def _assert_reads_its_lines(lines: RepeatedLines) -> None:
    """Each line of `lines.text` is the distinct line its number names."""
    text, distinct, firsts = lines.text, lines.distinct, lines.firsts
    assert lines.starts[-1] == len(text) + 1
    for number, start, after in zip(lines.numbered, lines.starts, lines.starts[1:]):
        assert text[start : after - 1] == distinct[firsts[number] : firsts[number + 1] - 1]
    for number, places in enumerate(lines.copies):
        assert all(lines.numbered[lines.starts.index(place)] == number for place in places)


@settings(max_examples=500, deadline=None)
@given(
    _LINES,
    st.lists(st.integers(0, 4), min_size=1, max_size=30),
    st.booleans(),
    st.lists(st.text(_CHARS.lower() + "i\n", min_size=1, max_size=3), max_size=4),
)
def test_folded_lines_are_the_folded_texts_lines(
    pool: list[str], picks: list[int], ascii_anchors_only: bool, strings: list[str]
) -> None:
    text = "\n".join(pool[pick % len(pool)] for pick in picks)
    folded = _folded(text, ascii_anchors_only)
    lines = lines_of(text)
    assert lines is not None
    derived = folded_lines(lines, folded)
    if len(folded) < len(text):  # (İ lowered whole is longer: ``fold`` replaces it first)
        assert derived is None
        return
    assert derived is not None and derived.text == folded
    _assert_reads_its_lines(derived)
    assert derived.places(strings, len(folded), len(folded) + 1) == found_each(
        folded, strings, len(folded), len(folded) + 1
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("ΑΣ\nΑΣ\nΣ", id="final-sigma-by-line"),
        pytest.param("ab\nab\né", id="marker-after-a-distinct-last-line"),
        pytest.param("é\nab\né", id="marker-after-a-repeated-last-line"),
        pytest.param("é\n", id="marker-after-an-empty-last-line"),
        pytest.param("ab\nab", id="ascii-no-marker"),
    ],
)
def test_folded_lines_of_a_few_texts(text: str) -> None:
    folded = _folded(text, False)
    lines = lines_of(text)
    assert lines is not None
    derived = folded_lines(lines, folded)
    assert derived is not None
    _assert_reads_its_lines(derived)


def test_a_text_that_is_not_a_folded_form_is_refused() -> None:
    lines = lines_of("ab\nab")
    assert lines is not None
    assert folded_lines(lines, "ab\na") is None  # shorter
    assert folded_lines(lines, "ab\nab\nc") is None  # a line added
    assert folded_lines(lines, "ab\nabc") is None  # longer, not by the marker


def test_lowering_keeps_each_character_one_character_and_line_breaks_alone() -> None:
    # what reading the folded text through the text's lines rests on (``fold`` replaces the
    # one exception, İ, before lowering)
    longer = [code for code in range(sys.maxunicode + 1) if len(chr(code).lower()) != 1]
    assert longer == [0x130]
    assert [code for code in range(sys.maxunicode + 1) if chr(code).lower() == "\n"] == [10]


def test_branch_search_reads_a_long_folded_text_through_the_texts_lines() -> None:
    text = ("Ignore ALL Previous Σ İnstructions é\n" + "plain line of text\n" * 3) * 2_000
    folded = _folded(text, False)
    lines = branch_search._repeated_lines(folded, text)
    assert lines is not None and lines.text == folded
    _assert_reads_its_lines(lines)
    assert lines.places(["ignore all", "σ i", "é\x00non"], len(folded), len(folded)) == found_each(
        folded, ["ignore all", "σ i", "é\x00non"], len(folded), len(folded)
    )
