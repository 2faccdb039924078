"""Where ``redact`` could change a text: literals every credential format needs.

A finding's excerpt shows a few dozen characters of its line, redacted as a neighbourhood
of a few kilobytes (``REDACTION_MARGIN``) would be. Running the twenty patterns of
``soulscan.hardened.secrets`` over that neighbourhood for every finding (or over a whole
megabyte line once) costs far more than the excerpt; one search for these anchors tells
almost always that there is nothing to redact.

Every pattern of ``SECRET_FORMATS`` and the ``secret = value`` assignment needs one of the
anchors below, matched by the same engine with the same case rule (``(?i)`` only where the
pattern has it), so a match of any of them anywhere, in any slice of the text, holds an
anchor: a stretch that holds none, and whose edges no anchor crosses, is one that ``redact``
leaves exactly as it is, and so is every piece of it.
"""

from __future__ import annotations

import bisect
import re

import regex

ANCHORS = regex.compile(
    r"-----BEGIN |AKIA|ASIA|ABIA|ACCA|gh[pousr]_|github_pat_|glpat-|xox[abposr]-"
    r"|hooks\.slack\.com/|discord|sk-|AIza|hf_|_live_|npm_|pypi-|:AA|gsk_|xai-"
    r"|(?i:api|access|secret|token|passw|pwd|auth)"
)
# The longest anchor ("hooks.slack.com/"); without full case folding a case-insensitive
# literal matches as many characters as it has.
LONGEST_ANCHOR = 16
# Every character an anchor can start with: the first characters of the literal anchors,
# and those of the ``(?i:...)`` ones in every case (U+017F LONG S folds to s). A stretch
# that holds none of them holds no anchor start (one C pass of ``re``: a file of emoji or
# hidden characters has no ASCII letter near its findings).
ANCHOR_STARTS = re.compile("[-:_AaPpSsTtdghnx\u017f]")
_BLOCK = 4096


class SecretScreen:
    """The anchors of one text, searched block by block as excerpts ask about them, so a
    megabyte file with findings near its start is searched near its start only."""

    __slots__ = ("_anchor_starts", "_free_from", "_free_to", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._anchor_starts: dict[int, list[int]] = {}
        # No anchor starts in [_free_from, _free_to): the neighbourhoods of findings in
        # file order overlap, so most questions are answered by the last one.
        self._free_from = self._free_to = 0

    def _block(self, number: int) -> list[int]:
        starts = self._anchor_starts.get(number)
        if starts is None:
            low = number * _BLOCK
            high = low + _BLOCK
            # Read on past the block so an anchor starting in it is found whole; searching
            # left to right, every position where an anchor starts lies inside a match
            # that starts at or before it, in the same block.
            reach = min(len(self.text), high + LONGEST_ANCHOR - 1)
            if ANCHOR_STARTS.search(self.text, low, high) is None:
                starts = self._anchor_starts[number] = []
            else:
                found = ANCHORS.finditer(self.text, low, reach)
                starts = self._anchor_starts[number] = [m.start() for m in found if m.start() < high]
        return starts

    def known_clear(self) -> tuple[int, int]:
        """``(low, high)``: no anchor starts in ``text[low:high]``, so ``clear(start, end)``
        holds whenever ``low <= start - LONGEST_ANCHOR + 1`` and ``min(end, len(text)) <= high``."""
        return self._free_from, self._free_to

    def clear(self, start: int, end: int) -> bool:
        """Whether ``redact`` leaves every slice of ``text[start:end]`` unchanged: no anchor
        starts inside it or reaches into it from the left."""
        low = max(0, start - LONGEST_ANCHOR + 1)
        end = min(end, len(self.text))
        if low >= end or self._free_from <= low and end <= self._free_to:
            return True
        if not self._free_from <= low <= self._free_to:
            self._free_from = self._free_to = low
        for number in range(self._free_to // _BLOCK, (end - 1) // _BLOCK + 1):
            starts = self._block(number)
            first = bisect.bisect_left(starts, self._free_to)
            if first < len(starts):
                self._free_to = starts[first]
                return self._free_to >= end
            self._free_to = min(len(self.text), (number + 1) * _BLOCK)
        return True
