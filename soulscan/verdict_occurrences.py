"""The occurrences of a runtime verdict's rules that a report lists: a bounded number of
each, every one counted.

A report lists at most ``limit`` occurrences of one rule in a file and counts the rest.
``runtime_matches`` builds every occurrence, and a scan window of hidden characters holds
tens of thousands of them (a megabyte of emoji sequences: ~10,000 joiners in its 65,536
characters; tag-character smuggling: one on every character). A hidden character is one
character, so its first ``limit`` places are found by a bounded search and the rest only
counted, in C; the pattern rules are located by ``runtime_matches`` alone (without the
normalisation it needs for them when the verdict names none).
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from soulscan.hermes.scanner import INVISIBLE_CHARS, RuntimeMatch, invisible_id, runtime_matches

_RULE_ID = operator.attrgetter("rule_id")
_MATCH_ORDER = operator.attrgetter("start", "end", "rule_id")


class Occurrences(NamedTuple):
    listed: list[RuntimeMatch]  # the first ``limit`` of each rule, in (start, end, id) order
    counts: Counter[str]  # every occurrence of each rule, listed or not


@functools.cache
def _hidden_chars() -> dict[str, str]:
    """The runtime's id of each hidden character -> the character."""
    return {invisible_id(char): char for char in INVISIBLE_CHARS}


def verdict_occurrences(window: str, scope: str, verdict: Sequence[str], limit: int) -> Occurrences:
    """The occurrences in ``window`` (the text ``verdict`` was found in, as for
    ``runtime_matches``) with at most ``limit`` of each rule listed: the first ``limit``
    of ``runtime_matches(window, scope, verdict)`` of each rule, in the same order."""
    hidden = _hidden_chars()
    chars = [hidden[rule_id] for rule_id in verdict if rule_id in hidden]
    rules = [rule_id for rule_id in verdict if rule_id not in hidden]
    listed = runtime_matches(window, scope, rules) if rules else []
    counts = Counter(map(_RULE_ID, listed))
    if any(count > limit for count in counts.values()):
        listed = _first_of_each(listed, limit)
    for char in chars:
        rule_id = invisible_id(char)
        places, counts[rule_id] = hidden_places(window, char, limit)
        # (built by C-level map, a thousand of them in a window of hidden characters)
        ends = map(operator.add, places, itertools.repeat(1))
        rows = zip(itertools.repeat(rule_id), itertools.repeat(None), places, ends)
        listed.extend(map(tuple.__new__, itertools.repeat(RuntimeMatch), rows))
    if len(chars) + bool(rules) > 1:  # (one rule's places are listed in order)
        listed.sort(key=_MATCH_ORDER)
    return Occurrences(listed, counts)


def hidden_places(window: str, char: str, limit: int, end: int | None = None) -> tuple[list[int], int]:
    """The first ``limit`` places of the hidden character ``char`` in ``window[:end]``, and
    how many times it occurs there (``end`` None: the whole window). A scan window is read
    in its region's text, not copied out of it."""
    stop = len(window) if end is None else min(end, len(window))
    few = _few_places(window, char, min(limit, _FEW_PLACES), stop)
    if len(few) <= min(limit, _FEW_PLACES):
        return few, len(few)
    places = _first_places(window, char, limit, stop, few[-1] + 1)
    # (those past the last place listed counted, not the window again)
    return places, len(places) + window.count(char, places[-1] + 1, stop)


# Up to this many places are found one ``find`` each (a quick scan to each): the split and
# the count read the whole window twice, and the split copies it.
_FEW_PLACES = 32


def _few_places(text: str, char: str, most: int, stop: int) -> list[int]:
    """Every place of ``char`` in ``text[:stop]`` when there are at most ``most``; else the
    first ``most + 1``."""
    places: list[int] = []
    find = text.find
    index = find(char, 0, stop)
    while index >= 0:
        places.append(index)
        if len(places) > most:
            break
        index = find(char, index + 1, stop)
    return places


def hidden_char(rule_id: str) -> str | None:
    """The hidden character a runtime id names (None: a pattern rule's id)."""
    return _hidden_chars().get(rule_id)


def _first_of_each(matches: list[RuntimeMatch], limit: int) -> list[RuntimeMatch]:
    kept: Counter[str] = Counter()
    first: list[RuntimeMatch] = []
    for match in matches:
        kept[match.rule_id] += 1
        if kept[match.rule_id] <= limit:
            first.append(match)
    return first


def _first_places(text: str, char: str, limit: int, stop: int | None = None, seen: int = 0) -> list[int]:
    """Where ``char`` occurs in ``text[:stop]``, its first ``limit`` places: the ends of the
    pieces a split at them leaves (but the rest after the last), each plus the characters
    split off before it. C-level passes, not a ``find`` call a place (a thousand joiners).

    ``seen``: a length of the text's start holding ``_FEW_PLACES + 1`` places: a start as
    long as their density says the first ``limit`` need, twice, is split (and copied) in
    place of the whole text, and the whole only when it holds fewer."""
    stop = len(text) if stop is None else stop
    bound = min(stop, 2 * seen * (limit // (_FEW_PLACES + 1) + 1)) if seen else stop
    pieces = text[:bound].split(char, limit)
    if len(pieces) <= limit and bound < stop:
        pieces = text[:stop].split(char, limit)
    del pieces[-1]
    return list(map(operator.add, itertools.accumulate(map(len, pieces)), itertools.count()))
