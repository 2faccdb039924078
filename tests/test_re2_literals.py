"""An RE2 literal set (soulscan.engine.re2_literals) names exactly the literals ``in`` finds."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from soulscan.engine import re2_gate, re2_literals
from soulscan.engine.re2_gate import SetUnavailable
from soulscan.engine.re2_literals import LiteralSet, LiteralSetWhenDue, use_literal_sets

# Characters RE2 and UTF-8 could tell apart from ``str``: NUL, line breaks, a regex
# metacharacter, accents, a 4-byte character, an invisible one.
_ALPHABET = "ab .*\\\n\x00\u00e9e\u0301\U0001f600\u200b"
_LITERALS = st.lists(st.text(alphabet=_ALPHABET, max_size=4), max_size=12, unique=True)


@pytest.fixture(autouse=True)
def _default_mode() -> Iterator[None]:
    yield
    use_literal_sets()


@settings(max_examples=300, deadline=None)
@given(_LITERALS, st.text(alphabet=_ALPHABET, max_size=40))
@example(["", "a"], "")  # the empty literal is in every text
@example([".", "a*"], "a")  # metacharacters are literals
@example(["\u00e9", "e"], "e\u0301 ab")  # no normalisation: é is not e + combining acute
@example(["\U0001f600"], "\U0001f600a")  # mostly 4-byte characters
def test_a_set_names_exactly_the_literals_in_a_text(literals: list[str], text: str) -> None:
    found = LiteralSet(literals).present(text)
    if len(text.encode("utf-8")) > len(text) * re2_literals.MAX_BYTES_A_CHAR:
        assert found is None  # left to the pivot scans
    else:
        assert found == {literal for literal in literals if literal in text}


def test_a_set_that_cannot_say_answers_unsure(monkeypatch: pytest.MonkeyPatch) -> None:
    literals = LiteralSet(["abc"])
    assert literals.present("a\udc80b") is None  # not encodable as UTF-8
    # RE2 reports no match at all (not even the end-of-text pattern) when its DFA gives up
    monkeypatch.setattr(literals, "_match", lambda data: [])
    assert literals.present("xx abc") is None


def test_a_set_is_built_once_enough_text_is_looked_up() -> None:
    use_literal_sets(10)
    when_due = LiteralSetWhenDue(["abc"])
    assert when_due(6) is None
    built = when_due(6)
    assert built is not None and built.present("xabc") == {"abc"}
    assert when_due(1) is built
    use_literal_sets(None)
    assert when_due(100) is None


def test_processes_sharing_a_run_each_build_after_their_share_of_what_is_due() -> None:
    """``scan -j 2`` forks once 4 of 20 characters are looked up: each process builds its
    sets after 8 more of its own (the run's 20 in all), not after 16."""
    try:
        use_literal_sets(20)
        when_due = LiteralSetWhenDue(["abc"])
        assert when_due(4) is None
        re2_literals.share_literal_sets_due(2)
        assert when_due(7) is None
        assert when_due(1) is not None
        re2_literals.share_literal_sets_due(2)  # built: nothing left to share
        assert when_due(1) is not None
        use_literal_sets(None)
        re2_literals.share_literal_sets_due(2)  # never stays never
        assert re2_literals._DUE.after is None
    finally:
        use_literal_sets()


def _no_re2_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "re2", None)  # ``import re2`` raises ImportError


def _too_little_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(re2_gate, "SET_MEMORY", 1 << 10)


@pytest.mark.parametrize("no_set", [_no_re2_module, _too_little_memory])
def test_without_a_set_a_finder_is_told_none_for_good(
    monkeypatch: pytest.MonkeyPatch, no_set: Callable[[pytest.MonkeyPatch], None]
) -> None:
    no_set(monkeypatch)
    with pytest.raises(SetUnavailable):
        LiteralSet(["abc", "de"])
    use_literal_sets(0)
    when_due = LiteralSetWhenDue(["abc", "de"])
    assert when_due(10) is None
    assert when_due._refused
