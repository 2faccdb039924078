"""Rule out a live hardened rule's search in a view by one RE2 pass.

The gate (``soulscan.hardened.gate``) opens a rule when its anchors occur in a view; most
searches it opens then find nothing (33,285 of 37,431 over the corpora), each having found
its start strings and tried the pattern at their places, ~25 us apiece. A superset of the
rule's pattern (``soulscan.engine.re2_regex``) read by RE2 says "no match here" for most of
them in ~1.4-2 ns a byte. Its matches are never used: only its silence, and a pass that cannot
say (a DFA that gave up, a text with a lone surrogate) reads as "maybe", so the rule is
searched as before.

One small set a rule, not one a view or a few: a pass costs RE2 about 1.4-2 ns a byte
whatever one rule it reads, but several rules together reach many more DFA states. A set of
all a view's rules costs 2-5 ns a byte once warm, 15-21 cold, and the words view's 15-18
either way; groups of two to four rules in pack order cost about what they spare (the
corpora's searches: 0.31 s cold, 0.25 warm one a rule; 0.31-0.45 and 0.26-0.29 by groups,
each pass answering for every rule of its group). The sets are
built when the hardened literal sets are (``soulscan.engine.re2_literals``: after the same
million characters looked up, so a one-file run never imports ``re2``), each at its rule's
first search after that.
"""

from __future__ import annotations

import functools

from soulscan.engine import re2_literals
from soulscan.engine.rulepack import Rule

# The memory of one rule's set: a process keeps one a rule (dozens), each DFA growing to
# its budget only on texts that keep reaching new states. A quarter of a whole set's budget
# (``re2_gate.SET_MEMORY``) reads the corpora about as fast: a pass that outgrows it refills
# its DFA, or gives up and answers "maybe".
RULE_SET_MEMORY = 4 << 20


class RuleSuperset:
    """One rule's superset compiled as an RE2 set, with the end-of-text sentinel."""

    def __init__(self, source: str) -> None:
        """Raises ``re2_gate.SetUnavailable`` when google-re2 is missing or refuses."""
        from soulscan.engine.re2_gate import SetUnavailable, bytes_matcher, search_set

        re2, built = search_set(RULE_SET_MEMORY)
        try:
            built.Add(source)
            built.Add(r"\z")
            built.Compile()
        except re2.error as exc:  # a program over its memory (repeats of repeats)
            raise SetUnavailable(str(exc)) from exc
        self._match = bytes_matcher(built)

    def may_match(self, data: bytes) -> bool:
        """False only when the superset surely has no match in these UTF-8 bytes."""
        found = self._match(data)
        # [1]: the end of the text reached, nothing else found; [] or [0]: a DFA that
        # gave up (before the end), or a match
        return not (len(found) == 1 and found[0] == 1)


@functools.cache
def superset_of(source: str, flags: int) -> RuleSuperset | None:
    """The superset set of a ``regex`` pattern, or None when it has none."""
    from soulscan.engine.re2_gate import SetUnavailable
    from soulscan.engine.re2_regex import regex_superset_source

    widened = regex_superset_source(source, flags)
    if widened is None:
        return None
    try:
        superset = RuleSuperset(widened)
    except SetUnavailable:
        return None
    # one that a lone letter matches (SS201's: its lookbehinds dropped, any run of
    # non-spaces) rules out next to nothing: such a rule is searched without a pass first
    return None if superset.may_match(b"x") else superset


def due() -> bool:
    """Whether the sets are built now (with the hardened literal sets)."""
    return re2_literals.literal_sets_due()


def may_match(rule: Rule, data: bytes | None) -> bool:
    """False only when the rule's pattern surely has no match in the text whose UTF-8 form
    is ``data`` (None: a text with a lone surrogate, which RE2 cannot read)."""
    if data is None:
        return True
    superset = superset_of(rule.regex_source, rule.regex_flags)
    return superset is None or superset.may_match(data)
