"""Offset maps of the hardened views: the original code points each view character came from.

A view is made from the text by a chain of rewrites (`soulscan.hardened.views`), and each
rewrite keeps a map to the text it rewrote. The map lists only the replacements that changed
the length, as sorted segments; every character between two of them is an identity stretch
(it maps to one character of the rewritten text) and costs nothing, however long. A character
of a replacement maps to the whole span the replacement took. A view character is mapped back
to the original by one bisect per rewrite of the chain.

Most views are matched without a span ever being mapped (no rule fires on them), so a rewrite
with a fixed replacement lists its replacements only when a span is mapped, and only as far
into the text as that span: building the view costs its `sub` pass alone.
"""

from __future__ import annotations

import itertools
import operator
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


class OffsetMap(Protocol):
    def start(self, index: int) -> int:
        """Original offset where view character `index` starts."""

    def end(self, index: int) -> int:
        """Original offset where view character `index` ends."""


class IdentityMap:
    """The text itself: character i is original character i."""

    def start(self, index: int) -> int:
        return index

    def end(self, index: int) -> int:
        return index + 1


@dataclass(frozen=True)
class ConstantMap:
    """Every character stands for the same original span (the words view of an empty text)."""

    start_at: int
    end_at: int

    def start(self, index: int) -> int:
        return self.start_at

    def end(self, index: int) -> int:
        return self.end_at


@dataclass(frozen=True)
class Edits:
    """Length-changing replacements, sorted: replacement k took [old_starts[k], old_ends[k])
    of the rewritten text and is `sizes[k]` characters at `new_starts[k]` of the new one."""

    old_starts: list[int]
    old_ends: list[int]
    new_starts: list[int]
    sizes: list[int]

    @classmethod
    def of(cls, replacements: Iterable[tuple[int, int, int]]) -> Edits:
        """From sorted, non-overlapping (old start, old end, new length) replacements."""
        edits = cls([], [], [], [])
        shift = 0
        for old_start, old_end, size in replacements:
            edits.old_starts.append(old_start)
            edits.old_ends.append(old_end)
            edits.new_starts.append(old_start + shift)
            edits.sizes.append(size)
            shift += size - (old_end - old_start)
        return edits

    @classmethod
    def uniform(
        cls, old_starts: list[int], old_ends: list[int], size: int, shift: int = 0
    ) -> Edits:
        """Every replacement `size` characters long, the text `shift` characters longer before
        the first: the new starts are running sums, worked out by C loops (a words view can
        hold a replacement every few characters)."""
        shortened = itertools.accumulate(map(operator.sub, old_starts, old_ends), initial=shift)
        added = itertools.count(0, size)
        new_starts = list(map(operator.add, map(operator.add, old_starts, shortened), added))
        return cls(old_starts, old_ends, new_starts, [size] * len(old_starts))


class EditedMap:
    """The map of a text rewritten from `parent`'s text by the replacements `chunks` lists, in
    order: a chunk is only taken when a character at or past its replacements is mapped."""

    def __init__(self, parent: OffsetMap, chunks: Iterable[Edits]) -> None:
        self.parent = parent
        self._chunks = iter(chunks)
        self._taken_all = False
        # Made at the first mapping: most maps are never asked (no rule fires on their view).
        self._edits: Edits | None = None

    def _taken_past(self, index: int) -> Edits:
        """The replacements taken so far, once chunks are taken until every replacement
        starting at or before `index` is known."""
        edits = self._edits
        if edits is None:
            edits = self._edits = Edits([], [], [], [])
        while not self._taken_all and (not edits.new_starts or edits.new_starts[-1] <= index):
            chunk = next(self._chunks, None)
            if chunk is None:
                self._taken_all = True
                break
            edits.old_starts.extend(chunk.old_starts)
            edits.old_ends.extend(chunk.old_ends)
            edits.new_starts.extend(chunk.new_starts)
            edits.sizes.extend(chunk.sizes)
        return edits

    def _in_parent(self, index: int) -> tuple[int, int]:
        """(first, last) character of the rewritten text that view character `index` came
        from; last = first - 1 for an inserted character (it replaced nothing)."""
        edits = self._taken_past(index)
        k = bisect_right(edits.new_starts, index) - 1
        if k < 0:
            return (index, index)
        offset = index - edits.new_starts[k]
        if offset < edits.sizes[k]:
            return (edits.old_starts[k], edits.old_ends[k] - 1)
        copied = edits.old_ends[k] + offset - edits.sizes[k]
        return (copied, copied)

    def start(self, index: int) -> int:
        return self.parent.start(self._in_parent(index)[0])

    def end(self, index: int) -> int:
        first, last = self._in_parent(index)
        # an inserted character stands at the start of what follows it
        return self.parent.end(last) if last >= first else self.parent.start(first)


@dataclass(frozen=True, init=False)
class PaddedMap:
    """`parent`'s text (`length` > 0 characters) with a space added before and/or after it;
    the added spaces are empty spans at its start and at its end."""

    parent: OffsetMap
    length: int
    lead: int  # 1 when a space was added before the text
    trail: bool

    def __init__(self, parent: OffsetMap, length: int, lead: int, trail: bool) -> None:
        # The fields written into the instance's dict, as `View` does: the frozen dataclass's
        # own __init__ sets each by object.__setattr__ (~6x as long; one map a words view).
        fields = self.__dict__
        fields["parent"] = parent
        fields["length"] = length
        fields["lead"] = lead
        fields["trail"] = trail

    def _added(self, index: int) -> int | None:
        """The original offset of an added space, None for a character of the text."""
        if index < self.lead:
            return self.parent.start(0)
        if self.trail and index - self.lead == self.length:
            return self.parent.end(self.length - 1)
        return None

    def start(self, index: int) -> int:
        added = self._added(index)
        return self.parent.start(index - self.lead) if added is None else added

    def end(self, index: int) -> int:
        added = self._added(index)
        return self.parent.end(index - self.lead) if added is None else added
