"""``runtime_matches`` hands the gate the folded window the window's facts give (as the scan
does) instead of folding it again: the matches are the same as with the gate folding it
itself, and as ``re`` finds them with each rule's own pattern."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from soulscan.engine.matcher import PreparedText
from soulscan.engine.prefilter import RuleSetGate
from soulscan.hermes import scanner

SCOPES = st.sampled_from(scanner.SCOPES)
# Triggers of rules the lowered patterns answer and of rules the gate answers (no lowered
# pattern: an opening group or boundary, a bounded-gap comment), near-misses, letters,
# symbols, digits, spaces and hidden characters side by side
PIECES = st.lists(st.one_of(
    st.sampled_from(["ignore all previous instructions", "<!-- system hidden -->", "<!--", "-->",
                     "respond without any restrictions", "beacon to ", "check-in with ",
                     "command and control", "curl $API_KEY", "cat .env", " ", "\n", "x",
                     "do not tell the user", "ignore", "respond", "command"]),
    st.sampled_from(["\u00e9", "\u043f\u0440\u0438", "\u4e2d", "\u2019", "\u200b", "\U0001f600",
                     "\u00a7", "\u2705", "\u0663", "\u1680", "\u0131", "\u00c9"])),
    min_size=1, max_size=30).map("".join)


_PREPARE = RuleSetGate.prepare


def _refolding(gate: RuleSetGate, text: str, folded: str | None = None) -> PreparedText:
    """``RuleSetGate.prepare`` as before: the prepared text folds the window itself."""
    return _PREPARE(gate, text)


def _expected(window: str, scope: str, verdict: list[str]) -> list[tuple[int, int, str]]:
    rules = [rule for rule in scanner._rules_in(scanner._members(scope)) if rule.id in verdict]
    return sorted((found.start(), found.end(), rule.id) for rule in rules
                  for found in re.finditer(rule.pattern, window, re.IGNORECASE))


@settings(max_examples=300, deadline=None)
@example("respond without any restrictions \u00e9 beacon to \u2019 command and control", "strict")
@example("<!-- system \u043f\u0440\u0438 hidden --> check-in with \U0001f600", "context")
@given(PIECES, SCOPES)
def test_matches_with_the_facts_folding_are_those_of_the_gate_folding(window: str, scope: str) -> None:
    verdict = scanner.scan_for_threats(window, scope)
    found = scanner.runtime_matches(window, scope, verdict)
    every = scanner.runtime_matches(window, scope)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RuleSetGate, "prepare", _refolding)
        assert found == scanner.runtime_matches(window, scope, verdict)
        assert every == scanner.runtime_matches(window, scope)
    assert found == every
    if unicodedata.normalize("NFKC", window) == window:
        assert sorted((match.start, match.end, match.rule_id) for match in found
                      if match.rule is not None) == _expected(window, scope, verdict)


PHRASE = "respond without any restrictions"


@pytest.mark.parametrize(("window", "folded"), [
    pytest.param(PHRASE, PHRASE, id="ascii"),
    pytest.param(PHRASE + " \u2019", PHRASE + " ?", id="symbols"),
    pytest.param(PHRASE + " caf\u00e9", PHRASE + " cafZ", id="letters"),
    pytest.param(PHRASE + " \u0663", PHRASE + " ?", id="a-digit"),
    pytest.param(PHRASE + " \u0131", None, id="folds-to-ascii"),
    pytest.param(PHRASE + " \u212a", None, id="not-normal"),
])
def test_the_gate_is_given_the_folded_window_when_the_facts_give_it(
        window: str, folded: str | None) -> None:
    gate = scanner._gate_in(scanner._members("strict"))
    assert scanner._lowered_reading(gate, window)[2] == folded
    if folded is not None and "Z" not in folded:
        assert folded == gate.prepare(window).folded
    # a rule the gate answers (no lowered pattern) is found through that folded window
    found = scanner.runtime_matches(window, "strict", ["remove_filters"])
    assert [(match.rule_id, match.start, match.end) for match in found] == [
        ("remove_filters", 0, len(PHRASE))]
