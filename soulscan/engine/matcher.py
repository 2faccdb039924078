"""Run compiled rules over text, each search under a time limit.

The time limit is what keeps a hostile user pack (``(a+)+$`` and friends) from
hanging a scan: ``regex`` aborts the search and we report which rule gave up.
Built-in packs are linear by construction, so the limit never fires for them on
inputs of any size the scanner accepts; it is a guard, not a budget.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator

import regex

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


def _pattern_for(rule: Rule, text: str) -> regex.Pattern[str]:
    """The rule's quick variant, or its exact form when the text needs it."""
    if rule.exact_source is None:
        return rule.compiled
    if rule.exact_guard is None or _compile_exact(rule.exact_guard).search(text):
        return _compile_exact(rule.exact_source)
    return rule.compiled


def rule_search(rule: Rule, text: str, *, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> bool:
    """True when the rule matches anywhere in ``text`` (already in the rule's view)."""
    try:
        return _pattern_for(rule, text).search(text, timeout=timeout) is not None
    except TimeoutError as exc:
        raise RuleTimeoutError(rule, timeout) from exc


def rule_finditer(rule: Rule, text: str, *,
                  timeout: float = DEFAULT_TIMEOUT_SECONDS) -> Iterator[tuple[int, int]]:
    """Every non-overlapping match of the rule in ``text`` as (start, end) offsets."""
    try:
        for match in _pattern_for(rule, text).finditer(text, timeout=timeout):
            yield match.start(), match.end()
    except TimeoutError as exc:
        raise RuleTimeoutError(rule, timeout) from exc
