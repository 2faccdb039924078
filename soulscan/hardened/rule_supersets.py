"""Rule out a live hardened rule's search in a view by one RE2 pass.

The gate (``soulscan.hardened.gate``) opens a rule when its anchors occur in a view; most
searches it opens then find nothing (26,307 of 30,575 over the corpora), each having found
its start strings and tried the pattern at their places, ~25 us apiece. A superset of the
rule's pattern (``soulscan.engine.re2_regex``: the pattern widened, and what its positive
lookarounds read, each found somewhere in every text the rule matches) read by RE2 says "no
match here" for most of them in ~1.4-2 ns a byte. Its matches are never used: only its
silence, and a pass that cannot say (a DFA that gave up, a text with a lone surrogate) reads
as "maybe", so the rule is searched as before.

One small set a rule, not one a view or a few: a pass costs RE2 about 1.4-2 ns a byte
whatever one rule it reads, but several rules together reach many more DFA states. A set of
all a view's rules costs 2-5 ns a byte once warm, 15-21 cold, and the words view's 15-18
either way; groups of two to four rules in pack order cost about what they spare (the
corpora's searches: 0.31 s cold, 0.25 warm one a rule; 0.31-0.45 and 0.26-0.29 by groups,
each pass answering for every rule of its group). Also measured over the corpora's searches
and not taken: a set of two rules often live together reads a text in little more than one
rule's time when timed alone, but within the pipeline the best 13 such pairs cost 0.44 s of
CPU where one set a rule costs 0.40; a set a branch of a rule's alternation, 5-7x slower
than its one set; counted repeats of over 8 or 4 copies made unbounded (not over 16, as
``re2_regex.LOOSE_ABOVE``), Latin-1 sets for ASCII texts, and 32 MB a set, not 4: no
faster (no DFA refills). The sets are built when the hardened literal sets are
(``soulscan.engine.re2_literals``: after the same million characters looked up, so a
one-file run never imports ``re2``), each at its rule's first search after that.

A long text is the exception (``LONG_TEXT_BYTES``): there a set of all a view's rules
(``ViewSuperset``, each pattern's index mapped back to its rule) answers for every one of
them in one pass, once at least half of them are live. A pass costs RE2 about one cache
miss a DFA state it reaches cold (``perf annotate``: two thirds of the DFA loop's samples
wait on a state's flags or next-state slot), and a set of several rules reaches many more
states (each rule's partial matches side by side): on a few kilobytes that costs more
than the passes it spares, on a long text the states are reached once and read many
times. Measured in the pipeline (2026-12-01) and not taken below that length: one set a
view for texts of 2 or more live rules up to 1 KB (3,037 passes in place of 9,499: the
same CPU), for 6 or more at any length (superset CPU 0.48-0.52 s against 0.49-0.53 one
set a rule), sets of the live rules themselves, built a combination at a time (K >= 4,
>= 8 KB: 0.38-0.41 s against 0.41-0.46 once warm, but 180 combinations at ~7 ms a build);
a view's whole set over every text outgrows 16 MB (80-140 ns a byte, DFA refills);
running a view's passes back to back, and supersets of the gate's live branches alone:
no faster. The adversarial near-misses (1 MB, 41 live rules), warm scans in the pipeline:
superset passes 57-79 -> 12-21 ms, the scan 0.53-0.55 -> 0.46-0.49 s; the corpora: 7 views
of texts over 64 KB answered by their set, 57 passes spared. The four sets are built (27 ms)
at a process's first long text after the sets are due, and that text reaches their DFA
states first: its scan pays 35-52 ms more at 128-256 KB of near-misses, about nothing at
1 MB; later ones gain 2-10 ms at 128-256 KB, 37-67 ms at 1 MB (CPU, side by side).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from soulscan.engine import re2_literals
from soulscan.engine.re2_literals import ScreenSet
from soulscan.engine.rulepack import Rule

# The memory of one rule's set: a process keeps one a rule (dozens), each DFA growing to
# its budget only on texts that keep reaching new states. A quarter of a whole set's budget
# (``re2_gate.SET_MEMORY``) reads the corpora about as fast: a pass that outgrows it refills
# its DFA, or gives up and answers "maybe".
RULE_SET_MEMORY = 4 << 20


# A text every plain one holds the like of: a superset pattern found in it says little (a
# space, a run of non-spaces, three letters) and may cost the pass more than the rest (what
# SS502's lookahead reads, three letters after a run of non-``<``, tripled its set's time
# over the corpora's searches and ruled out none of them that its widened pattern did not).
WEAK_PROBE = b"x x\nThe quick brown fox jumps over the lazy dog.\n"


class RuleSuperset(ScreenSet):
    """One rule's superset patterns (``re2_regex.regex_superset_sources``: each finds a
    match in every text the rule does) compiled as an RE2 set of ``RULE_SET_MEMORY``, with
    the end-of-text sentinel (``re2_literals.ScreenSet``)."""

    def __init__(self, sources: Sequence[str]) -> None:
        """Raises ``re2_gate.SetUnavailable`` when google-re2 is missing or refuses."""
        super().__init__(sources, RULE_SET_MEMORY)
        self.sources = tuple(sources)

    def may_match(self, data: bytes) -> bool:
        """False only when one of the patterns surely has no match in these UTF-8 bytes."""
        found = self._match(data)
        # without the sentinel the DFA gave up before the end: maybe; with it, every
        # pattern must be found
        return self._sentinel not in found or len(found) > self._sentinel


# From this many bytes of a view's text (UTF-8), a view's set answers for its live rules
# (``ViewSuperset``): the adversarial inputs of ``soulscan bench`` (256 KB and 1 MB) and
# the corpora's few items over 64 KB; a shorter text pays each rule's own pass.
LONG_TEXT_BYTES = 1 << 16


class ViewSuperset(ScreenSet):
    """The superset patterns of several rules (each one's ``RuleSuperset``) as one set of
    ``re2_gate.SET_MEMORY``: one pass says which of the rules may match."""

    def __init__(self, supersets: Sequence[tuple[str, RuleSuperset]]) -> None:
        """`supersets`: (rule id, its superset). Raises ``re2_gate.SetUnavailable`` when
        google-re2 is missing or refuses."""
        sources: list[str] = []
        owners: list[int] = []  # set index -> the number of its rule
        for number, (_, superset) in enumerate(supersets):
            sources += superset.sources
            owners += [number] * len(superset.sources)
        super().__init__(sources)
        self.rule_ids = tuple(rule_id for rule_id, _ in supersets)
        self._owners = tuple(owners)
        self._needed = tuple(len(superset.sources) for _, superset in supersets)

    def may_match(self, data: bytes) -> frozenset[str]:
        """The rules whose patterns are all found in these UTF-8 bytes (what each rule's
        own set says), or every rule when the DFA gave up before the end."""
        found = self.found(data)
        if found is None:
            return frozenset(self.rule_ids)
        counts = [0] * len(self.rule_ids)
        owners = self._owners
        for index in found:
            counts[owners[index]] += 1
        return frozenset(rule_id for rule_id, count, needed
                         in zip(self.rule_ids, counts, self._needed, strict=True)
                         if count == needed)


def view_superset_of(rules: Sequence[Rule]) -> ViewSuperset | None:
    """One set of the superset patterns of those of `rules` that have one (None: none
    has, or RE2 refuses the set)."""
    from soulscan.engine.re2_gate import SetUnavailable

    supersets = []
    for rule in rules:
        superset = superset_of(rule.regex_source, rule.regex_flags)
        if superset is not None:
            supersets.append((rule.id, superset))
    if not supersets:
        return None
    try:
        return ViewSuperset(supersets)
    except SetUnavailable:
        return None


@functools.cache
def superset_of(source: str, flags: int) -> RuleSuperset | None:
    """The superset set of a ``regex`` pattern, or None when it has none."""
    from soulscan.engine.re2_gate import SetUnavailable
    from soulscan.engine.re2_regex import regex_superset_sources

    widened = regex_superset_sources(source, flags)
    if widened is None:
        return None
    superset: RuleSuperset | None
    try:
        superset = RuleSuperset(widened)
        # a pattern found in a few plain characters rules out next to nothing (SS201's
        # widened pattern, its lookbehinds dropped: any run of non-spaces; the words
        # rules' trailing ``(?= )``): dropped, it costs the pass no DFA states
        weak = superset.found(WEAK_PROBE)
        if weak:
            strong = [source for index, source in enumerate(widened) if index not in weak]
            superset = RuleSuperset(strong) if strong else None
    except SetUnavailable:
        return None
    return superset


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
