"""The search of a rule's whole pattern, as the gate builds one when it drops no branch."""

from __future__ import annotations

import regex

from soulscan.hardened import branch_search, pattern_reading


def whole_pattern_search(source: str, flags: int) -> branch_search.BranchSearch:
    """Its start strings, closing strings and leading lookbehind read from the pattern."""
    return branch_search.BranchSearch(
        regex.compile(source, flags),
        pattern_reading.starts_union([pattern_reading.leading_strings(source, flags)]),
        ends=pattern_reading.trailing_strings(source, flags),
        after=pattern_reading.leading_lookbehind(source, flags),
    )
