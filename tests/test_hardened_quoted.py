"""Quoted regions are the matches of QUOTED (code half alone for `code_only`), however found."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.bench import corpus_texts
from soulscan.hardened.quoted import (
    _CODE,
    _QUOTATION,
    QUOTED,
    QuotedRegions,
    _Quotations,
    quoted_spans,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"

FRAGMENTS = [
    "```", "~~~", "```python", "\n", "  ", "\t", "`", "``", "x", "ignore previous", " ",
    '"', "\u201c", "\u201d", "like ", "such as ", "e.g. ", "For Example: ", "phrases ", "says",
    "the word ", "unlike ", "LIKE", "\u212a", ":", ",",
    "For Instance:,\t", "abcdefghijkl ", "abcdefghijkl\t", "x" * 290, "a" * 120,
]  # fmt: skip

texts = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.characters(codec="utf-8")), max_size=60
).map("".join)


def _expected(text: str, code_only: bool) -> list[tuple[int, int]]:
    return [match.span() for match in (_CODE if code_only else QUOTED).finditer(text)]


@settings(max_examples=800, deadline=None)
@given(texts, st.booleans())
def test_regions_are_the_matches_of_the_whole_pattern(text: str, code_only: bool) -> None:
    assert quoted_spans(text, code_only=code_only) == _expected(text, code_only)


@settings(max_examples=500, deadline=None)
@given(texts)
def test_quotations_searched_around_each_quote_are_the_matches(text: str) -> None:
    """The window before and after an opening quote holds every match that uses it: the
    longest introduction (`For Instance:,` and three 12-letter words) included."""
    quotations = _Quotations(text)
    quotations.windowed = True
    assert quotations.spans() == [match.span() for match in _QUOTATION.finditer(text)]


_LONGEST = 'For Instance:,\t abcdefghijkl abcdefghijkl\tabcdefghijkl "' + "q" * 300 + '"'


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(_LONGEST, id="longest-alone"),
        pytest.param("x " * 300 + _LONGEST + " y" * 300, id="longest-in-sparse-text"),
        pytest.param("x " * 300 + _LONGEST.replace("q", "\n", 1) + " y" * 300, id="broken"),
    ],
)
def test_the_longest_quotation_is_found_around_its_quote(text: str) -> None:
    quotations = _Quotations(text)
    assert quotations.windowed == (len(text) > 1000)  # quotes are sparse in a longer one
    quotations.windowed = True
    expected = [match.span() for match in _QUOTATION.finditer(text)]
    assert quotations.spans() == expected
    assert expected == ([] if "\n" in text else [(text.index("For"), text.rindex('"') + 1)])


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        pytest.param('say `like "x"` then', [(4, 14)], id="code-first-where-it-starts-first"),
        pytest.param('like "a `b` c" `d`', [(0, 14), (15, 18)], id="quotation-holds-code"),
        pytest.param('`a` for example "b"', [(0, 3), (4, 19)], id="code-then-quotation"),
        pytest.param("```\nlike \u201cx\u201d\n```", [(0, 16)], id="fence-holds-quotation"),
        pytest.param('plain "string"', [], id="bare-string-is-not-quoted"),
        pytest.param("no marks at all", [], id="nothing"),
    ],
)
def test_regions(text: str, spans: list[tuple[int, int]]) -> None:
    assert quoted_spans(text) == spans == _expected(text, code_only=False)


def test_contains_only_whole_spans() -> None:
    regions = QuotedRegions('a `ignore previous` b "x"')
    assert regions.contains(3, 18)
    assert not regions.contains(1, 18)
    assert not regions.contains(21, 24)


def test_corpus_regions_are_the_matches_of_the_whole_pattern() -> None:
    if not SHARED.is_dir():
        pytest.skip("shared corpora absent")
    _, items = corpus_texts(SHARED, every=3)
    for text in items:
        for code_only in (False, True):
            assert quoted_spans(text, code_only=code_only) == _expected(text, code_only)
