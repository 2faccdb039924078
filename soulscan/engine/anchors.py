"""Literal anchors: a cheap test that rules a pattern out before the regex runs.

For each python-re pattern we extract requirements that any text it matches must
meet: ``ignore`` *and* ``instructions`` for the prompt-injection rule, one of
``cobalt``/``sliver``/... for the C2-name rule. A scan checks them with ``in`` on a
case-folded copy of the text, and only runs the regexes whose requirements all hold.

Case-insensitive anchors are ASCII only, and ``fold`` maps every character that
``re`` treats as a case of an ASCII letter onto that letter (``İ``, ``ı`` → ``i``;
``ſ`` → ``s``; ``K`` (Kelvin) → ``k``), so a match always leaves its anchor in the
folded text, at the same offset. ``tests/test_anchors.py`` checks these facts.
"""

from __future__ import annotations

import functools
import re
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

from soulscan.engine import cache

MIN_ANCHOR = 2  # shorter anchors occur in nearly every text: not worth checking
MAX_REQUIREMENTS = 4  # the most selective few are enough


def fold(text: str) -> str:
    """Case-fold ``text`` so that ASCII anchors can be found with ``in``.

    Every character keeps its offset: ``İ`` (the only character whose lower case is
    longer) becomes ``i`` first, so a place found in the folded text is the same place
    in the text.
    """
    return text.replace("\u0130", "i").lower().replace("\u0131", "i").replace("\u017f", "s")


# The non-ASCII characters ``fold`` turns into ASCII ones: ``lower()`` gives ASCII for no
# other non-ASCII character (``tests/test_anchors.py`` checks every code point).
FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")


def folds_to_ascii(text: str) -> bool:
    """Does ``text`` hold a non-ASCII character that ``fold`` turns into an ASCII one?"""
    return "\u0130" in text or "\u0131" in text or "\u017f" in text or "\u212a" in text


Requirement = frozenset[str]  # any one of these strings must occur

# Stands for "some non-ASCII character" in a requirement of a ``regex``-dialect pattern: a
# branch spelled in Cyrillic or CJK needs one, so an all-ASCII text rules it out.
# ``PreparedText`` appends it to the folded form of every non-ASCII text.
NON_ASCII = "\x00non-ascii\x00"


Anchors = tuple[tuple[str, ...], ...]  # every group must have one member in the text


def extract_anchors(pattern: str, flags: int) -> Anchors | None:
    """Requirements every match meets, most selective first; None if there are none."""
    try:
        parsed = _parser.parse(pattern, flags)
    except re.error:
        return None
    ignorecase = bool(parsed.state.flags & re.IGNORECASE)
    return _rank(_requirements(list(parsed), ignorecase))


# Syntax that ``re`` would parse into something else than ``regex`` means (POSIX
# classes read as plain sets, fuzzy constraints read as literal braces): a pattern
# containing any of it gets no anchors rather than wrong ones.
_REGEX_ONLY = ("{e", "{s", "{i", "{d", "{c", "(?V", "(?|", "\\L<", "(?r")
# A POSIX class is ``[:name:]`` (or ``[:^name:]``); a set that merely starts with ``:``
# (``[:>]``) means the same in both dialects.
_POSIX_CLASS = re.compile(r"\[:\^?[A-Za-z_]*:\]")


@cache.persistent  # derived from rule patterns at every start-up: kept across runs
def extract_regex_anchors(pattern: str) -> Anchors | None:
    """Anchors of a ``regex``-dialect pattern, always to be checked on folded text.

    Checking folded text against lower-cased ASCII anchors is sound whatever the
    pattern's case flags (a case-sensitive match still leaves its lower-cased
    literal in the folded text), so scoped ``(?i:…)`` groups need no tracking.
    """
    if any(token in pattern for token in _REGEX_ONLY) or _POSIX_CLASS.search(pattern):
        return None
    try:
        parsed = _parser.parse(pattern, 0)
    except (re.error, OverflowError, RecursionError):
        return None
    return _rank(_requirements(list(parsed), ignorecase=True, non_ascii=True))


def _rank(requirements: list[Requirement]) -> Anchors | None:
    usable = {r for r in requirements if _usable(r)}
    if not usable:
        return None
    ranked = sorted(usable, key=lambda r: (-min(_strength(s) for s in r), len(r), sorted(r)))
    return tuple(tuple(sorted(r)) for r in ranked[:MAX_REQUIREMENTS])


# ASCII characters from most to least frequent in English Markdown: an estimate that only
# steers the order of checks (rarest first), never their outcome.
_FREQUENCY_RANK = " etiaronscdlph\numgfy-.:wbv,/*`kx0\"2#1()|q3'z4_j5][=68>9<7{};?+@$!\\&~%"

# Words found in nearly every English text, whatever their letters.
_COMMON_WORDS = frozenset({
    "a", "about", "act", "all", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can",
    "do", "for", "from", "have", "if", "in", "into", "is", "it", "not", "now", "of", "on", "one",
    "only", "or", "so", "that", "the", "this", "to", "use", "user", "will", "with", "you", "your",
})


def frequency_rank(ch: str) -> int:
    """0 for the most frequent character (space), higher for rarer ones."""
    index = _FREQUENCY_RANK.find(ch)
    return len(_FREQUENCY_RANK) if index < 0 else index


def rarity(anchor: str) -> int:
    """Higher for anchors less likely to occur in a text: longer, of rarer characters."""
    if anchor == NON_ASCII:
        return 0  # most texts in the wild have some non-ASCII character
    score = sum(19 + frequency_rank(ch) for ch in anchor)
    return score // 4 if anchor in _COMMON_WORDS else score


@functools.cache
def checking_order(groups: Anchors) -> Anchors:
    """The same groups, the one least likely to be met first (the first unmet one decides)."""
    return tuple(sorted(groups, key=lambda group: (-min(map(rarity, group)), len(group))))


def _strength(anchor: str) -> int:
    # The non-ASCII marker is the weakest usable anchor: most texts in the wild have some.
    return MIN_ANCHOR if anchor == NON_ASCII else len(anchor)


def _usable(requirement: Requirement) -> bool:
    return bool(requirement) and min(_strength(s) for s in requirement) >= MIN_ANCHOR


def _best(requirements: list[Requirement]) -> Requirement | None:
    usable = [r for r in requirements if _usable(r)]
    if not usable:
        return None
    return max(usable, key=lambda r: (min(_strength(s) for s in r), -len(r)))


def _never_matches_ascii(ch: str) -> bool:
    """Can no ASCII text match this non-ASCII literal, whatever the case flags?

    Case-insensitive matching pairs a character with its upper, lower, title and folded
    forms (``K`` Kelvin with ``k``, ``ſ`` with ``s``, ``ß`` with ``ss``); a character none
    of whose forms holds ASCII is only ever matched by non-ASCII text.
    """
    forms = (ch, ch.lower(), ch.upper(), ch.title(), ch.casefold())
    return not any(c.isascii() for form in forms for c in form)


def _anchor_char(cp: int, ignorecase: bool) -> str | None:
    ch = chr(cp)
    if ignorecase:
        return ch.lower() if cp < 0x80 else None
    return ch


def _requirements(nodes: list[Any], ignorecase: bool, non_ascii: bool = False) -> list[Requirement]:
    """Every requirement that a match of this sequence must meet.

    With ``non_ascii`` a non-ASCII literal that no ASCII text can match adds the
    ``NON_ASCII`` requirement.
    """
    found: list[Requirement] = []
    run: list[str] = []

    def close_run() -> None:
        if run:
            found.append(frozenset({"".join(run)}))
            run.clear()

    for op, av in nodes:
        if op is C.LITERAL:
            ch = _anchor_char(av, ignorecase)
            if ch is None:
                close_run()
                if non_ascii and av >= 0x80 and _never_matches_ascii(chr(av)):
                    found.append(frozenset({NON_ASCII}))
            else:
                run.append(ch)
            continue
        if op is C.BRANCH and run:
            # ``re`` factors a common prefix out of alternatives (``no(?:sec|qa)``):
            # the prefix glued to each alternative's own leading literals is stronger.
            found.append(frozenset("".join(run) + _leading_literals(b, ignorecase) for b in av[1]))
        close_run()
        if op is C.SUBPATTERN:
            add_flags, del_flags = av[1], av[2]
            if (add_flags | del_flags) & re.IGNORECASE and not ignorecase:
                continue  # a scoped case flag: python-re packs never have one
            found += _requirements(list(av[3]), ignorecase, non_ascii)
        elif op is C.BRANCH:
            alternatives: set[str] = set()
            for branch in av[1]:
                best = _best(_requirements(list(branch), ignorecase, non_ascii))
                if best is None:
                    alternatives = set()
                    break
                alternatives |= best
            if alternatives:
                found.append(frozenset(alternatives))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) and av[0] >= 1:
            found += _requirements(list(av[2]), ignorecase, non_ascii)
        elif op is C.ASSERT:
            # a positive lookahead or lookbehind must match inside the text as well
            found += _requirements(list(av[1]), ignorecase, non_ascii)
        elif op is C.IN and _is_literal_set(av, ignorecase):
            found.append(frozenset(_anchor_char(cp, ignorecase) or "" for _, cp in av))
    close_run()
    return found


@cache.persistent  # derived from rule patterns at every start-up: kept across runs
def leading_anchors(pattern: str, flags: int) -> tuple[str, ...] | None:
    """Strings one of which every match of a python-re pattern starts with, as found in the
    text ``PreparedText.may_match`` checks (folded when case-insensitive); None if unknown.

    Knowing where a match can start lets a search try only those places.
    """
    try:
        parsed = _parser.parse(pattern, flags)
    except re.error:
        return None
    found = _leading(list(parsed), bool(parsed.state.flags & re.IGNORECASE))
    return tuple(sorted(found)) if found else None


def leading_strings(nodes: list[Any], ignorecase: bool) -> set[str] | None:
    """Strings one of which every match of this parsed sequence starts with (lower-cased
    when ``ignorecase``); None if unknown."""
    found = _leading(nodes, ignorecase)
    return found or None


def _leading(nodes: list[Any], ignorecase: bool) -> set[str] | None:
    for index, (op, av) in enumerate(nodes):
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue  # zero-width: the match still starts at the next node
        if op is C.LITERAL:
            run = _leading_literals(nodes[index:], ignorecase)
            return {run} if run else None
        if op is C.SUBPATTERN and not (av[1] | av[2]):
            return _leading(list(av[3]), ignorecase)
        if op is C.BRANCH:
            union: set[str] = set()
            for branch in av[1]:
                starts = _leading(list(branch), ignorecase)
                if starts is None:
                    return None
                union |= starts
            return union
        return None
    return None


def _leading_literals(nodes: list[Any], ignorecase: bool) -> str:
    """The literal characters every match of this sequence starts with."""
    chars = []
    for op, av in nodes:
        ch = _anchor_char(av, ignorecase) if op is C.LITERAL else None
        if ch is None:
            break
        chars.append(ch)
    return "".join(chars)


def _is_literal_set(items: list[Any], ignorecase: bool) -> bool:
    return all(op is C.LITERAL and _anchor_char(cp, ignorecase) for op, cp in items)
