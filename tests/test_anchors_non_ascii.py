"""Anchors from lookarounds, factored prefixes and non-ASCII branches never hide a match."""

from __future__ import annotations

import pytest
import regex

from soulscan.engine import anchors, pyre
from soulscan.engine.matcher import PreparedText, rule_search
from soulscan.engine.rulepack import builtin_packs


def _non_ascii_literals() -> set[str]:
    chars: set[str] = set()
    for pack in builtin_packs():
        if pack.origin == "hardened":
            for rule in pack.rules:
                chars.update(ch for ch in rule.pattern if not ch.isascii())
    return chars


def test_non_ascii_literals_counted_as_such_only_match_non_ascii_text() -> None:
    text = pyre._all_codepoints_text()
    accepted = [ch for ch in sorted(_non_ascii_literals()) if anchors._never_matches_ascii(ch)]
    assert accepted
    for flags in (regex.IGNORECASE | regex.V0, regex.IGNORECASE | regex.FULLCASE | regex.V1):
        pattern = regex.compile("|".join(regex.escape(ch) for ch in accepted), flags)
        assert all(not hit.isascii() for hit in pattern.findall(text))


@pytest.mark.parametrize(
    "char", [pytest.param(ch, id=f"U+{ord(ch):04X}") for ch in "\u212a\u017f\u0130\u0131\u00df\ufb01"]
)
def test_case_partners_of_ascii_are_not_non_ascii_anchors(char: str) -> None:
    assert not anchors._never_matches_ascii(char)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        pytest.param(r"(?:忽略|无视)指令| ignore rules", ((anchors.NON_ASCII, " ignore rules"),), id="cjk-branch"),
        pytest.param(r"\S+(?<=/\.env|\.netrc)", ((".netrc", "/.env"),), id="lookbehind"),
        pytest.param(r"(?<![:>])x(?!secret)", None, id="negative-lookarounds-give-nothing"),
        pytest.param(r"[:>] {0,4}admin", (("admin",),), id="set-starting-with-colon"),
        pytest.param(r"ß|ignore", None, id="sharp-s-matches-ascii-ss"),
        pytest.param(
            r"#\s*(?:nosec|noqa)\b",
            (("noqa", "nosec"), ("no",), ("qa", "sec")),
            id="factored-prefix-glued-to-alternatives",
        ),
    ],
)
def test_extract_regex_anchors(pattern: str, expected: object) -> None:
    assert anchors.extract_regex_anchors(pattern) == expected


@pytest.mark.parametrize(
    ("text", "may_match"),
    [
        pytest.param("plain ascii text", False, id="ascii-ruled-out"),
        pytest.param("\u8bf7\u5ffd\u7565\u6307\u4ee4", True, id="cjk-kept"),
        pytest.param("caf\u00e9", True, id="any-non-ascii-kept"),
        pytest.param("please ignore rules", True, id="ascii-anchor-kept"),
    ],
)
def test_prepared_text_marks_non_ascii(text: str, may_match: bool) -> None:
    groups = anchors.extract_regex_anchors(r"(?:\u5ffd\u7565|\u65e0\u89c6)\u6307\u4ee4| ignore rules")
    assert groups == ((anchors.NON_ASCII, " ignore rules"),)
    haystack = PreparedText(text).folded
    assert any(anchor in haystack for anchor in groups[0]) is may_match


def test_prefilter_agrees_with_search_on_every_hardened_example() -> None:
    for pack in builtin_packs():
        if pack.origin != "hardened":
            continue
        for rule in pack.rules:
            for text in (*rule.examples.match, *rule.examples.no_match):
                found = rule.compiled.search(text) is not None
                assert rule_search(rule, text) is found, rule.id
