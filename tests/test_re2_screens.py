"""A screen set (soulscan.hardened.re2_screens) names the patterns that match, is built once
the literal sets are due, and says when it cannot answer."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.engine.re2_literals import ScreenSet, use_literal_sets
from soulscan.hardened.re2_screens import ScreenSetWhenDue

_SOURCES = ("ab+c", "^x", r"[0-9]{3}", r"c\n")


@pytest.fixture(autouse=True)
def _default_mode() -> Iterator[None]:
    yield
    use_literal_sets()


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=30).map(lambda data: bytes(b % 128 for b in data)) | st.text("abcx09\n").map(str.encode))
def test_a_set_names_the_patterns_that_match(data: bytes) -> None:
    expected = [i for i, source in enumerate(_SOURCES) if re.search(source.encode(), data)]
    found = ScreenSet(_SOURCES).found(data)
    assert found is not None and sorted(found) == expected


def test_a_set_that_cannot_say_answers_unsure(monkeypatch: pytest.MonkeyPatch) -> None:
    screens = ScreenSet(_SOURCES)
    # RE2 reports no match at all (not even the end-of-text pattern) when its DFA gives up
    monkeypatch.setattr(screens, "_match", lambda data: [])
    assert screens.found(b"abc") is None


def test_a_set_is_built_once_the_literal_sets_are_due() -> None:
    use_literal_sets(None)
    when_due = ScreenSetWhenDue(_SOURCES)
    assert when_due(b"abc") is None
    use_literal_sets(0)
    assert when_due(b"abc\n") == [0, 3]
    use_literal_sets(None)  # never again, as the literal sets
    assert when_due(b"abc") is None


def test_without_re2_a_set_is_none_for_good(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "re2", None)  # ``import re2`` raises ImportError
    use_literal_sets(0)
    when_due = ScreenSetWhenDue(_SOURCES)
    assert when_due(b"abc") is None
    assert when_due._refused
    monkeypatch.delitem(sys.modules, "re2")
    assert when_due(b"abc") is None
