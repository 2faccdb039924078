"""A view's superset set (``rule_supersets.ViewSuperset``, one RE2 pass for all of a view's
rules on a long text) says of each rule exactly what the rule's own set says, "maybe" for
every rule when its DFA gave up; the analysis that uses it finds every match the rules
find alone."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.strategies import scan_text

from soulscan.engine.matcher import PreparedText, rule_finditer
from soulscan.engine.re2_literals import use_literal_sets
from soulscan.hardened import rule_supersets
from soulscan.hardened.rule_supersets import ViewSuperset, superset_of
from soulscan.hardened.view_rules import ViewRules, hardened_rules, view_gate, view_superset
from soulscan.hardened.views import Views

TEXT_VIEWS = ("raw", "nfkc", "skeleton", "words")
_BY_ID = {rule.id: rule for rule in hardened_rules()}
EXAMPLES = [example for rule in hardened_rules()
            for example in (*rule.examples.match, *rule.examples.no_match)]


def _view_sets() -> list[ViewSuperset]:
    sets = [view_superset(view, kind) for view in TEXT_VIEWS for kind in ("agents", "memory")]
    return [superset for superset in sets if superset is not None]


def _each_rule_s_answer(superset: ViewSuperset, data: bytes) -> frozenset[str]:
    answers = set()
    for rule_id in superset.rule_ids:
        rule = _BY_ID[rule_id]
        own = superset_of(rule.regex_source, rule.regex_flags)
        assert own is not None
        if own.may_match(data):
            answers.add(rule_id)
    return frozenset(answers)


def test_every_view_has_a_set_of_its_rules_with_supersets() -> None:
    for view in TEXT_VIEWS:
        superset = view_superset(view, "agents")
        assert superset is not None
        with_superset = {gated[0].rule.id for gated in view_gate(view, "agents").rules
                         if superset_of(gated[0].rule.regex_source, gated[0].rule.regex_flags)}
        assert set(superset.rule_ids) == with_superset, view


def test_a_view_set_says_what_each_rule_s_set_says_of_the_examples() -> None:
    for superset in _view_sets():
        for example in EXAMPLES:
            data = example.encode("utf-8", "surrogatepass")
            assert superset.may_match(data) == _each_rule_s_answer(superset, data), example[:200]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(scan_text(), st.sampled_from(EXAMPLES)), min_size=1, max_size=6)
       .map("".join))
def test_a_view_set_says_what_each_rule_s_set_says_of_generated_text(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    for superset in _view_sets():
        assert superset.may_match(data) == _each_rule_s_answer(superset, data), text[:200]


def test_a_view_set_that_cannot_say_answers_maybe(monkeypatch: pytest.MonkeyPatch) -> None:
    superset = view_superset("words", "agents")
    assert superset is not None
    assert superset.may_match(b" nothing here ") == frozenset()
    # RE2 reports no match at all (not even the end-of-text pattern) when its DFA gives up
    monkeypatch.setattr(superset, "_match", lambda data: [])
    assert superset.may_match(b" nothing here ") == frozenset(superset.rule_ids)
    monkeypatch.setattr(superset, "_match", lambda data: [0])  # gave up after a find
    assert superset.may_match(b" nothing here ") == frozenset(superset.rule_ids)


@contextmanager
def _sets_due_and_long_from(long_text_bytes: int) -> Iterator[None]:
    """The RE2 sets built from the first lookup, and texts of at least this many bytes
    answered by their view's set."""
    use_literal_sets(0)
    saved = rule_supersets.LONG_TEXT_BYTES
    rule_supersets.LONG_TEXT_BYTES = long_text_bytes
    try:
        yield
    finally:
        rule_supersets.LONG_TEXT_BYTES = saved
        use_literal_sets()


def _assert_every_match_found(text: str, kind: str = "agents") -> ViewRules:
    view_rules = ViewRules(Views(text), kind)
    for view in TEXT_VIEWS:
        prepared = PreparedText(view_rules.views.get(view).text)
        for gated in view_gate(view, kind).rules:
            rule = gated[0].rule
            expected = list(rule_finditer(rule, prepared))
            assert view_rules.spans(rule) == expected, (rule.id, text[:200])
    return view_rules


def test_a_long_text_s_view_sets_rule_out_searches_and_keep_every_match() -> None:
    # every rule's near misses, many times over: many rules of a view are live, and some
    # match nowhere
    text = "\n".join(example for rule in hardened_rules() for example in rule.examples.no_match)
    text = text * (rule_supersets.LONG_TEXT_BYTES // len(text.encode()) + 1)
    with _sets_due_and_long_from(rule_supersets.LONG_TEXT_BYTES):
        view_rules = _assert_every_match_found(text)
    answered = {view: ruled_out for view, ruled_out in view_rules._ruled_out.items()
                if ruled_out is not None}
    assert any(answered.values())  # a view's set answered, and ruled some live rule out


@pytest.mark.parametrize("kind", ["agents", "memory"])
def test_view_sets_on_every_example_keep_every_match(kind: str) -> None:
    with _sets_due_and_long_from(0):
        for text in EXAMPLES:
            _assert_every_match_found(text, kind)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(EXAMPLES).map(lambda text: text[:150]), min_size=2, max_size=8)
       .map(" ".join))
def test_view_sets_on_spliced_examples_keep_every_match(text: str) -> None:
    with _sets_due_and_long_from(0):
        _assert_every_match_found(text)
