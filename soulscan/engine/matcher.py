"""Run compiled rules over text, each search under a time limit.

The time limit is what keeps a hostile user pack (``(a+)+$`` and friends) from
hanging a scan: ``regex`` aborts the search and we report which rule gave up.
Built-in packs are linear by construction, so the limit never fires for them on
inputs of any size the scanner accepts; it is a guard, not a budget.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

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


def rule_search(rule: Rule, text: str, *, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> bool:
    """True when the rule matches anywhere in ``text`` (already in the rule's view)."""
    try:
        return rule.compiled.search(text, timeout=timeout) is not None
    except TimeoutError as exc:
        raise RuleTimeoutError(rule, timeout) from exc


def rule_finditer(rule: Rule, text: str, *,
                  timeout: float = DEFAULT_TIMEOUT_SECONDS) -> Iterator[tuple[int, int]]:
    """Every non-overlapping match of the rule in ``text`` as (start, end) offsets."""
    try:
        for match in rule.compiled.finditer(text, timeout=timeout):
            yield match.start(), match.end()
    except TimeoutError as exc:
        raise RuleTimeoutError(rule, timeout) from exc
