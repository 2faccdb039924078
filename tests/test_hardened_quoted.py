"""Quoted regions are the matches of QUOTED (code half alone for `code_only`), however found."""

from __future__ import annotations

from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.bench import corpus_texts
from soulscan.engine.anchors import fold, folds_to_ascii
from soulscan.hardened import quoted
from soulscan.hardened.quoted import (
    _CODE,
    _QUOTATION,
    QUOTED,
    QuotedRegions,
    _may_hold_quotation,
    _Quotations,
    quoted_spans,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"

FRAGMENTS = [
    "```", "~~~", "```python", "\n", "  ", "\t", "`", "``", "x", "ignore previous", " ",
    '"', "\u201c", "\u201d", "like ", "such as ", "e.g. ", "For Example: ", "phrases ", "says",
    "the word ", "unlike ", "LIKE", "\u212a", ":", ",",
    "For Instance:,\t", "abcdefghijkl ", "abcdefghijkl\t", "x" * 290, "a" * 120,
    "\u0130", "\u017f", "PAYLOADS ", "Examples", "bloc", "k ", "e.g.\u2019", "\u00e9",
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


def _code_spans_read_as_sparse(text: str) -> list[tuple[int, int]]:
    """The code spans, tried from each backtick and tilde however many there are."""
    saved, quoted._SPARSE_HINTS = quoted._SPARSE_HINTS, 0
    quoted._code_spans.cache_clear()
    try:
        return list(quoted._code_spans(text))
    finally:
        quoted._SPARSE_HINTS = saved
        quoted._code_spans.cache_clear()


@settings(max_examples=800, deadline=None)
@given(texts, st.integers(0, 4))
def test_code_tried_from_each_backtick_and_tilde_is_the_matches(text: str, spaces: int) -> None:
    """From each backtick or tilde, at the places up to a fence's indent before it (read as
    sparse, however many there are)."""
    text = " " * spaces + text
    assert _code_spans_read_as_sparse(text) == _expected(text, code_only=True)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("   ```\nx\n   ```", id="fence-indented-three"),
        pytest.param("a\n \t ~~~ y\nb\n~~~\n", id="tilde-fence-after-a-line"),
        pytest.param("    ```\nx\n```", id="indented-four-is-no-fence"),
        pytest.param("`a` ``b`` ~ `c`", id="inline-and-lone-marks"),
    ],
)
def test_code_tried_from_each_mark_finds_fences_and_inline_code(text: str) -> None:
    assert _code_spans_read_as_sparse(text) == _expected(text, code_only=True)


@settings(max_examples=500, deadline=None)
@given(texts)
def test_quotations_searched_around_each_quote_are_the_matches(text: str) -> None:
    """The window before and after an opening quote holds every match that uses it: the
    longest introduction (`For Instance:,` and three 12-letter words) included."""
    quotations = _Quotations(text)
    quotations.windowed = True
    assert quotations.spans() == [match.span() for match in _QUOTATION.finditer(text)]


_INTRODUCTIONS = [
    "like", "such as", "e.g.", "for example", "for instance", "phrases", "strings", "pattern",
    "says", "reject", "rejects", "detects", "blocks", "flags", "examples", "attacks", "payloads",
]  # fmt: skip
quotations = st.tuples(
    st.sampled_from(["", "x", "(", "unlike"]),
    st.sampled_from(_INTRODUCTIONS).flatmap(
        lambda word: st.lists(st.sampled_from([0, 1]), min_size=len(word), max_size=len(word)).map(
            lambda upper: "".join(c.upper() if u else c for c, u in zip(word, upper))
        )
    ),
    st.text(alphabet=" \t:,", max_size=4),
    st.lists(
        st.text(alphabet="aZ\u212a", min_size=1, max_size=12).map(lambda w: w + " "), max_size=3
    ).map("".join),
    st.sampled_from(['"', "\u201c"]),
    st.text(alphabet='a "\u201d\n', min_size=1, max_size=5),
    st.sampled_from(['"', "\u201d"]),
).map("".join)


@settings(max_examples=800, deadline=None)
@given(st.lists(st.one_of(quotations, st.sampled_from(FRAGMENTS)), max_size=6).map("".join))
def test_quotation_pre_check_never_skips_a_quotation(text: str) -> None:
    if _QUOTATION.search(text):
        assert _may_hold_quotation(text)


def test_the_pre_check_reads_every_case_variant_of_a_letter_as_fold_does() -> None:
    """`_QUOTATION` matches a letter case-insensitively: with every character `fold` turns into
    that letter, which the pre-check reads folded."""
    everything = "".join(map(chr, range(0x110000)))
    for letter in "abcdefghijklmnopqrstuvwxyz":
        for variant in regex.findall(f"(?i){letter}", everything):
            assert fold(variant) == letter, hex(ord(variant))
            assert variant.isascii() or folds_to_ascii(variant)  # what the pre-checks ask


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
