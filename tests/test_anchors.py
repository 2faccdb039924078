"""The literal-anchor prefilter never hides a match."""

from __future__ import annotations

import re
import sys

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.engine import anchors, matcher, pyre
from soulscan.engine.matcher import PreparedText, rule_search
from soulscan.engine.rulepack import builtin_packs, runtime_pack


@pytest.mark.parametrize("char", [chr(cp) for cp in range(0x20, 0x7F)])
def test_fold_sends_every_case_variant_of_an_ascii_char_to_one_form(char: str) -> None:
    variants = pyre._Translator("", re.IGNORECASE)._case_closure([ord(char)])
    assert {anchors.fold(chr(cp)) for cp in variants} == {char.lower()}


def test_fold_keeps_every_offset() -> None:
    text = pyre._all_codepoints_text()
    assert len(anchors.fold(text)) == len(text)
    assert all(len(anchors.fold(ch)) == 1 for ch in "\u0130\u0131\u017f\u212a\u03a3i\u0307")


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        pytest.param(r"ignore\s+(?:\w+\s+){0,8}(previous|all)\s+instructions",
                     (("instructions",), ("ignore",), ("all", "previous")), id="sequence"),
        pytest.param(r"\b(?:cobalt\s*strike|sliver)\b", (("cobalt", "sliver"),), id="branch"),
        pytest.param(r"\w+\s+x", None, id="no-literal"),
        pytest.param(r"(?:abc)?xy", (("xy",),), id="optional-group-is-not-required"),
    ],
)
def test_extract_anchors(pattern: str, expected: object) -> None:
    assert anchors.extract_anchors(pattern, re.IGNORECASE) == expected


VOCAB = sorted({
    word
    for rule in runtime_pack().rules
    for group in (rule.anchors or ())
    for word in group
} | {"İGNORE", "ıgnore", "ſend", "\u212aey", "you are now a", " ", "\n", "\x1c", "all", "the"})


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(VOCAB), st.text(max_size=3)), max_size=30))
def test_prefilter_agrees_with_plain_search(parts: list[str]) -> None:
    text = " ".join(parts)
    prepared = PreparedText(text)
    for pack in builtin_packs():
        for rule in pack.rules:
            plain = prepared.pattern_for(rule).search(text) is not None
            assert rule_search(rule, prepared) is plain, rule.id


def test_prefilter_agrees_on_rule_examples() -> None:
    for pack in builtin_packs():
        for rule in pack.rules:
            for text in (*rule.examples.match, *rule.examples.no_match):
                prepared = PreparedText(text)
                plain = prepared.pattern_for(rule).search(text) is not None
                assert rule_search(rule, prepared) is plain, (rule.id, text)


def test_exact_form_used_when_text_has_a_guard_character() -> None:
    guard = pyre.exactness_guard()
    if guard is None:
        pytest.skip("this interpreter's Unicode tables agree with regex's")
    odd = regex.compile(guard, regex.V1)
    sample = next(chr(cp) for cp in range(0x110000) if odd.match(chr(cp)))
    rule = runtime_pack().rule("prompt_injection")
    # Not a word character for Python 3.11's re, so it cannot be a filler word.
    text = f"ignore {sample} previous instructions"
    assert rule_search(rule, text) is (re.search(rule.pattern, text, re.IGNORECASE) is not None)


@pytest.mark.parametrize("char", [chr(cp) for cp in range(0x20, 0x7F)])
def test_fold_covers_regex_case_insensitive_variants(char: str) -> None:
    """Hardened packs use the regex module, whose case-insensitive matching differs."""
    text = pyre._all_codepoints_text()
    variants = regex.findall(regex.escape(char), text, flags=regex.IGNORECASE | regex.V0)
    assert {anchors.fold(v) for v in variants} == {char.lower()}


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"[[:alpha:]]+key", id="posix-class"),
        pytest.param(r"(?:ignore){e<=1}", id="fuzzy"),
        pytest.param(r"\p{L}+ignore", id="property"),
    ],
)
def test_regex_only_syntax_gets_no_anchors(pattern: str) -> None:
    assert anchors.extract_regex_anchors(pattern) is None


@pytest.mark.parametrize("where", ["bmp", "astral"])
def test_guard_characters_are_found_wherever_they_are(where: str) -> None:
    guard = pyre.exactness_guard()
    if guard is None:
        pytest.skip("this interpreter's Unicode tables agree with regex's")
    chars = sorted(matcher._guard_chars(guard))
    picked = [ch for ch in chars if (ord(ch) > 0xFFFF) == (where == "astral")]
    if not picked:
        pytest.skip(f"no {where} guard character on this interpreter")
    for ch in (picked[0], picked[len(picked) // 2], picked[-1]):
        assert matcher.text_needs_exact(f"caf\u00e9 \U0001f600 {ch} x", guard)
    assert not matcher.text_needs_exact("caf\u00e9 \U0001f600 \u4e2d x", guard)


def test_only_four_non_ascii_characters_fold_to_ascii() -> None:
    # ``PreparedText`` folds a text holding none of them by reading each non-ASCII
    # character as "?": no other one can become (part of) an ASCII anchor.
    turned = [chr(cp) for cp in range(0x80, sys.maxunicode + 1)
              if (folded := anchors.fold(chr(cp))) and (len(folded) != 1 or folded.isascii())]
    assert turned == list(anchors.FOLDS_TO_ASCII)
    assert all(anchors.folds_to_ascii(f"x{char}y") for char in turned)
    assert not anchors.folds_to_ascii("caf\u00e9 \u212b")
