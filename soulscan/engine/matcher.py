"""Run compiled rules over text, each search under a time limit.

The time limit is what keeps a hostile user pack (``(a+)+$`` and friends) from
hanging a scan: ``regex`` aborts the search and we report which rule gave up.
Built-in packs are linear by construction, so the limit never fires for them on
inputs of any size the scanner accepts; it is a guard, not a budget.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, Sequence

import regex

from soulscan.engine import anchors
from soulscan.engine.rulepack import Rule
from soulscan.errors import SoulscanError

DEFAULT_TIMEOUT_SECONDS = float(os.environ.get("SOULSCAN_RULE_TIMEOUT", "10"))


class RuleTimeoutError(SoulscanError):
    """A rule's pattern exceeded its time limit on some input."""

    def __init__(self, rule: Rule, seconds: float) -> None:
        super().__init__(
            f"rule {rule.id!r} of pack {rule.pack!r} exceeded its {seconds:g} s time limit "
            "(catastrophic backtracking?)"
        )
        self.rule = rule
        self.seconds = seconds


@functools.cache
def _compile_exact(source: str) -> regex.Pattern[str]:
    return regex.compile(source, regex.V1)


_CODEPOINT = r"\\(?:u([0-9a-f]{4})|U([0-9a-f]{8}))"
_SET_ITEM = regex.compile(f"{_CODEPOINT}(?:-{_CODEPOINT})?")


@functools.cache
def _guard_chars(guard: str) -> frozenset[str]:
    """The characters of a guard set as written by ``pyre._set_body``.

    Testing set membership of a text's distinct characters is ~100x faster than
    searching it with a regex over dozens of astral ranges.
    """
    chars: set[str] = set()
    for lo4, lo8, hi4, hi8 in _SET_ITEM.findall(guard):
        lo = int(lo4 or lo8, 16)
        hi = int(hi4 or hi8, 16) if (hi4 or hi8) else lo
        chars.update(chr(cp) for cp in range(lo, hi + 1))
    return frozenset(chars)


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@functools.cache
def _guard_parts(guard: str) -> tuple[re.Pattern[str] | None, frozenset[str]]:
    """The guard's BMP characters as one ``re`` set (a C bitmap test a character) and
    its astral ones as a set (``re`` would test dozens of astral ranges a character)."""
    chars = _guard_chars(guard)
    bmp = sorted(ord(ch) for ch in chars if ord(ch) <= 0xFFFF)
    ranges: list[list[int]] = []
    for cp in bmp:
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    body = "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in ranges)
    return (re.compile(f"[{body}]") if body else None,
            frozenset(ch for ch in chars if ord(ch) > 0xFFFF))


def text_needs_exact(text: str, guard: str) -> bool:
    """Does ``text`` hold a character on which a rule's quick variant may differ?"""
    if text.isascii():
        return False
    bmp, astral = _guard_parts(guard)
    if bmp is not None and bmp.search(text) is not None:
        return True
    return bool(astral) and _ASTRAL.search(text) is not None and not astral.isdisjoint(
        _ASTRAL.findall(text))


class PreparedText:
    """A text with what every rule's quick checks need, computed once per scan.

    ``ascii_anchors_only``: the caller only looks in ``folded`` for ASCII strings that hold
    neither ``?`` nor ``NON_ASCII``. Such a string occurs in ``fold(text)`` exactly where
    it occurs in ``text`` with each non-ASCII character read as ``?`` (``fold`` turns only
    four non-ASCII characters into ASCII ones; a text holding one of them is folded
    whole). That string is built in three C passes over one byte a character, where
    ``fold`` lower-cases every character of a wide string, and every later search of it
    reads one byte a character too.
    """

    def __init__(self, text: str, *, ascii_anchors_only: bool = False,
                 folded: str | None = None) -> None:
        self.text = text
        self._ascii_anchors_only = ascii_anchors_only
        # ``folded``: what the property below would compute, when the caller already knows
        self._folded: str | None = folded
        self._needs_exact: dict[str, bool] = {}
        # anchor -> does it occur (in the folded text / in the text): rules share anchors
        self._in_folded: dict[str, bool] = {}
        self._in_text: dict[str, bool] = {}

    @property
    def folded(self) -> str:
        if self._folded is None:
            text = self.text
            if text.isascii():
                self._folded = text.lower()  # ``fold`` changes nothing else in ASCII
            elif self._ascii_anchors_only and not anchors.folds_to_ascii(text):
                self._folded = text.encode("ascii", "replace").decode("ascii").lower()
            else:
                self._folded = anchors.fold(text) + anchors.NON_ASCII
        return self._folded

    def may_match(self, rule: Rule) -> bool:
        """False only when the rule provably cannot match (none of its anchors occurs)."""
        groups = rule.anchors
        if groups is None:
            return True
        return self.meets(anchors.checking_order(groups), rule.anchors_folded)

    def record_folded(self, known: dict[str, bool]) -> None:
        """Take whether each anchor of ``known`` occurs in ``folded`` from a scan that
        already looked (``known`` is kept: the caller hands over a dict of its own)."""
        if self._in_folded:
            self._in_folded.update(known)
        else:
            self._in_folded = known

    def known_absent(self, anchor: str, folded: bool) -> bool:
        """Has a check already found that ``anchor`` does not occur?"""
        return (self._in_folded if folded else self._in_text).get(anchor) is False

    def not_known_absent(self, anchors: Sequence[str], folded: bool) -> Sequence[str]:
        """``anchors`` without those a check has found not to occur."""
        seen = self._in_folded if folded else self._in_text
        return [anchor for anchor in anchors if seen.get(anchor) is not False]

    def meets(self, groups: anchors.Anchors, folded: bool) -> bool:
        """Does every group have a member in the text (its folded form when ``folded``)?"""
        haystack = (self._folded or self.folded) if folded else self.text
        seen = self._in_folded if folded else self._in_text
        # Plain loops: this runs for every rule on every text, and generator
        # expressions cost more than the substring tests themselves.
        for group in groups:
            for anchor in group:
                present = seen.get(anchor)
                if present is None:
                    present = seen[anchor] = anchor in haystack
                if present:
                    break
            else:
                return False
        return True

    def pattern_for(self, rule: Rule) -> regex.Pattern[str]:
        """The rule's quick variant, or its exact form when this text needs it."""
        if rule.exact_source is None:
            return rule.compiled
        guard = rule.exact_guard
        if guard is None:
            return _compile_exact(rule.exact_source)
        if guard not in self._needs_exact:
            self._needs_exact[guard] = text_needs_exact(self.text, guard)
        return _compile_exact(rule.exact_source) if self._needs_exact[guard] else rule.compiled


def folded_from_lower(lowered: str, ascii: bool) -> str:
    """``PreparedText(text).folded`` for a text whose lower case is `lowered`, as long as the
    text (no ``İ`` in it), and which is ASCII when `ascii`: ``fold`` lowers every character
    but ``İ``, then replaces two lower-case ones. A text a view lowered is not lowered again
    to be folded: lowering a lower-case text changes nothing (tests/test_hardened_views.py
    checks every code point)."""
    if ascii:
        return lowered
    return lowered.replace("\u0131", "i").replace("\u017f", "s") + anchors.NON_ASCII


def _prepared(text: str | PreparedText) -> PreparedText:
    return text if isinstance(text, PreparedText) else PreparedText(text)


def _time_limit(rule: Rule, timeout: float | None) -> float | None:
    if timeout is not None:
        return timeout
    return None if rule.trusted else DEFAULT_TIMEOUT_SECONDS


def rule_search(rule: Rule, text: str | PreparedText, *, timeout: float | None = None) -> bool:
    """True when the rule matches anywhere in ``text`` (already in the rule's view).

    Pass a ``PreparedText`` when running many rules over one text. ``timeout``
    defaults to ``DEFAULT_TIMEOUT_SECONDS`` for user packs and none for built-ins.
    """
    prepared = _prepared(text)
    if not prepared.may_match(rule):
        return False
    limit = _time_limit(rule, timeout)
    try:
        return prepared.pattern_for(rule).search(prepared.text, timeout=limit) is not None
    except TimeoutError as exc:
        raise RuleTimeoutError(rule, limit or 0.0) from exc


def rule_finditer(rule: Rule, text: str | PreparedText, *,
                  timeout: float | None = None) -> Iterator[tuple[int, int]]:
    """Every non-overlapping match of the rule in ``text`` as (start, end) offsets."""
    prepared = _prepared(text)
    if not prepared.may_match(rule):
        return
    limit = _time_limit(rule, timeout)
    try:
        for match in prepared.pattern_for(rule).finditer(prepared.text, timeout=limit):
            yield match.start(), match.end()
    except TimeoutError as exc:
        raise RuleTimeoutError(rule, limit or 0.0) from exc
