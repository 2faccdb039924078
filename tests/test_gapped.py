"""The linear bounded-gap matcher reports exactly the spans ``re.finditer`` does."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.engine.gapped import bounded_gap
from soulscan.engine.rulepack import runtime_pack
from soulscan.fuzz.adversarial import nested_html_comments

RUNTIME_PATTERN = runtime_pack().rule("html_comment_injection").pattern
SMALL_PATTERN = r"<!--[^>]{0,5}(?:ab|cd|xyz)[^>]{0,4}-->"
CASED_CLOSER_PATTERN = r"<!--[^>]{0,5}(?:ab|cd|xyz)[^>]{0,4}X->"
CASED_OPENER_PATTERN = r"X<!--[^>]{0,5}(?:ab|cd|xyz)[^>]{0,4}-->"
PIECES = ["<!--", "X<!--", "x<!--", "-->", ">", "-", "--", "<", "!", " ", "a", "b", "c", "d", "ab", "cd", "xyz",
          "ignore", "IGNORE", "ıgnore", "İgnore", "ſystem", "secret", "hidden", "override",
          "system", "Hidden", "x" * 7, "\n", "X->", "x->"]


def spans_by_re(pattern: str, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(pattern, text, re.IGNORECASE)]


def spans_by_gap(pattern: str, text: str) -> list[tuple[int, int]]:
    gap = bounded_gap(pattern, re.IGNORECASE)
    assert gap is not None
    return list(gap.finditer(text))


@pytest.mark.parametrize("pattern", [RUNTIME_PATTERN, SMALL_PATTERN, CASED_CLOSER_PATTERN,
                                     CASED_OPENER_PATTERN])
@settings(max_examples=400, deadline=None)
@given(parts=st.lists(st.sampled_from(PIECES), max_size=40))
def test_equals_re_on_generated_text(pattern: str, parts: list[str]) -> None:
    text = "".join(parts)
    assert spans_by_gap(pattern, text) == spans_by_re(pattern, text)
    gap = bounded_gap(pattern, re.IGNORECASE)
    assert gap is not None
    assert gap.search(text) is (re.search(pattern, text, re.IGNORECASE) is not None)


@settings(max_examples=300, deadline=None)
@given(
    before=st.integers(min_value=505, max_value=520),
    after=st.integers(min_value=505, max_value=520),
    word=st.sampled_from(["ignore", "override", "OVERRIDE", "system", "secret", "hidden", "SYSTEM", "ſecret"]),
    opener_padding=st.sampled_from(["", "<!--", "x<!--y", ">"]),
    extra=st.sampled_from(["", ">", "-->", "<!-- ignore -->"]),
)
def test_equals_re_around_the_gap_bounds(before: int, after: int, word: str,
                                         opener_padding: str, extra: str) -> None:
    text = f"{opener_padding}<!--{'x' * before}{word}{'y' * after}-->{extra}"
    assert spans_by_gap(RUNTIME_PATTERN, text) == spans_by_re(RUNTIME_PATTERN, text)


@pytest.mark.parametrize(("before", "after", "matches"), [
    pytest.param(511, 511, True, id="511-511"),
    pytest.param(512, 512, True, id="512-512"),
    pytest.param(513, 0, False, id="513-before"),
    pytest.param(0, 513, False, id="513-after"),
    pytest.param(512, 513, False, id="512-513"),
])
def test_gap_bounds(before: int, after: int, matches: bool) -> None:
    text = f"<!--{'a' * before}hidden{'b' * after}-->"
    assert spans_by_gap(RUNTIME_PATTERN, text) == ([(0, len(text))] if matches else [])
    assert spans_by_re(RUNTIME_PATTERN, text) == spans_by_gap(RUNTIME_PATTERN, text)


@pytest.mark.parametrize("text", [
    pytest.param("<!--ab-->", id="word-right-after-the-opener"),
    pytest.param("ab<!--ab-->", id="a-word-before-the-opener"),
    pytest.param("<!--x<!--ab-->", id="a-later-opener-holds-the-word"),
    pytest.param("<!--abxxxxx<!--cd-->", id="the-first-opener-too-far"),
    pytest.param("<!--xxxxxxab-->", id="the-word-too-far-from-the-opener"),
    pytest.param("<!--abxxxxx-->", id="the-word-too-far-from-the-closer"),
    pytest.param("xab-->", id="no-opener"),
])
def test_words_are_read_from_the_first_opener_on(text: str) -> None:
    """Words are looked for only after the first opener's end and near the closer."""
    assert spans_by_gap(SMALL_PATTERN, text) == spans_by_re(SMALL_PATTERN, text)


def test_equals_re_on_the_adversarial_input() -> None:
    text = nested_html_comments(60_000)
    text = text[:30_000] + "--> <!-- a hidden b --> x >" + text[30_000:]
    assert spans_by_gap(RUNTIME_PATTERN, text) == spans_by_re(RUNTIME_PATTERN, text)


@pytest.mark.parametrize("pattern", [
    pytest.param(r"<!--[^>]{0,5}(?:ab|abc)[^>]{0,4}-->", id="a-word-prefixes-another"),
    pytest.param(r"<!--[^>]{0,5}(?:ab|cd)[^<]{0,4}-->", id="two-stop-characters"),
    pytest.param(r"<!--[^>]{0,5}(?:ab|cd)[^>]{0,4}--", id="closer-without-the-stop"),
    pytest.param(r"<!-->[^>]{0,5}(?:ab|cd)[^>]{0,4}-->", id="stop-inside-the-opener"),
    pytest.param(r"<!--[^>]*(?:ab|cd)[^>]{0,4}-->", id="unbounded-gap"),
    pytest.param(r"<!--[^a]{0,5}(?:xb|cd)[^a]{0,4}--a", id="stop-with-case"),
    pytest.param(r"<!--[^>]{0,5}(?:ab|c.)[^>]{0,4}-->", id="word-not-literal"),
    pytest.param(r"ignore\s+instructions", id="other-shape"),
])
def test_other_shapes_are_left_to_the_regex(pattern: str) -> None:
    assert bounded_gap(pattern, re.IGNORECASE) is None


@pytest.mark.parametrize("rule", runtime_pack().rules, ids=lambda rule: rule.id)
def test_a_stored_shape_is_the_one_worked_out_afresh(rule: object) -> None:
    """bounded_gap reads a pattern's shape from a persistent memo (marshal form on disk):
    it equals the shape parsed now, for every runtime rule (with or without the shape)."""
    import marshal

    from soulscan.engine import gapped

    pattern, flags = rule.pattern, re.IGNORECASE  # type: ignore[attr-defined]
    fresh = gapped._shape.__wrapped__(pattern, flags)  # type: ignore[attr-defined]
    assert marshal.loads(marshal.dumps(fresh)) == fresh
    assert gapped._shape(pattern, flags) == fresh
    gap = bounded_gap(pattern, flags)
    assert (gap is not None) == (fresh is not None and pattern.count("[^") >= 2)
    if gap is not None and fresh is not None:
        opener, words, closer, stop, before, after, parsed_flags = fresh
        assert gap.longest_word == max(map(len, words))
        assert (gap.opener_length, gap.closer_length, gap.stop, gap.before, gap.after) == (
            len(opener), len(closer), stop, before, after)
        assert gap.words.flags == re.compile("", parsed_flags).flags
