"""Find which of many literal anchors occur in a folded text, in one C-speed pass.

Checking a hundred anchors with ``in`` reads the text a hundred times. Instead each anchor
is pinned to its rarest character (its *pivot*) and one ``re`` pattern looks only at
pivot characters: ``re`` skips every other character in C, and at a pivot tries the
anchors pinned there (a lookbehind for the part before the pivot, then the rest)::

    (v(?:(?<=ov)erride|(?<=ne)ver)|k(?:(?<=tas)k|...)|...)

``findall`` gives the pivot-to-end part of every anchor found. Two things could hide an
anchor, and both are undone so that ``present`` is exact:

* several anchors with the same pivot-to-end part (``sliver``, ``server``, ``never``) are
  told apart by one character before the pivot when one place has a different character
  in each (``i``, ``r``, ``e`` just before the ``v``): their branch captures it in a group
  of its own (``findall`` then gives tuples); when none has (``secret``, ``ecret``), with
  ``in``;
* a match consumes the characters from the pivot to the anchor's end, so an anchor whose
  pivot lies there (or at the same place, behind an alternative tried first) is never
  tried. Such an anchor must agree with the found one on the characters they share: that
  is known beforehand, so finding one anchor also checks those *neighbours* with ``in``.

The anchors of one pivot are tried rarest first. An anchor tried later cannot hide one
tried earlier at the same place (that one failed there before the later one was tried),
so a common anchor, found in nearly every text, hides nothing at its own place: the
``in`` checks of its neighbours, which read a whole text when the neighbour is absent,
are left to the rare texts that hold the rare anchor.

Anchors made only of the most common characters would make nearly every character a
pivot: they are left out (``pinned`` says which were kept), to be checked with ``in``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from soulscan.engine import cache
from soulscan.engine.anchors import frequency_rank, rarity
from soulscan.engine.re_cache import compile_cached

# A pivot must be at least this far down the frequency ranking (``b``, ``k``, ``v``, ``w``,
# ``x``, punctuation...): rarer pivots mean fewer places where ``re`` leaves C.
MIN_PIVOT_RANK = 20
# A scan of its own for words of common characters pays from this many words a character.
MIN_WORDS_A_LETTER = 2
# The most capture groups (told-apart parts and probes) one scan's pattern gets.
MAX_GROUPS = 4


# What ``findall`` gives for one find: the pivot-to-end part, or (with groups that tell
# anchors of one part apart) that part and the character each of those groups captured.
Found = str | tuple[str, ...]


@dataclass(frozen=True)
class AnchorScan:
    """One search that tells which pinned anchors occur in a folded text."""
    pattern: re.Pattern[str] | None
    pinned: frozenset[str]  # the anchors this scan decides
    by_tail: dict[str, tuple[str, ...]]  # pivot-to-end part -> anchors that end so
    neighbours: dict[str, frozenset[str]]  # anchor -> anchors a match of it can hide
    # what findall gives -> (the anchor it proves, if one; the anchors left to check with ``in``)
    outcomes: dict[Found, tuple[tuple[str, ...], frozenset[str]]] = field(default_factory=dict)
    pivot: str | None = None  # the one character every anchor is pinned to, when there is one

    def present(self, folded: str) -> set[str]:
        """Exactly the pinned anchors that occur in ``folded``."""
        if self.pattern is None:
            return set()
        found: set[str] = set()
        unsure: set[str] = set()
        outcomes = self.outcomes
        for tail in set(self.pattern.findall(folded)):
            proven, unproven = outcomes[tail]
            found.update(proven)
            unsure |= unproven
        unsure -= found
        found.update(anchor for anchor in unsure if anchor in folded)
        return found

    def located(self) -> dict[str, str]:
        """The pinned anchors each of whose occurrences a find ends at, with the pivot-to-end
        part that find gives (``finditer`` then tells where each occurs: a find's end less the
        anchor's length, checked with ``startswith`` where several anchors end so). An anchor
        a neighbour's match can hide is left out, and one whose match can hide its own next
        occurrence ("bkb" found from its first "b" in "bkbkb"): a find of it may be missing."""
        hidden = frozenset().union(*self.neighbours.values())
        return {anchor: tail for tail, anchors in self.by_tail.items()
                for anchor in anchors if anchor not in hidden and not _hides_itself(anchor, tail)}


def _hides_itself(anchor: str, tail: str) -> bool:
    """Can ``anchor`` occur again with its pivot inside a match of it (from its pivot, where
    ``tail`` starts, to its end)? Only when it overlaps itself by less than ``tail``."""
    return any(anchor[shift:] == anchor[:len(anchor) - shift] for shift in range(1, len(tail)))


def _outcome(anchors: tuple[str, ...],
             neighbours: dict[str, frozenset[str]]) -> tuple[tuple[str, ...], frozenset[str]]:
    """What finding a pivot-to-end part says: several anchors ending so are each unsure;
    whichever of them matched may have hidden its neighbours."""
    unsure = set(anchors) if len(anchors) > 1 else set()
    for anchor in anchors:
        unsure |= neighbours[anchor]
    return (anchors if len(anchors) == 1 else ()), frozenset(unsure)


def build_scan(anchors: Iterable[str], min_rank: int = MIN_PIVOT_RANK,
               pivot: str | None = None, max_groups: int = MAX_GROUPS, *,
               stored: bool = False) -> AnchorScan:
    """The scan of ``anchors`` that hold a character ranked ``min_rank`` or rarer, or (with
    ``pivot``) of the anchors that hold ``pivot``, each pinned to it. ``stored``: worked out
    once per machine (``_stored_scan_parts``), for the scans every start builds."""
    work_out = _stored_scan_parts if stored else _scan_parts
    source, pinned, by_tail, neighbours, outcomes = work_out(
        tuple(sorted(set(anchors))), min_rank, pivot, max_groups)
    if source is None:
        return AnchorScan(None, frozenset(), {}, {})
    return AnchorScan(
        # a big alternation re parses in pure Python: its program is kept on disk
        pattern=compile_cached(source),
        pinned=pinned,
        by_tail=dict(by_tail),
        neighbours=dict(neighbours),
        outcomes=dict(outcomes),
        pivot=pivot,
    )


# A scan as plain data (``_scan_parts``): its pattern's source (None: no anchor pinned),
# the anchors it pins, and its by_tail, neighbours and outcomes as (key, value) pairs.
ScanParts = tuple[
    str | None,
    frozenset[str],
    tuple[tuple[str, tuple[str, ...]], ...],
    tuple[tuple[str, frozenset[str]], ...],
    tuple[tuple[Found, tuple[tuple[str, ...], frozenset[str]]], ...],
]


def _scan_parts(anchors: tuple[str, ...], min_rank: int, pivot: str | None,
                max_groups: int) -> ScanParts:
    """What ``build_scan`` works out: pivots, groups, every find's outcome."""
    pivots = _pivots(set(anchors), min_rank, pivot)
    if not pivots:
        return None, frozenset(), (), (), ()
    rarest_first = sorted(pivots.items(), key=lambda item: (-rarity(item[0]), item[0]))
    by_tail: dict[str, list[str]] = {}
    for anchor, index in rarest_first:
        by_tail.setdefault(anchor[index:], []).append(anchor)
    # Each group makes every find a longer tuple (and each probe doubles what a find of its
    # pivot can give): the first ``MAX_GROUPS`` in pattern order are kept, the rest left
    # to ``in``.
    told_apart = dict(itertools.islice(
        ((tail, back) for tail, found in sorted(by_tail.items()) if len(found) > 1
         for back in [_telling_place(found, pivots)] if back is not None), max_groups))
    by_pivot: dict[str, list[str]] = {}  # each list in the order its alternatives are tried
    for anchor, index in rarest_first:
        tail = anchor[index:]
        if anchor not in by_pivot.get(anchor[index], ()):  # one told-apart part tried as one
            by_pivot.setdefault(anchor[index], []).extend(
                by_tail[tail] if tail in told_apart else [anchor])
    budget = max_groups - len(told_apart)
    probes = {}
    for char, pinned in sorted(by_pivot.items()):
        probes[char] = _probed(pinned, pivots, told_apart)[:max(budget, 0)]
        budget -= len(probes[char])
    branches = []
    groups: list[tuple[str, str]] = []  # ("probe", anchor) or ("told", part), in group order
    for char, pinned in sorted(by_pivot.items()):
        tails = []
        for anchor in probes[char]:
            tails.append(f"(?:(?<=({re.escape(anchor[:-1])}){re.escape(char)}))?")
            groups.append(("probe", anchor))
        alternatives = []
        for anchor in pinned:
            tail = anchor[pivots[anchor]:]
            if tail not in told_apart:
                alternatives.append(_after_pivot(anchor, pivots[anchor]))
            elif anchor == by_tail[tail][0]:
                alternatives.append(_told_apart(by_tail[tail], pivots, told_apart[tail]))
                groups.append(("told", tail))
        branches.append(re.escape(char) + "".join(tails) + "(?:" + "|".join(alternatives) + ")")
    probed = frozenset(anchor for found in probes.values() for anchor in found)
    neighbours = {anchor: _hidden_by(anchor, pivots, by_pivot, probed) for anchor in pivots}
    outcomes: dict[Found, tuple[tuple[str, ...], frozenset[str]]] = {}
    for tail, found in by_tail.items():
        # (an anchor ending so, what its group captured, the anchors it proves, unsure ones)
        told: list[tuple[str, str, tuple[str, ...], frozenset[str]]]
        if tail in told_apart:
            back = told_apart[tail]
            told = [(anchor, anchor[pivots[anchor] - back], (anchor,), neighbours[anchor])
                    for anchor in found]
        else:
            told = [(found[0], "", *_outcome(tuple(found), neighbours))]
        for anchor, char, proven, unsure in told:
            for seen in _subsets(probes[anchor[pivots[anchor]]]):
                key = _found(tail, groups, tail, char, seen)
                outcomes[key] = (tuple(dict.fromkeys((*proven, *seen))) if seen else proven, unsure)
    return (
        # Without other groups ``findall`` gives the whole match, which is the part from the
        # pivot on: no group of its own (``re`` then skips the pivot it found, not re-reading it).
        "(" + "|".join(branches) + ")" if groups else "|".join(branches),
        frozenset(pivots),
        tuple((tail, tuple(found)) for tail, found in by_tail.items()),
        tuple(sorted(neighbours.items())),
        tuple(outcomes.items()),
    )


# Entries past which the stored scans' memo starts over: a start-up reads the whole record.
MAX_STORED_SCANS = 128
# The scans of the runtime gate (``prefilter.RuleSetGate``: ~1.5 ms of each start), kept on
# disk; not those built for a long text, whose big outcome tables would make every start
# read them.
_stored_scan_parts = cache.persistent_depending_on(
    "soulscan.engine.anchors", limit=MAX_STORED_SCANS)(_scan_parts)


def pivot_scans(anchors: Iterable[str], min_rank: int = MIN_PIVOT_RANK, *,
                stored: bool = False) -> tuple[AnchorScan, ...]:
    """What ``build_scan(anchors, min_rank)`` pins, as one scan per pivot character.

    A pattern that starts with one literal character is searched by ``re`` with a tight loop;
    one that starts with any of several is searched by a set test of every character, ten
    times the work (a scan a character costs less up to about nine of them), and a pivot
    absent from a text is ruled out by one ``in`` (``memchr``) before its scan. Each scan
    is exact on its own: no anchor of one can hide another's, and what one hides within
    its own is left to ``in`` (``outcomes``).
    """
    by_pivot: dict[str, list[str]] = {}
    for anchor, index in _pivots(set(anchors), min_rank).items():
        by_pivot.setdefault(anchor[index], []).append(anchor)
    # No groups: told apart or probed at every stop of a common pivot (``v``, ``w``), the few
    # anchors that share a part or hide behind one cost more than their ``in``s where found.
    return tuple(build_scan(group, pivot=char, max_groups=0, stored=stored)
                 for char, group in sorted(by_pivot.items()))


def pinnable(anchors: Iterable[str], min_rank: int = MIN_PIVOT_RANK) -> frozenset[str]:
    """The anchors ``build_scan(anchors, min_rank)`` pins, without building it."""
    return frozenset(_pivots(set(anchors), min_rank))


def on_pivots_of(anchors: Iterable[str], keep: Iterable[str],
                 min_rank: int = MIN_PIVOT_RANK) -> frozenset[str]:
    """The anchors (of a ``build_scan`` with ``min_rank``) pinned to a character that one of
    ``keep`` is pinned to too: ``re`` stops at every occurrence of a pivot, so a pivot
    worth its stops for ``keep`` carries the others at almost no cost, and one that only
    the others use may not be worth them."""
    pivots = _pivots(set(anchors), min_rank)
    keeping = set(keep)
    kept = {anchor[index] for anchor, index in pivots.items() if anchor in keeping}
    return frozenset(anchor for anchor, index in pivots.items() if anchor[index] in kept)


def letter_scans(words: Iterable[str], *, stored: bool = False) -> tuple[AnchorScan, ...]:
    """Scans for words of common characters only, which ``build_scan`` leaves unpinned:
    one scan for each character that is the rarest of ``MIN_WORDS_A_LETTER`` or more of
    them, pinning those words to it.

    Such a scan's pattern starts with that one literal character, and ``re`` then looks
    for it with a tight loop rather than a set test a character: a whole text read, with a
    stop at each ``m``, costs less than the ``in`` of two or three of those words (each a
    whole read of a text that lacks it).
    """
    by_letter: dict[str, list[str]] = {}
    for word in sorted(set(words)):
        by_letter.setdefault(max(word, key=frequency_rank), []).append(word)
    return tuple(build_scan(group, pivot=letter, stored=stored) for letter, group in sorted(by_letter.items())
                 if len(group) >= MIN_WORDS_A_LETTER)


def _telling_place(anchors: list[str], pivots: dict[str, int]) -> int | None:
    """How far before the pivot the anchors (of one pivot-to-end part) each have a
    different character, nearest first; None when no place tells them all apart."""
    for back in range(1, min(pivots[anchor] for anchor in anchors) + 1):
        if len({anchor[pivots[anchor] - back] for anchor in anchors}) == len(anchors):
            return back
    return None


def _told_apart(anchors: list[str], pivots: dict[str, int], back: int) -> str:
    """One alternative for anchors of one pivot-to-end part: one of them ends here, and a
    group captures the character ``back`` places before the pivot, which says which."""
    anchor = anchors[0]
    rest = anchor[pivots[anchor] + 1:]  # the same for all of them
    ahead = rest[:1]  # first, as in ``_after_pivot``
    which = "|".join(f"(?<={re.escape(anchor[:pivots[anchor] + 1] + ahead)})" for anchor in anchors)
    told = f"(?<=((?s:.)){'(?s:.)' * (back + len(ahead))})"
    return re.escape(ahead) + f"(?:{which})" + told + re.escape(rest[1:])


def _found(tail: str, groups: list[tuple[str, str]], part: str, told: str,
           seen: tuple[str, ...]) -> Found:
    """What ``findall`` gives for ``tail`` found with ``told`` in the group of ``part`` (if
    it has one), and the probed anchors ``seen`` at the same place."""
    if not groups:
        return tail
    return (tail, *(told if group == ("told", part) else
                    name[:-1] if kind == "probe" and name in seen else ""
                    for group in groups for kind, name in [group]))


def _probed(pinned: list[str], pivots: dict[str, int], told_apart: dict[str, int]) -> list[str]:
    """The anchors of one pivot character (in the order they are tried) that end at their
    pivot and that an anchor tried before them could hide at that very place (``now``
    behind ``with``: "nowith"). Each gets a probe: an optional lookbehind at the pivot,
    tried before the alternatives, whose group captures the part before the pivot where
    the anchor ends there, whichever alternative then matches."""
    probed = []
    for index, anchor in enumerate(pinned):
        pivot = pivots[anchor]
        if pivot == 0 or pivot != len(anchor) - 1 or anchor[pivot:] in told_apart:
            continue
        if any(_agree_at_pivot(other, anchor, pivots) for other in pinned[:index]):
            probed.append(anchor)
    return probed


def _agree_at_pivot(found: str, other: str, pivots: dict[str, int]) -> bool:
    """Can ``found`` and ``other`` both occur with their pivots at one place?"""
    offset = pivots[found] - pivots[other]  # where ``other`` starts, in ``found``'s offsets
    first, last = max(0, -offset), min(len(other), len(found) - offset)
    return other[first:last] == found[offset + first:offset + last]


def _subsets(anchors: list[str]) -> list[tuple[str, ...]]:
    return [tuple(a for bit, a in enumerate(anchors) if mask >> bit & 1)
            for mask in range(1 << len(anchors))]


def _pivots(anchors: set[str], min_rank: int, pivot: str | None = None) -> dict[str, int]:
    """Each pinnable anchor's pivot: its rarest character, or another rare enough one when
    that keeps its pivot-to-end part apart from every other anchor's (anchors with the same
    part are told apart by an ``in`` each, a whole read of a text that lacks them). With
    ``pivot``, one of the anchor's ``pivot`` characters."""
    choices = {}
    for anchor in anchors:
        rare = [i for i in range(len(anchor))
                if (anchor[i] == pivot if pivot is not None else frequency_rank(anchor[i]) >= min_rank)]
        if rare:
            choices[anchor] = sorted(rare, key=lambda i: (-frequency_rank(anchor[i]), i))
    pivots = {anchor: indexes[0] for anchor, indexes in choices.items() if len(indexes) == 1}
    tails = {anchor[index:] for anchor, index in pivots.items()}
    for anchor in sorted(set(choices) - set(pivots), key=lambda a: (len(choices[a]), a)):
        indexes = choices[anchor]
        index = next((i for i in indexes if anchor[i:] not in tails), indexes[0])
        pivots[anchor] = index
        tails.add(anchor[index:])
    return pivots


def _after_pivot(anchor: str, index: int) -> str:
    """The alternative of ``anchor`` after its pivot: the character after the pivot first,
    when there is one, then the lookbehind for the part before it. ``re`` skips an
    alternative that starts with a literal character other than the next one without
    entering it (most stops at a pivot find no anchor); a lookbehind it must enter."""
    ahead = 1 if index + 1 < len(anchor) else 0
    behind = f"(?<={re.escape(anchor[:index + 1 + ahead])})" if index else ""
    return re.escape(anchor[index + 1:index + 1 + ahead]) + behind + re.escape(anchor[index + 1 + ahead:])


def _hidden_by(found: str, pivots: dict[str, int], by_pivot: dict[str, list[str]],
               probed: frozenset[str] = frozenset()) -> frozenset[str]:
    """Anchors whose pivot can fall inside a match of ``found`` (from its pivot to its end)
    where they would agree with it on every character they share. At ``found``'s own pivot
    only the anchors tried after it (the ones before it failed there), and no probed one
    (its probe looked there)."""
    pivot = pivots[found]
    hidden = set()
    for at in range(pivot, len(found)):
        candidates = by_pivot.get(found[at], [])
        if at == pivot:
            candidates = [other for other in candidates[candidates.index(found) + 1:]
                          if other not in probed]
        for other in candidates:
            offset = at - pivots[other]  # where ``other`` starts, in ``found``'s offsets
            first, last = max(0, -offset), min(len(other), len(found) - offset)
            if other != found and other[first:last] == found[offset + first:offset + last]:
                hidden.add(other)
    return frozenset(hidden)
