"""Every example of every rule in every built-in pack: a rule cannot ship untested."""

from __future__ import annotations

import pytest

from soulscan.engine.rulepack import builtin_packs
from soulscan.engine.views import example_matches


def _cases() -> list[object]:
    cases = []
    for pack in builtin_packs():
        for rule in pack.rules:
            for i, text in enumerate(rule.examples.match):
                cases.append(pytest.param(rule, text, True, id=f"{pack.id}:{rule.id}:match{i}"))
            for i, text in enumerate(rule.examples.no_match):
                cases.append(pytest.param(rule, text, False, id=f"{pack.id}:{rule.id}:ok{i}"))
    return cases


@pytest.mark.parametrize(("rule", "text", "expected"), _cases())
def test_rule_example(rule: object, text: str, expected: bool) -> None:
    assert example_matches(rule, text) is expected  # type: ignore[arg-type]


def test_every_rule_has_examples_of_both_kinds() -> None:
    missing = [
        f"{pack.id}:{rule.id}"
        for pack in builtin_packs()
        for rule in pack.rules
        if not rule.examples.match or not rule.examples.no_match
    ]
    assert missing == []
