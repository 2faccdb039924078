"""Excerpts of findings at repeating places of a repeating text (``soulscan.report.repeats``)
are those worked out one at a time: each known repeat is the very excerpt of its own span."""

from __future__ import annotations

from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soulscan.report import excerpt as excerpt_module
from soulscan.report import repeats
from soulscan.report.excerpt import AFTER_LIMIT, BEFORE_LIMIT, FileExcerpts
from soulscan.textpos import LineIndex
from tests.test_file_excerpts import whole_line_excerpt

# Pieces of a repeating unit (no secret anchor, no newline): hidden characters, emoji,
# escapes' backslashes, plain letters.
UNIT_PIECES = ["a", "b", " ", "\\", "\t", "\u200d", "\u200b", "\u202e", "\U0001f468", "\ufe0f", "é", "x" * 9]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def repeating_lines(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    """A line of a unit repeated (after earlier lines and a lead-in), spans at the places
    of its marker in each unit (with a width), and at times one change that breaks the
    repetition: a character of the text or one span's place."""
    unit = draw(st.lists(st.sampled_from(UNIT_PIECES), min_size=1, max_size=8).map("".join)) + "\u200d"
    lead = draw(st.sampled_from(["", "line one\n", "a\n\nb "])) + draw(st.text(
        "ab \u200d", min_size=draw(st.sampled_from([0, 10, 45])), max_size=60))
    lead += unit * draw(st.integers(0, 30))  # (units without spans before those with them)
    listed = draw(st.integers(1, 30))  # units with spans; the units after them are shown too
    times = listed + draw(st.integers(0, 60))
    text = lead + unit * times + draw(st.sampled_from(["", "z" * 50, "z" * 50 + "\ntail"]))
    width = draw(st.integers(0, 3))
    offsets = sorted(set(draw(st.lists(st.integers(0, len(unit) - 1), min_size=1, max_size=3))))
    spans = [(len(lead) + turn * len(unit) + at, len(lead) + turn * len(unit) + at + width)
             for turn in range(listed) for at in offsets]
    change = draw(st.sampled_from(["none", "text", "span"]))
    if change == "text":
        # anywhere, or at the edges of what the first and last spans show
        edges = [spans[0][0] - BEFORE_LIMIT - 1, spans[0][0] - BEFORE_LIMIT, spans[-1][1] + AFTER_LIMIT]
        at = min(len(text) - 1, max(0, draw(st.one_of(st.integers(0, len(text) - 1), st.sampled_from(edges)))))
        text = text[:at] + draw(st.sampled_from(["q", "\u200c", "\\"])) + text[at + 1:]
    elif change == "span":
        at = draw(st.integers(0, len(spans) - 1))
        start, end = spans[at]
        spans[at] = (start + 1, end + 1)
    return text, [(start, min(end, len(text))) for start, end in spans if start <= len(text)]


@SETTINGS
@given(case=repeating_lines())
def test_repeating_excerpts_are_those_worked_out_one_at_a_time(case: tuple[str, list[tuple[int, int]]]) -> None:
    """The one-line path with repeats known == the same path working out each span's key
    == what each finding's line shows."""
    text, spans = case
    index = LineIndex.of(text)
    locations = [index.location(start, end) for start, end in spans]
    with mock.patch.object(excerpt_module, "LONG_LINE", 0):
        shown = FileExcerpts(text, LineIndex.of(text))._inside_one_line(locations)
        with mock.patch.object(excerpt_module, "repeating_from", lambda *args: None):
            one_at_a_time = FileExcerpts(text, LineIndex.of(text))._inside_one_line(locations)
    assert shown == one_at_a_time
    if shown is not None:
        assert shown == [whole_line_excerpt(text, location) for location in locations]


def _shown_key(text: str, line_start: int, start: int, end: int) -> tuple[str, int, int, int]:
    before = max(line_start, start - BEFORE_LIMIT - 1)
    after_end = end + AFTER_LIMIT + 1
    return text[before:after_end], start - before, end - before, after_end - before


@SETTINGS
@given(case=repeating_lines(), line_start=st.integers(0, 30))
def test_a_known_repeat_shows_the_same_text_at_the_same_offsets(
        case: tuple[str, list[tuple[int, int]]], line_start: int) -> None:
    """Every span from the first repeat on shows exactly what the span a period before
    shows (the text, its match's and after piece's offsets in it), whatever the line's start."""
    text, spans = case
    starts, ends = [start for start, _ in spans], [end for _, end in spans]
    if not starts or line_start > min(starts):
        return
    reach = max(ends) + AFTER_LIMIT + 1
    found = repeats.repeating_from(text, line_start, BEFORE_LIMIT + 1, list(starts), list(ends), reach)
    if found is None:
        return
    period, first = found
    assert 0 < period <= first < len(spans)
    for at in range(first, len(spans)):
        assert (_shown_key(text, line_start, starts[at], ends[at])
                == _shown_key(text, line_start, starts[at - period], ends[at - period]))


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), min_size=1, max_size=30))
def test_places_period_is_the_fewest_places_a_repeat(steps_and_widths: list[tuple[int, int]]) -> None:
    starts = [sum(step for step, _ in steps_and_widths[: at + 1]) for at in range(len(steps_and_widths))]
    ends = [start + width for start, (_, width) in zip(starts, steps_and_widths, strict=True)]

    def repeats_after(period: int) -> int | None:
        distances = {(starts[at] - starts[at - period], ends[at] - ends[at - period])
                     for at in range(period, len(starts))}
        if len(distances) != 1:
            return None
        ((distance, end_distance),) = distances
        return distance if distance == end_distance else None

    periods = [period for period in range(1, min(repeats.MOST_PLACES_A_PERIOD, len(starts) - 1) + 1)
               if repeats_after(period) is not None]
    expected = None
    if periods and repeats_after(periods[0]):  # (a distance of 0 is none)
        expected = periods[0], repeats_after(periods[0])
    assert repeats.places_period(starts, ends) == expected
    # (one-character spans: told without their ends)
    assert repeats.places_period(starts, None) == repeats.places_period(
        starts, [start + 1 for start in starts])


def test_a_thousand_joiners_of_emoji_sequences_repeat_their_excerpts() -> None:
    """A line of emoji sequences after a short lead-in: the excerpts repeat from the first
    period whose before pieces are whole, and are each the line's own."""
    text = "lead\n" + "\U0001f468\u200d\U0001f469\u200d\U0001f467 x\ufe0f " * 1200 + "end"
    index = LineIndex.of(text)
    spans = [(at, at + 1) for at, char in enumerate(text) if char == "\u200d"][:1000]
    found = repeats.repeating_from(text, 5, BEFORE_LIMIT + 1, [s for s, _ in spans], [e for _, e in spans],
                                   spans[-1][1] + AFTER_LIMIT + 1)
    # (a period of two joiners 9 characters apart; the first 5 periods start within 41
    # characters of the line's start, their before pieces cut there)
    assert found == (2, 12)
    locations = [index.location(start, end) for start, end in spans]
    shown = FileExcerpts(text, LineIndex.of(text))._inside_one_line(locations)
    assert shown == [whole_line_excerpt(text, location) for location in locations]
    assert repeats.repeated([1, 2, 3], 7) == [1, 2, 3, 1, 2, 3, 1] and repeats.repeated([], 3) == []
