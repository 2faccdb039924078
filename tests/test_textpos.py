"""Offsets → 1-based line/column in code points."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from soulscan import textpos
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


QUESTIONS = st.tuples(st.sampled_from(("position", "location", "locations", "line_end", "line_text")),
                      st.integers(0, 10_000))


@pytest.mark.parametrize("stretch", [1, 3, 4096])
@given(text=st.text(alphabet="ab\n😀"), queries=st.lists(QUESTIONS, max_size=12))
def test_lazy_index_answers_like_splitting_whatever_the_order(
    stretch: int, text: str, queries: list[tuple[str, int]]
) -> None:
    """Newlines are searched only as far as questions reach, in any order: every answer is
    still the one splitting the whole text gives."""
    lines = text.split("\n")
    with mock.patch.object(textpos, "_FIRST_STRETCH", stretch):
        _check_answers(LineIndex.of(text), text, lines, queries)


def _check_answers(index: LineIndex, text: str, lines: list[str], queries: list[tuple[str, int]]) -> None:
    for question, number in queries:
        if question == "position":
            offset = number % (len(text) + 1)
            before = text[:offset].split("\n")
            assert index.position(offset) == (len(before), len(before[-1]) + 1)
            continue
        if question == "locations":  # spans out of text order; the lines met are remembered
            spans = [(at, at + number % 5) for at in range(number % 13, len(text) - 4, 1 + number % 7)]
            spans.reverse()
            assert index.locations(spans) == [location_of(text, *span) for span in spans]
            continue
        if question == "location":
            start = number % (len(text) + 1)
            end = start + number // 7 % (len(text) + 1 - start)
            before, through = text[:start].split("\n"), text[:end].split("\n")
            expected = Location(len(before), len(before[-1]) + 1, len(through), len(through[-1]) + 1)
            assert index.location(start, end) == expected
            continue
        line = number % len(lines) + 1
        start = sum(len(previous) + 1 for previous in lines[: line - 1])
        assert index.line_start(line) == start
        if question == "line_text":
            assert index.line_text(line) == lines[line - 1]
        else:
            limit = start + number % (len(lines[line - 1]) + 3)
            assert index.line_end(line, limit) == min(start + len(lines[line - 1]), limit, len(text))
    assert list(index.line_starts) == [0, *(i + 1 for i, char in enumerate(text) if char == "\n")]


@pytest.mark.parametrize("stretch", [1, 4096])
@given(text=st.text(alphabet="ab\n😀"), data=st.data())
def test_locations_are_each_spans_location(stretch: int, text: str, data: st.DataObject) -> None:
    """``locations`` answers for many spans at once what ``location`` answers for each,
    after other questions or before them, and refuses a span outside the text alike."""
    offsets = st.integers(-1, len(text) + 1)
    spans = data.draw(st.lists(st.tuples(offsets, offsets).map(sorted).map(tuple), max_size=8))
    asked_first = data.draw(st.integers(0, len(text)))
    with mock.patch.object(textpos, "_FIRST_STRETCH", stretch):
        index = LineIndex.of(text)
        index.position(asked_first)
        if all(0 <= start and end <= len(text) for start, end in spans):
            expected = [location_of(text, start, end) for start, end in spans]
            assert index.locations(spans) == expected
        else:
            with pytest.raises(ValueError):
                index.locations(spans)


def test_a_long_text_is_searched_only_as_far_as_asked() -> None:
    text = ("x" * 99 + "\n") * 100_000
    index = LineIndex.of(text)
    assert index.location(150, 160) == Location(2, 51, 2, 61)
    assert index.line_end(2, 10_000) == 199
    assert index._searched < 50_000  # what the laziness is for


@given(text=st.text(alphabet="aaaab\n😀\u200d"), data=st.data())
def test_spans_on_one_line_are_located_at_once(text: str, data: st.DataObject) -> None:
    """Spans that all lie on one line (hidden characters along it) get each its own
    location, and the line's start is remembered right for the excerpts."""
    newlines = [i for i, char in enumerate(text) if char == "\n"]
    low = data.draw(st.sampled_from([0, *(i + 1 for i in newlines)]))
    high = next((i for i in newlines if i >= low), len(text))
    offsets = st.integers(low, high)
    spans = data.draw(st.lists(st.tuples(offsets, offsets).map(sorted).map(tuple),
                               min_size=2, max_size=8))
    index = LineIndex.of(text)
    assert index.locations(spans) == [location_of(text, start, end) for start, end in spans]
    line = text.count("\n", 0, min(start for start, _ in spans)) + 1
    assert index.line_start(line) == low
