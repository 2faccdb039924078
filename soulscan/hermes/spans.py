"""Scanned units of a file and the decoded-file ranges that reach the model."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from soulscan.models import Span


class Region(NamedTuple):
    """One unit the runtime scans: a whole context file, or one memory entry.

    (A named tuple: one is built for every scanned file, several times quicker than a
    frozen dataclass.)"""

    text: str  # exactly the text the runtime passes to scan_for_threats
    offset: int  # code-point offset of text[0] in the decoded file text
    scope: str  # "context" | "strict"
    ids: tuple[str, ...]  # runtime finding ids for this unit (runtime order)
    effect: str  # "blocks-file" | "blocks-entry" | "none"
    scanned: Span | None  # decoded-file range inside the scan window; None if not scanned
    visible: tuple[Span, ...]  # decoded-file ranges of this unit that reach the model


def merge_spans(spans: Iterable[Span]) -> tuple[Span, ...]:
    """Sorted union of non-empty spans, overlapping or touching ones joined."""
    non_empty = [s for s in spans if s.end > s.start]
    if len(non_empty) <= 1:  # the common case: a file loaded whole
        return tuple(non_empty)
    merged: list[Span] = []
    for span in sorted(non_empty, key=lambda s: (s.start, s.end)):
        if merged and span.start <= merged[-1].end:
            merged[-1] = Span(merged[-1].start, max(merged[-1].end, span.end))
        else:
            merged.append(span)
    return tuple(merged)


def visible_spans(
    kept: Iterable[tuple[int, int]], segment_start: int, segment_length: int, source_offset: int
) -> tuple[Span, ...]:
    """File ranges of one segment of a section that survive the section's cut.

    ``kept`` are the section ranges that reach the output; the segment occupies
    ``[segment_start, segment_start + segment_length)`` of the section and starts
    at ``source_offset`` in the decoded file.
    """
    segment_end = segment_start + segment_length
    shift = source_offset - segment_start
    return merge_spans(
        Span(max(start, segment_start) + shift, min(end, segment_end) + shift)
        for start, end in kept
    )


def covered_length(spans: Iterable[Span]) -> int:
    if isinstance(spans, tuple) and len(spans) == 1:  # the common case: a file loaded whole
        return max(spans[0].end - spans[0].start, 0)
    return sum(span.end - span.start for span in merge_spans(spans))
