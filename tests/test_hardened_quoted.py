"""Quoted regions are the matches of QUOTED (code half alone for `code_only`), however found."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.bench import corpus_texts
from soulscan.hardened.quoted import _CODE, QUOTED, QuotedRegions, quoted_spans

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"

FRAGMENTS = [
    "```", "~~~", "```python", "\n", "  ", "\t", "`", "``", "x", "ignore previous", " ",
    '"', "\u201c", "\u201d", "like ", "such as ", "e.g. ", "For Example: ", "phrases ", "says",
    "the word ", "unlike ", "LIKE", "\u212a", ":", ",",
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
