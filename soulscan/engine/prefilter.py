"""Run a fixed set of rules over many texts: rule out most with literal anchors, and search
the rest only where a match can start.

Three facts, each proven for every rule by ``soulscan.engine.anchors``, make this exact:

* every match leaves one member of each anchor group in the folded text, so a rule with an
  unmet group cannot match (``PreparedText.may_match``); groups are checked rarest first,
  since the first unmet one ends the test;
* every match of a rule with *leading* anchors starts with one of them, so trying the
  pattern at each place one occurs (``pattern.match(text, pos)``, which sees the whole
  text, lookbehinds included) finds a match exactly when a search over the whole text does;
* folding keeps every offset (``anchors.fold``), so a place found in the folded text is
  the same place in the text.

A text with many candidate places is searched whole instead: one ``search`` is cheaper
than hundreds of ``match`` calls. A pattern of the bounded-gap shape runs through its exact
linear matcher (``soulscan.engine.gapped``) instead of the regex, and ``RuleSetGate`` finds
the anchors of a whole rule set with one scan (``soulscan.engine.anchorscan``). Before a
rule is tried place by place, a stretch of its pattern that every match holds and that asks
for more than its anchors (``soulscan.engine.segments``) is searched once.
``tests/test_prefilter.py`` checks every runtime rule against ``re`` itself.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import regex

from soulscan.engine.anchors import NON_ASCII, Anchors, checking_order, leading_anchors
from soulscan.engine.anchorscan import Found, letter_scans, on_pivots_of, pinnable, pivot_scans
from soulscan.engine.gapped import BoundedGap, bounded_gap
from soulscan.engine.lowered import LETTER_STAND_IN, lowered_pattern, takes_letters, takes_symbols
from soulscan.engine.matcher import PreparedText
from soulscan.engine.rulepack import Rule
from soulscan.engine.segments import NecessaryRun, necessary_run

# Trying a pattern at one place costs about as much as searching this many characters.
_CHARS_PER_START = 48
# From this length on, the scans of ``RuleSetGate.rules_matching`` keep where they found
# their anchors (``finditer``, a few % more than ``findall``), and a rule whose start strings
# they locate is tried only there: in a shorter text a rule's search costs little more.
PLACES_FROM_CHARS = 8_192
# ... once this many of its scans have found anchors in it (a text of English prose meets a
# word or two of them, a text that holds rules' matches or near-misses many).
KEEP_AFTER_FINDING_SCANS = 2


def most_places(length: int) -> int:
    """How many places a pattern is worth trying at in a text of `length` characters:
    past that, one search of the whole text is cheaper."""
    return length // _CHARS_PER_START + 4


@dataclass(frozen=True)
class GatedRule:
    """A runtime rule with what the gate checks before searching its pattern."""
    rule: Rule
    groups: Anchors | None  # in checking order; None: no anchor, always searched
    # Strings one of which every match starts with (in the folded text when the rule's
    # anchors are folded).
    starts: tuple[str, ...] | None = None
    # An exact linear matcher for the pattern, when it has the bounded-gap shape.
    linear: BoundedGap | None = None
    # A stretch of the pattern that every match holds, searched first (``segments``).
    necessary: NecessaryRun | None = None
    flags: int = 0  # the ``re`` flags the pattern is written for

    @functools.cached_property  # built at first use: a start-up that runs no rule builds none
    def lowered(self) -> re.Pattern[str] | None:
        """The pattern rewritten for the folded text (``soulscan.engine.lowered``), unless a
        linear matcher runs it."""
        return None if self.linear is not None else lowered_pattern(self.rule.pattern, self.flags)

    @functools.cached_property
    def lowered_for_symbols(self) -> re.Pattern[str] | None:
        """``lowered``, when it is exact on a text whose non-ASCII characters are all
        symbols, each folded to ``?`` (``soulscan.engine.lowered.takes_symbols``)."""
        lowered = self.lowered
        return lowered if lowered is not None and takes_symbols(self.rule.pattern, self.flags) else None

    @functools.cached_property
    def lowered_for_letters(self) -> re.Pattern[str] | None:
        """``lowered``, when it is exact on a text whose non-ASCII characters are symbols and
        letters, folded to ``?`` and ``Z`` (``soulscan.engine.lowered.takes_letters``)."""
        lowered = self.lowered_for_symbols
        return lowered if lowered is not None and takes_letters(self.rule.pattern, self.flags) else None

    @functools.cached_property  # kept on the instance: a scan reads it for every rule it tries
    def pattern(self) -> re.Pattern[str]:
        """The rule's own pattern compiled by ``re`` with its own flags: what the runtime
        runs, so exact by definition (and two to three times quicker per call here than
        the ``regex`` translation)."""
        return _python_re(self.rule.pattern, self.flags)

    def may_match(self, prepared: PreparedText) -> bool:
        return self.groups is None or prepared.meets(self.groups, self.rule.anchors_folded)

    def search(self, prepared: PreparedText, starts: Sequence[str] | None = None,
               places: list[int] | None = None) -> bool:
        """Does the rule match the prepared text (which has passed ``may_match``)?
        ``starts``: its start strings but those known not to occur, when the caller knows;
        ``places``: every place where one of them occurs, in order, when the caller knows."""
        if self.linear is not None:
            return self.linear.search(prepared.text)
        if self.necessary is not None and self._ruled_out(prepared):
            return False
        if places is None:
            places = self._start_places(prepared, starts)
        if places is None:
            return self.pattern.search(prepared.text) is not None
        match, text = self.pattern.match, prepared.text
        for place in places:
            if match(text, place) is not None:
                return True
        return False

    def first_match(self, prepared: PreparedText, starts: Sequence[str] | None = None,
                    places: list[int] | None = None) -> FirstMatch | None:
        """``search``, telling where the leftmost match starts (None: no match); the places
        are tried in order, so the first that matches is the leftmost match's, and they are
        kept for ``finditer_from``."""
        if self.linear is not None:
            span = next(self.linear.finditer(prepared.text), None)
            return None if span is None else FirstMatch(span[0])
        if self.necessary is not None and self._ruled_out(prepared):
            return None
        if places is None:
            places = self._start_places(prepared, starts)
        if places is None:
            found = self.pattern.search(prepared.text)
            return None if found is None else FirstMatch(found.start(), None)
        return first_match_at(self.pattern, prepared.text, sorted(set(places)))

    def finditer_from(self, prepared: PreparedText, first: FirstMatch) -> Iterator[tuple[int, int]]:
        """``finditer``, given where its first match starts (``first_match`` of the same
        text): the search before it is not made again, nor the start strings looked for
        (a linear matcher reads the text whole: it starts at no given place)."""
        if self.linear is not None:
            return self.linear.finditer(prepared.text)
        if first.places is not None:
            return matches_at(self.pattern, prepared.text, first.places)
        return (found.span() for found in self.pattern.finditer(prepared.text, first.start))

    def finditer(self, prepared: PreparedText) -> Iterator[tuple[int, int]]:
        """Every non-overlapping match, as ``re.finditer`` gives them: the leftmost
        match at or after the end of the previous one starts at one of the places."""
        if self.linear is not None:
            return self.linear.finditer(prepared.text)
        if self._ruled_out(prepared):
            return iter(())
        places = self._start_places(prepared)
        if places is None:
            return (found.span() for found in self.pattern.finditer(prepared.text))
        return matches_at(self.pattern, prepared.text, sorted(set(places)))

    def _ruled_out(self, prepared: PreparedText) -> bool:
        """Does the stretch every match holds occur nowhere? (False when unsure: too many
        places to try.)"""
        necessary = self.necessary
        if necessary is None:
            return False
        text = prepared.text
        haystack = prepared.folded if necessary.folded else text
        places = start_places(haystack, necessary.starts, len(text), most_places(len(text)))
        return places is not None and not necessary.occurs_at(text, places)

    def _start_places(self, prepared: PreparedText,
                      starts: Sequence[str] | None = None) -> list[int] | None:
        """Where a match can start, when that is known and there are few such places."""
        if self.starts is None:
            return None
        text = prepared.text
        folded = self.rule.anchors_folded
        haystack = prepared.folded if folded else text
        if starts is None:
            starts = prepared.not_known_absent(self.starts, folded)
        return start_places(haystack, starts, len(text), most_places(len(text)))


@dataclass(frozen=True)
class FirstMatch:
    """Where a rule's leftmost match in a text starts, as the gate's search found it:
    ``finditer`` of the same text from there (``re``'s ``pos``, which still sees the text
    before it) gives every match. ``places``: when the search tried the rule only at its
    start strings' places, those from ``start`` on, in order (every later match starts at
    one of them)."""
    start: int
    places: list[int] | None = None


def first_match_at(pattern: re.Pattern[str], text: str, ordered: list[int]) -> FirstMatch | None:
    """The leftmost match of ``pattern`` in ``text`` when every match starts at one of the
    places ``ordered`` (increasing): the first place it matches at."""
    match = pattern.match
    for index, place in enumerate(ordered):
        if match(text, place) is not None:
            return FirstMatch(place, ordered[index:])
    return None


def gated_python_re(rule: Rule) -> GatedRule:
    """A built-in rule written for Python's ``re`` (its pattern parses with ``re``'s parser;
    case-insensitive exactly when its anchors are folded), ready to run many times."""
    flags = re.IGNORECASE if rule.anchors_folded else 0
    groups = None if rule.anchors is None else checking_order(rule.anchors)
    linear = bounded_gap(rule.pattern, flags)
    return GatedRule(rule, groups, leading_anchors(rule.pattern, flags), linear,
                     None if linear is not None else necessary_run(rule.pattern, flags), flags)


@functools.cache  # on first use: a start-up that searches no rule compiles none
def _python_re(pattern: str, flags: int) -> re.Pattern[str]:
    return re.compile(pattern, flags)


class RuleSetGate:
    """A fixed set of gated rules, whose folded anchors are found by a few scans of a text.

    The scans (``soulscan.engine.anchorscan``: one a rare pivot character for the anchors
    that hold one, ``pivot_scans``, skipped when the text lacks that character; then one a
    shared letter for the first-group words left, ``letter_scans``) answer exactly for the anchors they pin; each rule's groups are reordered (stably) by
    how many of their members the scans left unpinned: the ones they answered come first,
    and a group with one unpinned member opens the rule before a group with three (each an
    ``in``, a whole read of a text that lacks it). A rule is looked at only when a member
    of its first group occurs: the scans' answers plus one ``in`` per unpinned member of a
    first group pick those rules out, so a text costs a few C-speed passes and no per-rule
    work for the rules it rules out.

    What each pivot-to-end part the scan finds proves is worked out here once, as one int:
    the rules it opens (a bit each, in table order), the anchors it proves present, and the
    anchors it leaves unsure (told apart with ``in`` only if a rule that is looked at needs
    them). A text's scans then OR a few ints together, and each rule's groups are checked
    with bit tests (the ``in`` of a member only where no scan spoke for it).
    """

    def __init__(self, rules: Sequence[GatedRule]) -> None:
        anchors = {anchor for entry in rules if entry.groups and entry.rule.anchors_folded
                   for group in entry.groups for anchor in group}
        # The pivots only later groups need (``x`` of ``execute``) are left out: a stop at
        # each ``x`` of every text would save an ``in`` in the few texts where that rule opens.
        firsts = {anchor for entry in _by_pinned(rules, pinnable(anchors))
                  if entry.groups and entry.rule.anchors_folded for anchor in entry.groups[0]}
        main = pivot_scans(on_pivots_of(anchors, firsts), stored=True)  # kept on disk
        main_pinned = frozenset().union(*(scan.pinned for scan in main))
        # the first-group members those scans leave to ``in``, pinned by scans of their own
        openers = {anchor for entry in _by_pinned(rules, main_pinned)
                   if entry.groups and entry.rule.anchors_folded
                   for anchor in entry.groups[0]} - main_pinned
        self.scans = (*main, *letter_scans(openers, stored=True))
        pinned = frozenset().union(*(scan.pinned for scan in self.scans))
        self.rules = _by_pinned(rules, pinned)
        # first-group member -> the rules (a bit each: rule i is bit i) it lets through;
        # rules it cannot speak for (no anchors, or anchors on the unfolded text) are
        # always looked at
        opened_by: dict[str, int] = {}
        self._always = 0
        for index, entry in enumerate(self.rules):
            if not entry.groups or not entry.rule.anchors_folded:
                self._always |= 1 << index
                continue
            for anchor in entry.groups[0]:
                opened_by[anchor] = opened_by.get(anchor, 0) | 1 << index
        self._by_bit = {1 << index: entry for index, entry in enumerate(self.rules)}
        # What a text holds is kept in plain ints: one bit a rule (the rules opened), and one
        # bit an anchor the rules look for in the folded text (the anchors known to occur,
        # the anchors whose presence is known either way).
        looked = sorted({anchor for entry in self.rules if entry.groups and entry.rule.anchors_folded
                         for group in entry.groups for anchor in group})
        bit = {anchor: 1 << index for index, anchor in enumerate(looked)}
        self._rule_mask = (1 << len(self.rules)) - 1
        self._anchor_mask = (1 << len(looked)) - 1
        self._proven_at = len(self.rules)
        self._unsure_at = len(self.rules) + len(looked)
        self._pinned = _bits(pinned, bit)
        # each scan's pivot, its pattern, and what it finds -> one int: the rules it may
        # open, the anchors it proves present (shifted by ``_proven_at``) and the anchors it
        # leaves unsure (by ``_unsure_at``: told apart with ``in`` only if a rule needs them)
        searched = [(scan, scan.pattern) for scan in self.scans if scan.pattern is not None]
        self._found = tuple((scan.pivot or "", pattern.findall, {
            found: (_opened_by(proven, opened_by) | _opened_by(unsure, opened_by)
                    | _bits(proven, bit) << self._proven_at | _bits(unsure, bit) << self._unsure_at)
            for found, (proven, unsure) in scan.outcomes.items()
        }) for scan, pattern in searched)
        # each rule's start strings whose every occurrence a scan's find ends at, as (the
        # scan's index, the part its find gives, the start, whether other anchors end so too),
        # and the start strings no scan locates; None for a rule not tried place by place
        # (a scan with groups, whose ``findall`` gives tuples, locates nothing)
        located = [{} if pattern.groups else scan.located() for scan, pattern in searched]
        sharing = [{tail for tail, ending in scan.by_tail.items() if len(ending) > 1}
                   for scan, _ in searched]
        self._located: dict[int, tuple[tuple[tuple[int, str, str, bool], ...], tuple[str, ...]] | None] = {}
        for index, entry in enumerate(self.rules):
            self._located[1 << index] = None
            if entry.starts is None or entry.linear is not None or not entry.rule.anchors_folded:
                continue
            by_scan = [next(((at, tails[start], start, tails[start] in sharing[at])
                             for at, tails in enumerate(located) if start in tails), None)
                       for start in entry.starts]
            self._located[1 << index] = (
                tuple(found for found in by_scan if found is not None),
                tuple(start for start, found in zip(entry.starts, by_scan, strict=True) if found is None))
        self._unlocated = {rule_bit: frozenset(located[1]) if located is not None else frozenset()
                           for rule_bit, located in self._located.items()}
        # each scan's ``finditer`` where it locates some rule's start string (a scan that
        # locates none keeps no matches)
        locates = {at for located in self._located.values() if located is not None
                   for at, *_ in located[0]}
        self._finditers = tuple(pattern.finditer if at in locates else None
                                for at, (_, pattern) in enumerate(searched))
        self._unpinned_openers = tuple(
            (anchor, opened_by[anchor], bit[anchor]) for anchor in sorted(set(opened_by) - pinned))
        # each rule's groups as (mask, members with their bits), in checking order: all of
        # them, and those the scans decide (checked before a lowered pattern, which then
        # answers for the rest); None for a rule whose anchors are not on the folded text
        self._groups = {1 << index: _group_bits(entry.groups, bit) if entry.rule.anchors_folded else None
                        for index, entry in enumerate(self.rules)}
        self._decided = {1 << index: _group_bits(tuple(
            group for group in entry.groups or () if pinned.issuperset(group)), bit)
            if entry.rule.anchors_folded else None for index, entry in enumerate(self.rules)}
        # each rule's start strings with their anchor bits (0: not an anchor), so those
        # known not to occur are not looked for
        self._starts = {1 << index: tuple((start, bit.get(start, 0)) for start in entry.starts)
                        if entry.starts is not None and entry.rule.anchors_folded else None
                        for index, entry in enumerate(self.rules)}
        self._anchor_of = {anchor_bit: anchor for anchor, anchor_bit in bit.items()}
        # Every string looked for in the folded text holds neither "?" nor the non-ASCII
        # marker: a non-ASCII character may be folded to "?" (``PreparedText``).
        looked_for = anchors | {start for entry in self.rules if entry.rule.anchors_folded
                                for start in (entry.starts or ())} | {
            start for entry in self.rules if entry.necessary and entry.necessary.folded
            for start in entry.necessary.starts}
        self.ascii_anchors_only = not any("?" in text or NON_ASCII in text for text in looked_for)
        # nor the stand-in a folded text may hold for a letter (``sparse_window``)
        self.letters_fold = self.ascii_anchors_only and not any(
            LETTER_STAND_IN in text for text in looked_for)

    def prepare(self, text: str, folded: str | None = None) -> PreparedText:
        """``text`` ready for ``candidates`` (``folded``: its ``PreparedText.folded``, when
        the caller knows it)."""
        return PreparedText(text, ascii_anchors_only=self.ascii_anchors_only, folded=folded)

    def _look(self, folded: str, finds_at: list[Finds | None] | None = None) -> tuple[int, int, int]:
        """(the rules, as bits, whose first group may have a member in ``folded``; the anchors
        known to occur; the anchors whose presence is known): the scans, one ``in`` a pivot
        before each (a text that lacks the pivot needs no scan), then an ``in`` for each
        first-group member no scan pins, unless its rules are opened already. ``finds_at``:
        filled with each scan's finds and their matches (None: the scan was not run;
        ``_NOT_KEPT``: its matches were not kept), for ``_places``."""
        found = 0
        if finds_at is not None:
            found = self._found_keeping(folded, finds_at)
        else:
            for pivot, findall, outcomes in self._found:
                if pivot in folded:  # one memchr
                    finds = findall(folded)
                    if finds:  # most scans of a short text find nothing
                        for tail in set(finds):
                            found |= outcomes[tail]
        opened = found & self._rule_mask | self._always
        proven = found >> self._proven_at & self._anchor_mask
        # a pinned anchor no find speaks for is absent; one a find left unsure is unknown
        known = self._pinned & ~(found >> self._unsure_at) | proven
        for anchor, opens, anchor_bit in self._unpinned_openers:
            if opened & opens != opens:
                known |= anchor_bit
                if anchor in folded:
                    proven |= anchor_bit
                    opened |= opens
        return opened, proven, known

    def _found_keeping(self, folded: str, finds_at: list[Finds | None]) -> int:
        """What the scans find in ``folded`` (as ``_look`` ORs it together), each scan's
        finds and matches kept in ``finds_at`` (the matches only where the scan locates
        anchors: ``finditer``, a few % more than ``findall``)."""
        found = finding = 0
        for index, (pivot, findall, outcomes) in enumerate(self._found):
            if pivot not in folded:
                finds_at.append(None)
                continue
            # A text in which fewer earlier scans found anchors is most likely clean, and its
            # rules' searches few: its matches are not worth keeping.
            finditer = self._finditers[index] if finding >= KEEP_AFTER_FINDING_SCANS else None
            finds = _finds_kept(finditer, findall, folded, finds_at)
            if finds:
                finding += 1
                for tail in set(finds):
                    found |= outcomes[tail]
        return found

    def may_any_match(self, folded: str) -> bool:
        """Does some rule meet every group of its anchors in ``folded`` (or check anchors
        of its own)? When none does, no rule matches a text whose folded form holds no
        anchor that ``folded`` lacks."""
        opened, proven, known = self._look(folded)
        all_groups = self._groups
        while opened:
            lowest = opened & -opened
            opened ^= lowest
            groups = all_groups[lowest]
            if groups is None:
                return True
            met, proven, known = _meets(groups, folded, proven, known)
            if met:
                return True
        return False

    def candidates(self, prepared: PreparedText) -> Iterator[GatedRule]:
        """The rules whose anchors all occur in the prepared text, in table order."""
        folded = prepared.folded
        opened, proven, known = self._look(folded)
        by_bit, all_groups = self._by_bit, self._groups
        while opened:
            lowest = opened & -opened
            opened ^= lowest
            entry = by_bit[lowest]
            groups = all_groups[lowest]
            if groups is None:
                if entry.may_match(prepared):
                    yield entry
                continue
            met, proven, known = _meets(groups, folded, proven, known)
            if met:
                prepared.record_folded(self._known(proven, known))  # for the rule's own search
                yield entry

    def matching_rules(self, prepared: PreparedText, symbols_only: bool = False) -> list[Rule]:
        """The rules (built-in, searched without a time limit) that match the prepared
        text, in table order. ``symbols_only``: every non-ASCII character of the text is a
        symbol (``sparse_window.WindowFacts``) and ``prepared.folded`` reads each as ``?``."""
        return self.rules_matching(prepared.text, prepared.folded, symbols_only, prepared)

    def rules_matching(self, text: str, folded: str, symbols_only: bool = False,
                       prepared: PreparedText | None = None, letters: bool = False,
                       firsts: dict[str, FirstMatch] | None = None) -> list[Rule]:
        """``matching_rules(self.prepare(text, folded), symbols_only)``, where the prepared
        text is built only if a rule not answered by its lowered pattern needs it.
        ``letters``: ``folded`` reads each non-ASCII character of the text as ``?`` or, for a
        letter, ``Z`` (``sparse_window.WindowFacts.letters``). ``firsts``: filled with where
        each matching rule's leftmost match in ``text`` starts, when its search tells (a
        lowered pattern's, on the folded text: the same offsets)."""
        # ``candidates`` written out, with ``_meets`` inlined: this runs once a scanned text,
        # most of them short (a call a rule looked at: +14 M instructions over the corpora)
        finds_at: list[Finds | None] | None = [] if len(folded) >= PLACES_FROM_CHARS else None
        opened, proven, known = self._look(folded, finds_at)
        by_bit = self._by_bit
        # an ASCII text is answered by its rules' lowered patterns (``soulscan.engine.lowered``),
        # a text of ASCII and symbols by those that take ``?`` for a symbol
        ascii_text = text.isascii()
        decided, all_groups = self._decided, self._groups
        matching = []
        while opened:
            lowest = opened & -opened
            opened ^= lowest
            entry = by_bit[lowest]
            lowered = (entry.lowered if ascii_text
                       else entry.lowered_for_symbols if symbols_only
                       else entry.lowered_for_letters if letters else None)
            groups = decided[lowest] if lowered is not None else all_groups[lowest]
            if groups is None:  # anchors on the unfolded text: the rule checks them itself
                prepared = prepared or self.prepare(text, folded)
                if entry.may_match(prepared) and entry.search(prepared):
                    matching.append(entry.rule)
                continue
            for mask, members in groups:
                if proven & mask:
                    continue
                if known & mask != mask:  # some member not looked for yet
                    for anchor, anchor_bit in members:
                        if not known & anchor_bit:
                            known |= anchor_bit
                            if anchor in folded:
                                proven |= anchor_bit
                                break
                    else:
                        break
                    continue
                break
            else:
                if lowered is not None:
                    # (tried only where its start strings occur, when the scans told where)
                    places = None if finds_at is None else self._places(lowest, finds_at, folded, None)
                    if places is not None:
                        first = first_match_at(lowered, folded, places)
                        if first is not None:
                            matching.append(entry.rule)
                            if firsts is not None:
                                firsts[entry.rule.id] = first
                        continue
                    found = lowered.search(folded)
                    if found is not None:
                        matching.append(entry.rule)
                        if firsts is not None:
                            firsts[entry.rule.id] = FirstMatch(found.start())
                    continue
                prepared = prepared or self.prepare(text, folded)
                starts = self._unruled_starts(lowest, proven, known)
                places = None if finds_at is None or starts is None else self._places(
                    lowest, finds_at, folded, [start for start in starts if start in self._unlocated[lowest]])
                if firsts is None:
                    if entry.search(prepared, starts, places):
                        matching.append(entry.rule)
                    continue
                first = entry.first_match(prepared, starts, places)
                if first is not None:
                    matching.append(entry.rule)
                    firsts[entry.rule.id] = first
        return matching

    def _places(self, rule_bit: int, finds_at: list[Finds | None], folded: str,
                unlocated: Sequence[str] | None) -> list[int] | None:
        """Every place in ``folded`` where one of the rule's start strings occurs, in order,
        from the scans' finds (``finds_at``) and ``str.find`` of ``unlocated`` (those of its
        start strings no scan locates, but those known absent); None when not known (no
        start strings, or ``unlocated`` is None while the rule has some) or too many."""
        located = self._located[rule_bit]
        if located is None:
            return None
        by_scan, left = located
        if left and unlocated is None:
            return None
        places: list[int] = []
        for at, tail, start, shared in by_scan:
            finds = finds_at[at]
            if finds is None:  # (the scan's pivot does not occur)
                continue
            if finds is _NOT_KEPT:
                return None
            tails, matches = finds
            found = map(operator.sub, map(_END, itertools.compress(matches, map(tail.__eq__, tails))),
                        itertools.repeat(len(start)))
            places.extend(filter(functools.partial(folded.startswith, start), found) if shared else found)
        most = most_places(len(folded))
        if left and unlocated:
            more = start_places(folded, unlocated, len(folded), most - len(places))
            if more is None:
                return None
            places.extend(more)
        if len(places) > most:
            return None
        return sorted(set(places)) if len(by_scan) + len(left) > 1 else places

    def _unruled_starts(self, rule_bit: int, proven: int, known: int) -> Sequence[str] | None:
        """The rule's start strings but those known not to occur (None: it has none)."""
        starts = self._starts[rule_bit]
        if starts is None:
            return None
        absent = known & ~proven
        return [start for start, start_bit in starts if not absent & start_bit]

    def _known(self, proven: int, known: int) -> dict[str, bool]:
        """Whether each anchor of ``known`` occurs, as ``PreparedText.record_folded`` takes it."""
        anchor_of = self._anchor_of
        found: dict[str, bool] = {}
        while known:
            lowest = known & -known
            known ^= lowest
            found[anchor_of[lowest]] = bool(proven & lowest)
        return found


Groups = tuple[tuple[int, tuple[tuple[str, int], ...]], ...]
# One scan's finds (as ``findall`` gives them) and their matches, in order.
Finds = tuple[list[Found], list[re.Match[str]]]
# In ``finds_at``: a scan run whose matches were not kept (None: not run, its pivot absent).
_NOT_KEPT: Finds = ([], [])
_GROUP = re.Match.group
_END = re.Match.end


def _bits(anchors: Iterable[str], bit: dict[str, int]) -> int:
    found = 0
    for anchor in anchors:
        found |= bit[anchor]
    return found


def _group_bits(groups: Anchors | None, bit: dict[str, int]) -> Groups:
    """Each group as (the bits of its members, its members with their bits)."""
    return tuple((_bits(group, bit), tuple((anchor, bit[anchor]) for anchor in group))
                 for group in groups or ())


def _finds_kept(finditer: Callable[[str], Iterator[re.Match[str]]] | None,
                findall: Callable[[str], list[Found]], folded: str,
                finds_at: list[Finds | None]) -> list[Found]:
    """A scan's finds in ``folded``, kept in ``finds_at`` with their matches when the scan
    locates anchors (``finditer``; None: it does not, and ``findall`` runs)."""
    if finditer is None:
        finds_at.append(_NOT_KEPT)
        return findall(folded)
    matches = list(finditer(folded))
    finds: list[Found] = list(map(_GROUP, matches))
    finds_at.append((finds, matches))
    return finds


def _meets(groups: Groups, folded: str, proven: int, known: int) -> tuple[bool, int, int]:
    """Does every group have a member in ``folded``? Members not known either way are
    looked for with ``in`` (in order, until one occurs); what was learnt is returned too."""
    for mask, members in groups:
        if proven & mask:
            continue
        if known & mask == mask:
            return False, proven, known
        for anchor, anchor_bit in members:
            if not known & anchor_bit:
                known |= anchor_bit
                if anchor in folded:
                    proven |= anchor_bit
                    break
        else:
            return False, proven, known
    return True, proven, known


def _by_pinned(rules: Sequence[GatedRule], pinned: frozenset[str]) -> tuple[GatedRule, ...]:
    """The rules, each with its groups reordered (stably) by how many members a scan
    that pins ``pinned`` leaves to ``in``."""
    return tuple(
        replace(entry, groups=tuple(sorted(entry.groups, key=lambda g: len(set(g) - pinned))))
        if entry.groups and entry.rule.anchors_folded else entry
        for entry in rules
    )


def _opened_by(anchors: Iterable[str], opened_by: dict[str, int]) -> int:
    opens = 0
    for anchor in anchors:
        opens |= opened_by.get(anchor, 0)
    return opens


def start_places(haystack: str, starts: Sequence[str], limit: int, most: int) -> list[int] | None:
    """Every offset below ``limit`` where one of ``starts`` occurs; None past ``most``."""
    places: list[int] = []
    find = haystack.find
    for start in starts:
        index = find(start, 0, limit)
        while index >= 0:
            places.append(index)
            if len(places) > most:
                return None
            index = find(start, index + 1, limit)
    return places


def matches_at(
    pattern: re.Pattern[str] | regex.Pattern[str], text: str, places: Iterable[int]
) -> Iterator[tuple[int, int]]:
    """The span of the match at each of `places` (in increasing order) that the previous
    match does not cover: what ``finditer`` gives when every match starts at one of them."""
    end = 0
    for place in places:
        if place < end:
            continue
        found = pattern.match(text, place)
        if found is not None:
            yield found.span()
            end = found.end()
