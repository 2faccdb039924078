"""Findings at repeating places of a repeating text, whose excerpts repeat too.

A file of one hidden character among repeating emoji sequences lists a thousand joiners
on one line, every few of them the same neighbourhood again: span ``i`` and span
``i - period`` show the same text once the text repeats itself over every one of them.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TypeVar

# The longest period of places looked for (a period is a list comparison of the steps
# between places, left at the first difference).
MOST_PLACES_A_PERIOD = 32
_LEAD_STEPS = 8

_Item = TypeVar("_Item")


def places_period(starts: Sequence[int], ends: Sequence[int] | None) -> tuple[int, int] | None:
    """``(period, distance)``: the fewest places ``period`` (up to
    ``MOST_PLACES_A_PERIOD``) such that every span ``[starts[i], ends[i])`` from the
    ``period``-th on is the span ``period`` places before it moved on by one ``distance``
    > 0; None when there is none. ``ends`` None: each span is one character."""
    count = len(starts)
    if count < 2:
        return None
    steps = list(map(operator.sub, starts[1:], starts))
    widths: list[int] | None = None  # (worked out once a period's steps repeat)
    lead = steps[:_LEAD_STEPS]
    for period in range(1, min(MOST_PLACES_A_PERIOD, count - 1) + 1):
        # (each step and width the one ``period`` places before: the starts then move on by
        # one distance, the first step telling it, and the ends by the same; a few steps
        # compared first, so places with no period copy no long lists)
        if (steps[period : period + _LEAD_STEPS] == lead[: count - 1 - period]
                and steps[period:] == steps[:-period]):
            if ends is not None:
                if widths is None:
                    widths = list(map(operator.sub, ends, starts))
                if widths[period:] != widths[:-period]:
                    continue
            distance = starts[period] - starts[0]
            return (period, distance) if distance > 0 else None
    return None


def repeating_from(
    text: str, line_start: int, before: int, starts: list[int], ends: list[int] | None, reach: int
) -> tuple[int, int] | None:
    """``(period, first)``: the excerpt of every span from ``first`` on (``first`` <
    ``len(starts)``) is that of the span ``period`` places before; None when that is not
    known.

    An excerpt shows ``text`` from ``before`` characters before its span's start (cut at
    ``line_start``) to a fixed distance past its end, at most ``reach``, and is known by
    that text and the offsets of its pieces in it. Spans ``i`` and ``i - period`` show the
    same when the places repeat (``places_period``), neither before piece is cut, and the
    text repeats itself at the places' distance over all that is shown. ``ends`` None:
    each span is one character."""
    found = places_period(starts, ends)
    if found is None:
        return None
    period, distance = found
    # The turn from which the before piece of each span of a period is whole: span
    # ``j + turn * period`` starts at ``starts[j] + turn * distance``.
    uncut_from = line_start + before
    turn = max(0, max(-((start - uncut_from) // distance) for start in starts[:period]))
    first = (turn + 1) * period
    if first >= len(starts):
        return None
    low = max(line_start, min(starts) - before)
    if text[low + distance : reach] != text[low : reach - distance]:
        return None
    return period, first


def repeated(block: Sequence[_Item], count: int) -> list[_Item]:
    """``count`` items: ``block`` over and over, the last time cut short."""
    if not block:
        return []
    return (list(block) * (count // len(block) + 1))[:count]
