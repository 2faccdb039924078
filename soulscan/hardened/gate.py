"""Which hardened rules, and which of their branches, can match one view of a text.

A rule's own anchors (``soulscan.engine.anchors``) are proven for the whole pattern, so a rule
written as a long alternation gets only the union of its branches' weakest words (`SS101`:
one of `ignore`, `prompt`, `rules`, ...), and its regex then tries every branch at every
position. Here each top-level branch gets its own most selective requirement; a rule runs only
when one of its branches meets its requirement, and then only with those branches: a branch
whose anchors are absent cannot match anywhere in the text, so dropping it changes no match.

Each requirement is tested by one group of anchors, the least likely to occur (and by any
other group whose anchors are looked up anyway), and each distinct anchor of a view is looked up once per text
(``soulscan.hardened.anchor_finder``). Only the tests a found anchor opens are evaluated.
Each live rule comes with the search of its live branches (``soulscan.hardened.branch_search``),
which tries them only where a match can start.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import regex

from soulscan.engine import cache
from soulscan.engine.anchors import NON_ASCII, Anchors, extract_regex_anchors, fold, rarity
from soulscan.engine.matcher import PreparedText
from soulscan.engine.rulepack import Rule
from soulscan.hardened.anchor_finder import AnchorFinder, pivot_finder, token_finder
from soulscan.hardened.branch_search import BranchSearch
from soulscan.hardened.pattern_reading import (
    Starts,
    leading_lookbehind,
    leading_strings,
    starts_union,
    trailing_strings,
)


def split_alternatives(source: str, flags: int) -> list[str] | None:
    """The top-level branches of a pattern, or None when it cannot be split safely.

    A global inline flag (`(?i)...`) applies to every branch, verbose patterns may hide a `|`
    in a comment, V1 sets nest, and dropping a branch renumbers the groups a back-reference
    names: none of these is split.
    """
    if flags & (regex.VERBOSE | regex.V1) or _UNSPLITTABLE.search(source):
        return None
    branches: list[str] = []
    depth = start = index = 0
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index = _set_end(source, index)
            if index < 0:
                return None
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            branches.append(source[start:index])
            start = index + 1
        index += 1
    if depth != 0:
        return None
    branches.append(source[start:])
    return branches


def _set_end(source: str, index: int) -> int:
    """Index of the `]` closing the set opened at `index` (a V0 set: no nesting), or -1."""
    index += 1
    if source.startswith("^", index):
        index += 1
    if source.startswith("]", index):
        index += 1  # a leading `]` is a literal
    while index < len(source):
        if source[index] == "\\":
            index += 2
            continue
        if source.startswith("[:", index):
            close = source.find(":]", index + 2)
            if close < 0:
                return -1
            index = close + 2
            continue
        if source[index] == "]":
            return index
        index += 1
    return -1


_UNSPLITTABLE = regex.compile(r"\(\?[a-zA-Z]+\)|\\[1-9]|\(\?P=|\\g<|\(\?\(")


@dataclass(frozen=True)
class GatedRule:
    """A hardened rule split into branches, with what each branch needs to occur."""
    rule: Rule
    branches: tuple[str, ...]
    whole: Requirement  # the rule's own anchors, for a rule that is not split
    requirements: tuple[Requirement, ...]  # one a branch
    # each branch's start strings, folded, when the gate looks them up: one of them occurs
    # in every text the branch matches
    start_groups: tuple[frozenset[str] | None, ...] = (None,)


Requirement = tuple[frozenset[str], ...] | None  # every group needs a member; None: no test


def _groups(anchors: Anchors | None) -> Requirement:
    return None if anchors is None else tuple(frozenset(group) for group in anchors)


# What a rule's gating is worked out from (``_gate_fields``): its pattern, flags, anchors,
# whether they hold on the folded text (not for a python-re rule) and its view.
RuleKey = tuple[str, int, tuple[tuple[str, ...], ...] | None, bool, str]
# A GatedRule's fields after its rule: branches, whole, requirements, start groups.
GatedFields = tuple[tuple[str, ...], Requirement, tuple[Requirement, ...],
                    tuple[frozenset[str] | None, ...]]


def gated_rule(rule: Rule) -> GatedRule:
    return GatedRule(rule, *_gate_fields(*_rule_key(rule)))


def _rule_key(rule: Rule) -> RuleKey:
    gateable = rule.anchors_folded and rule.exact_source is None
    return (rule.regex_source, rule.regex_flags, rule.anchors, gateable, rule.view)


def _gate_fields(source: str, flags: int, anchors: tuple[tuple[str, ...], ...] | None,
                 gateable: bool, view: str) -> GatedFields:
    if not gateable:
        # A python-re rule: its anchors may hold on the unfolded text only, and its pattern
        # may be a quick variant; the matcher's own checks run it (analyze.py).
        return (source,), None, (None,), (None,)
    branches = _branches(source, flags)
    if branches is None or len(branches) == 1:
        return (source,), _groups(anchors), (None,), (_start_group(view, source, flags),)
    requirements = tuple(_groups(extract_regex_anchors(branch)) for branch in branches)
    starts = tuple(_start_group(view, branch, flags) for branch in branches)
    return branches, None, requirements, starts


# The views whose start strings the gate looks up: the words view's are words, looked up
# by set intersections with its token index (``anchor_finder.TokenFinder``); in the other
# views each would add stops to a pivot scan, which costs about what its absence spares.
# (Looked up by the RE2 literal sets, ``soulscan.engine.re2_literals``, they spare about what
# they add too: every view's start strings, corpora CPU 3.33-3.62 s, without 3.39-3.63 s.)
START_STRING_VIEWS = frozenset({"words"})


def _start_group(view: str, branch: str, flags: int) -> frozenset[str] | None:
    """The start strings of a branch of a rule of `view` (``pattern_reading.leading_strings``), folded:
    every match holds one, so a text whose folded form holds none has no match of the
    branch (folding keeps each character's place and folds it as it would alone). None when
    they are not looked up, unknown, or one holds a capital sigma (it lowers by context)."""
    if view not in START_STRING_VIEWS:
        return None
    starts = leading_strings(branch, flags)
    if starts is None or any("\u03a3" in string for string in starts.strings):
        return None
    return frozenset(fold(string) for string in starts.strings)



@cache.persistent  # read character by character for every hardened rule at start-up
def _branches(source: str, flags: int) -> tuple[str, ...] | None:
    branches = split_alternatives(source, flags)
    return None if branches is None else tuple(branches)


Test = tuple[frozenset[str], ...]  # every group needs a member in the text; () always passes


# How much rarer an anchor is for each step of ``anchors.rarity`` (19 a character plus its
# frequency rank, a common word a quarter): e times rarer every 40, about a character of
# middling frequency. (20-45 leave about as few superset passes over the corpora; 60 and
# over, favouring small groups of short anchors, more.)
RARITY_SCALE = 40


def _likelihood(group: frozenset[str]) -> float:
    """How likely a text holds one of the anchors (each's chance added up), relatively."""
    return sum(math.exp(-rarity(anchor) / RARITY_SCALE) for anchor in group)


def _cheapest(groups: Requirement, searched: set[str]) -> frozenset[str] | None:
    """The group a requirement is tested by: the one least likely to occur in a text
    (``_likelihood``), then the one adding fewest lookups to `searched`. Testing fewer
    groups than a requirement has is sound, and testing more costs more lookups than it
    spares: with every group's anchors in the RE2 literal sets, 19,210 superset passes over
    the corpora were left of 37,431 (the length choice below), and the literal passes cost
    about what those spared; adding the groups of a likelihood under 0.01 spares 29 of
    30,575. (By length alone, spaces aside, fewest lookups first among groups of 6
    characters or more: 37,431 passes reading 148 MB, where this leaves 30,575 reading
    127 MB; by the likeliest anchor alone, 33,729.)"""
    if not groups:
        return None
    return min(groups, key=lambda group: (_likelihood(group), len(group - searched), sorted(group)))


def _test(groups: Requirement, chosen: frozenset[str] | None, searched: set[str]) -> Test:
    """The chosen group, and every other group whose anchors are searched for anyway."""
    if not groups or chosen is None:
        return ()
    return (chosen, *sorted((g for g in groups if g != chosen and g <= searched), key=sorted))


# A view's plan (``_plan``): each rule's GatedFields, each rule's test numbers (the whole
# rule's, each branch's), the tests, and every anchor and start string looked up.
Plan = tuple[tuple[GatedFields, ...], tuple[tuple[int, tuple[int, ...]], ...], tuple[Test, ...],
             frozenset[str]]


@cache.persistent_depending_on("soulscan.engine.anchors", "soulscan.hardened.pattern_reading")
def _plan(rules: tuple[RuleKey, ...]) -> Plan:
    """What a ViewGate of these rules tests, worked out once per machine (plain data: ~4 ms
    of every start for the hardened rules' four views), not at each start."""
    gated = [_gate_fields(*rule) for rule in rules]
    # Requirements with the fewest choices pick first; later ones prefer the anchors
    # already searched for.
    requirements = sorted(
        {groups for _, whole, branch_requirements, _ in gated
         for groups in (whole, *branch_requirements) if groups},
        key=lambda groups: (min(map(len, groups)), sorted(map(sorted, groups))),
    )
    searched: set[str] = set()
    chosen: dict[Requirement, frozenset[str] | None] = {None: None}
    for groups in requirements:
        chosen[groups] = _cheapest(groups, searched)
        searched |= chosen[groups] or set()
    # Every start string is looked up too, and each branch's are one more group of its
    # test: a live rule then searches only those that occur, and a branch whose start
    # strings are all absent is not live.
    searched.update(string for *_, start_groups in gated for group in start_groups for string in group or ())
    # Branches often share a test (the same verbs, the same script): each runs once.
    tests: dict[Test, int] = {}

    def number(groups: Requirement, start: frozenset[str] | None = None) -> int:
        test = _test(groups, chosen[groups], searched)
        if start is not None:
            test = (*test, start)
        return tests.setdefault(test, len(tests))

    numbers = tuple(
        (number(whole), tuple(map(number, branch_requirements, start_groups)))
        for _, whole, branch_requirements, start_groups in gated
    )
    return tuple(gated), numbers, tuple(tests), frozenset(searched)


class ViewGate:
    """The rules of one view that can match a text, each with only its possible branches."""

    def __init__(self, rules: Sequence[Rule], view: str) -> None:
        fields, numbers, tests, searched = _plan(tuple(map(_rule_key, rules)))
        self.rules = tuple(
            (GatedRule(rule, *rule_fields), whole, branch_tests)
            for rule, rule_fields, (whole, branch_tests) in zip(rules, fields, numbers, strict=True)
        )
        self._tests = tests
        self.anchors = frozenset(searched - {NON_ASCII})
        self._view = view
        self._built_finder: AnchorFinder | None = None  # see ``_finder``
        # A test can pass only when a member of its first group occurs: the anchors found
        # pick out the few tests worth evaluating, and each passed test the branches it opens.
        self._always = frozenset(index for index, test in enumerate(self._tests) if not test)
        opened_by: dict[str, set[int]] = {}
        for index, opener in enumerate(self._tests):
            for anchor in opener[0] if opener else ():
                opened_by.setdefault(anchor, set()).add(index)
        self._opened_by = {anchor: frozenset(indexes) for anchor, indexes in opened_by.items()}
        branches_of: dict[int, list[tuple[int, int]]] = {}
        for rule_index, (_, _, branch_tests) in enumerate(self.rules):
            for branch, test_index in enumerate(branch_tests):
                branches_of.setdefault(test_index, []).append((rule_index, branch))
        self._branches_of = {index: tuple(pairs) for index, pairs in branches_of.items()}
        self._searches: dict[tuple[int, tuple[int, ...]], BranchSearch] = {}
        # the live rules by the anchors found (the same dict for every text with those),
        # and by the tests those passed (texts with other anchors often pass the same)
        self._looked_up = frozenset(searched)
        self._live: dict[frozenset[str], dict[str, BranchSearch]] = {}
        self._live_by_tests: dict[frozenset[int], dict[str, BranchSearch]] = {}
        # start string -> the anchors it holds once folded (``anchors_inside``)
        self._held: dict[str, frozenset[str]] = {}

    def _finder(self) -> AnchorFinder:
        """Built at first use: most views' anchors are looked up by a finder shared with
        other views (``view_rules.shared_finder``), and this one is never needed."""
        if self._built_finder is None:
            self._built_finder = (token_finder(self.anchors) if self._view == "words"
                                  else pivot_finder(self.anchors))
        return self._built_finder

    def _passed(self, present: frozenset[str]) -> set[int]:
        candidates = set(self._always)
        opened_by = self._opened_by
        for anchor in present:
            candidates.update(opened_by.get(anchor, ()))
        tests = self._tests
        return {
            index
            for index in candidates
            if all(not group.isdisjoint(present) for group in tests[index][1:])
        }

    def live(self, prepared: PreparedText, present: set[str] | None = None) -> dict[str, BranchSearch]:
        """Rule id -> the search of its possible branches, for each rule that can match
        (shared by the texts that hold the same anchors: read it, do not change it).

        `present`: the anchors that occur in the folded text, when a finder shared with other
        views of the same text has found them (it must have looked for all of `anchors`).
        """
        if present is None:
            present = self._finder().present(prepared.folded)
        # what the gate reads of the text: most texts hold one of a few sets of its anchors
        key = frozenset(self._looked_up.intersection(present))
        return _remembered(self._live, key, self._live_for)

    def _live_for(self, present: frozenset[str]) -> dict[str, BranchSearch]:
        passed = frozenset(self._passed(present))
        return _remembered(self._live_by_tests, passed, self._live_of_tests)

    def _live_of_tests(self, passed: frozenset[int]) -> dict[str, BranchSearch]:
        alive: dict[int, list[int]] = {}
        for test in passed:
            for rule_index, branch in self._branches_of.get(test, ()):
                alive.setdefault(rule_index, []).append(branch)
        result = {}
        for rule_index in sorted(alive):
            gated, whole, _ = self.rules[rule_index]
            if whole in passed:
                result[gated.rule.id] = self._search(rule_index, tuple(sorted(alive[rule_index])))
        return result

    def _search(self, rule_index: int, branches: tuple[int, ...]) -> BranchSearch:
        return _remembered(self._searches, (rule_index, branches), self._build_search)

    def _build_search(self, key: tuple[int, tuple[int, ...]]) -> BranchSearch:
        rule_index, branches = key
        gated = self.rules[rule_index][0]
        rule = gated.rule
        starts = starts_union(
            [leading_strings(gated.branches[i], rule.regex_flags) for i in branches],
            # the start strings the gate looks up are searched for only where they occur
            merge_heads=rule.view not in START_STRING_VIEWS,
        )
        live = None
        if len(branches) < len(gated.branches):
            live = ("|".join(gated.branches[index] for index in branches), rule.regex_flags)
        ends = after = None
        if len(gated.branches) == 1:
            ends = trailing_strings(rule.regex_source, rule.regex_flags)
            after = leading_lookbehind(rule.regex_source, rule.regex_flags)
        return BranchSearch(rule.compiled, starts, self._needs(starts), live, ends, after)

    def _needs(self, starts: tuple[Starts, ...] | None) -> dict[str, frozenset[str]]:
        """Each string of `starts` -> the gate's anchors it holds once folded, when it holds
        any (``anchors_inside``), each string's anchors worked out once."""
        strings = {string for group in starts or () for string in group.strings}
        for string in strings - self._held.keys():
            self._held[string] = anchors_inside(fold(string), self.anchors)
        return {string: self._held[string] for string in strings if self._held[string]}


def anchors_inside(folded: str, anchors: frozenset[str]) -> frozenset[str]:
    """The `anchors` that occur in `folded`. A start string is short: its substrings are
    fewer than a view's hundreds of anchors, and one set intersection finds those it holds
    (an ``in`` of every anchor cost ~0.5 ms of each start)."""
    size = len(folded)
    if size * (size + 1) // 2 >= len(anchors):
        return frozenset(anchor for anchor in anchors if anchor in folded)
    pieces = {folded[i:j] for i in range(size) for j in range(i + 1, size + 1)}
    pieces.add("")  # in every string
    return anchors & pieces


# Searches (a rule and the branches of it a text left open) a gate keeps, and live rules by
# the anchors found and by the tests passed.
MAX_SEARCHES = 4096
Key = TypeVar("Key")
Value = TypeVar("Value")


def _remembered(memo: dict[Key, Value], key: Key, make: Callable[[Key], Value]) -> Value:
    """memo[key], made at first need; a memo grown to MAX_SEARCHES starts afresh (texts that
    open ever new sets of branches)."""
    if key not in memo:
        if len(memo) >= MAX_SEARCHES:
            memo.clear()
        memo[key] = make(key)
    return memo[key]

