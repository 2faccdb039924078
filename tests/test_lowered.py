"""A case-insensitive pattern rewritten for lower-cased text: exact on ASCII text, and on an
ASCII folding of other text it never misses a match."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.engine.lowered import lowered_pattern
from soulscan.engine.matcher import PreparedText
from soulscan.engine.rulepack import runtime_pack

RULES = [rule for rule in runtime_pack().rules if rule.anchors_folded]
LOWERED = [(rule.pattern, lowered) for rule in RULES
           if (lowered := lowered_pattern(rule.pattern, re.IGNORECASE)) is not None]
# Shapes the rewrite handles besides the runtime's: sets with letters, ranges across the
# upper case, negated sets, boundaries, lookarounds, a backslash class in a negated set.
SHAPES = [r"ab[A-Cx]d", r"xy[^aB]z", r"go[Z-c]+!", r"qq[^\s?]?\w", r"\bword\b", r"ab(?=C)c",
          r"ab(?!c)\w", r"key\s*[=:]\s*[\"'][A-Za-z0-9+/=_-]{3,}", r"(?:ab|CD)ef", r"xx\Bq",
          r"tt[^\d]", r"^st.rt", r"end$"]
SHAPED = [(shape, lowered) for shape in SHAPES
          if (lowered := lowered_pattern(shape, re.IGNORECASE)) is not None]

WORDS = sorted({word for rule in RULES for group in (rule.anchors or ()) for word in group}
               | {"now the", "don't have", "have no", "$KEY", "${token", "=", "'", '"', "?", ":",
                  "ab", "CD", "ef", "xy", "word", "go", "st", "end", "key", "tt", "qq"})
ASCII_TEXTS = st.lists(
    st.one_of(st.sampled_from(WORDS).map(str.upper), st.sampled_from(WORDS),
              st.text(st.characters(max_codepoint=0x7F), max_size=3)),
    max_size=30,
).map(" ".join)
# non-ASCII characters that keep the ASCII folding (none of them folds to an ASCII letter)
FOREIGN = st.sampled_from(["\u00e9", "\u2019", "\u00a0", "\u1680", "\u2003", "\u4e2d", "\U0001f600",
                           "\u200b", "\u0301", "\u00df", "\u0436"])
MIXED_TEXTS = st.lists(st.one_of(st.sampled_from(WORDS), FOREIGN,
                                 st.text(st.characters(max_codepoint=0x7F), max_size=3)),
                       max_size=30).map(lambda parts: "".join(parts))


def test_the_runtime_rules_that_start_with_literal_text_are_rewritten() -> None:
    exact = {pattern for pattern, lowered in LOWERED if lowered.exact is not None}
    assert len(exact) >= 15
    assert len(SHAPED) == len(SHAPES) - 1  # one refused: ``[^\s?]`` excludes ``?``


@settings(max_examples=400, deadline=None)
@given(ASCII_TEXTS)
def test_exact_on_ascii_text(text: str) -> None:
    folded = text.lower()
    for pattern, lowered in LOWERED + SHAPED:
        expected = [m.span() for m in re.finditer(pattern, text, re.IGNORECASE)]
        if lowered.exact is not None:
            assert [m.span() for m in lowered.exact.finditer(folded)] == expected, pattern
        if expected:
            assert lowered.filter.search(folded), pattern


@settings(max_examples=400, deadline=None)
@given(MIXED_TEXTS)
def test_the_filter_never_misses_a_match_on_an_ascii_folding(text: str) -> None:
    folded = PreparedText(text, ascii_anchors_only=True).folded
    assert folded.isascii()
    for pattern, lowered in LOWERED + SHAPED:
        if re.search(pattern, text, re.IGNORECASE):
            assert lowered.filter.search(folded), (pattern, text)


@pytest.mark.parametrize("pattern", [
    pytest.param(r"ab\u212aey", id="non-ascii-literal"),
    pytest.param(r"ab(?i:cd)", id="inline-flags"),
    pytest.param(r"ab(cd)\1", id="backreference"),
    pytest.param(r"a", id="too-short"),
    pytest.param(r"[ab]c(d|e)", id="no-literal-text"),
    pytest.param(r"ab[^?]", id="negated-set-holding-question-mark"),
    pytest.param(r"ab[^\S]", id="negated-class-holding-question-mark"),
    pytest.param(r"ab[^\x80-\xff]", id="non-ascii-range"),
])
def test_refused(pattern: str) -> None:
    assert lowered_pattern(pattern, re.IGNORECASE) is None


def test_only_case_insensitive_patterns() -> None:
    assert lowered_pattern("abc", 0) is None
    assert lowered_pattern("abc", re.IGNORECASE | re.MULTILINE) is None


def test_a_pattern_led_by_a_group_is_filtered_from_its_first_literal_text() -> None:
    lowered = lowered_pattern(r"(respond|answer)\s+without\s+limits", re.IGNORECASE)
    assert lowered is not None and lowered.exact is None
    assert lowered.filter.search("we answer without limits")
    assert lowered.filter.search("we never without limits")  # more than the pattern
    assert not lowered.filter.search("answer without rules")
