"""Offsets → 1-based line/column in code points."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from soulscan.models import Location
from soulscan.textpos import LineIndex, location_of


@pytest.mark.parametrize(
    ("text", "start", "end", "expected"),
    [
        pytest.param("abc", 0, 1, Location(1, 1, 1, 2), id="first-char"),
        pytest.param("abc", 3, 3, Location(1, 4, 1, 4), id="end-of-text"),
        pytest.param("ab\ncd", 3, 5, Location(2, 1, 2, 3), id="second-line"),
        pytest.param("ab\ncd", 1, 4, Location(1, 2, 2, 2), id="across-lines"),
        pytest.param("ab\n", 2, 3, Location(1, 3, 2, 1), id="newline-itself"),
        pytest.param("\ufeffab", 1, 2, Location(1, 2, 1, 3), id="bom-is-column-1"),
        pytest.param("😀x", 1, 2, Location(1, 2, 1, 3), id="astral-counts-one"),
        pytest.param("\n\n\nx", 3, 4, Location(4, 1, 4, 2), id="blank-lines"),
    ],
)
def test_location_of(text: str, start: int, end: int, expected: Location) -> None:
    assert location_of(text, start, end) == expected


@pytest.mark.parametrize(
    ("start", "end"),
    [pytest.param(-1, 0, id="negative"), pytest.param(0, 9, id="past-end"), pytest.param(2, 1, id="reversed")],
)
def test_bad_spans_raise(start: int, end: int) -> None:
    with pytest.raises(ValueError):
        location_of("abc", start, end)


@given(st.text(alphabet="ab\n😀"), st.data())
def test_position_agrees_with_splitting(text: str, data: st.DataObject) -> None:
    offset = data.draw(st.integers(0, len(text)))
    index = LineIndex.of(text)
    line, column = index.position(offset)
    before = text[:offset].split("\n")
    assert (line, column) == (len(before), len(before[-1]) + 1)
    assert index.line_text(line) == text.split("\n")[line - 1]
