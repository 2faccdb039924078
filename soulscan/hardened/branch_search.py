"""Search the live branches of a hardened rule only where a match can start.

When every branch left by the gate begins with literal text (``' ignore'``, ``'<|im_start'``,
``'忽略'``), every match starts where one of those strings occurs. Trying the pattern with
``match`` at each such place, skipping the places a previous match covers, gives exactly what
``finditer`` gives over the whole text: ``finditer`` takes the leftmost match at or after the
end of the previous one, and only those places can start one. ``match(text, place)`` sees the
whole text, so lookbehinds read the same characters either way. A branch that can match the
empty string, or starts with anything but literal text, leaves the whole-text ``finditer``.

A text with many places is searched whole instead: one ``finditer`` is cheaper than hundreds of
``match`` calls (``soulscan.engine.prefilter`` has the same trade-off for the runtime rules).
``tests/test_hardened_gate.py`` compares this with ``finditer`` of the whole rule.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

import regex

from soulscan.engine.anchors import extract_regex_anchors, rarity
from soulscan.engine.matcher import PreparedText
from soulscan.engine.prefilter import start_places
from soulscan.engine.segments import MIN_START_RARITY
from soulscan.hardened.anchor_finder import TokenKey, WordsIndex, token_keys

# Trying a pattern at one place costs about as much as searching this many characters.
CHARS_PER_START = 48


@dataclass(frozen=True)
class BranchSearch:
    pattern: regex.Pattern[str]
    # One of these begins every match (lower-cased and found in the folded text when the
    # pattern ignores case); None: unknown, search the whole text.
    starts: tuple[str, ...] | None

    @functools.cached_property
    def _start_keys(self) -> tuple[tuple[str, tuple[TokenKey, ...]], ...]:
        # A start of lower-case ASCII words leaves its words in the folded text at the same
        # place (folding keeps ASCII lower case as it is): a text of words lacking one of
        # them lacks the start.
        return tuple((start, token_keys(start)) for start in self.starts or ())

    def spans(self, prepared: PreparedText, words: WordsIndex | None = None) -> list[tuple[int, int]]:
        """Every match, as ``finditer`` gives them; `words`: the index of the prepared words
        view's folded text, to skip the starts it lacks."""
        text = prepared.text
        if self.starts is not None:
            starts: Sequence[str] = self.starts
            if words is not None:
                starts = [start for start, keys in self._start_keys if words.holds(keys)]
            haystack = prepared.folded if self.pattern.flags & regex.IGNORECASE else text
            places = start_places(haystack, starts, len(text), len(text) // CHARS_PER_START + 4)
            if places is not None:
                return _matches_at(self.pattern, text, sorted(set(places)))
        return [match.span() for match in self.pattern.finditer(text)]


def _matches_at(pattern: regex.Pattern[str], text: str, places: list[int]) -> list[tuple[int, int]]:
    spans = []
    end = 0
    match = pattern.match
    for place in places:
        if place < end:
            continue
        found = match(text, place)
        if found is not None:
            spans.append(found.span())
            end = found.end()
    return spans


@functools.lru_cache(maxsize=4096)
def leading_strings(source: str, flags: int) -> tuple[str, ...] | None:
    """Strings one of which every match of a regex-dialect pattern starts with; None if unknown.

    Read with ``re``'s parser, which reads a pattern as ``regex`` does unless it holds
    regex-only syntax (``extract_regex_anchors`` refuses those patterns, and so does this).
    Literal text is followed into groups and alternatives (``' (?:ignore|forget) all'``
    starts with ``' ignore all'`` or ``' forget all'``): longer strings leave fewer places.
    """
    if flags & (regex.VERBOSE | regex.V1) or extract_regex_anchors(source) is None:
        return None
    ignorecase = bool(flags & regex.IGNORECASE)
    try:
        parsed = _parser.parse(source, re.IGNORECASE if ignorecase else 0)
    except (re.error, OverflowError, RecursionError):
        return None
    prefixes = _extend([("", True)], list(parsed), ignorecase)
    return starts_union([tuple(prefix for prefix, _ in prefixes)])


def starts_union(starts: Sequence[tuple[str, ...] | None]) -> tuple[str, ...] | None:
    """Strings one of which every match of an alternation starts with, from its branches'."""
    found = {prefix for branch in starts for prefix in branch or ("",)}
    if "" in found:
        return None
    # a string that extends another adds no place of its own
    return tuple(sorted(s for s in found if not any(s != t and s.startswith(t) for t in found)))


# More strings than this cost more `find`s than the longer strings save.
MAX_PREFIXES = 128
Prefix = tuple[str, bool]  # (the text so far, can it still grow)
_ZERO_WIDTH = (C.AT, C.ASSERT, C.ASSERT_NOT)
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)


def _extend(prefixes: list[Prefix], nodes: list[Any], ignorecase: bool) -> list[Prefix]:
    """The prefixes grown through a sequence of nodes, as far as its literal text goes."""
    for op, av in nodes:
        if not any(open_ for _, open_ in prefixes):
            break
        if op in _ZERO_WIDTH:
            continue  # consumes nothing: the next node's text follows directly
        chars = _chars(op, av, ignorecase)
        if chars is not None:
            next_prefixes = [
                (prefix + char, True) if open_ else (prefix, False)
                for prefix, open_ in prefixes
                for char in (chars if open_ else chars[:1])
            ]
        elif op in _REPEATS and av[1] == 1:
            # optional, or once: the text goes on without it or through it
            skipped = prefixes if av[0] == 0 else []
            next_prefixes = [*skipped, *_extend(prefixes, list(av[2]), ignorecase)]
        elif op in _REPEATS and av[0] >= 1:
            # at least once, then unknown: its first time is literal text
            next_prefixes = [(prefix, False) for prefix, _ in _extend(prefixes, list(av[2]), ignorecase)]
        elif op is C.SUBPATTERN and not (av[1] | av[2]):
            next_prefixes = _extend(prefixes, list(av[3]), ignorecase)
        elif op is C.BRANCH:
            next_prefixes = [
                grown for branch in av[1] for grown in _extend(prefixes, list(branch), ignorecase)
            ]
        else:
            next_prefixes = [(prefix, False) for prefix, _ in prefixes]
        # Each string is one read of the text: cut after its first word, so that branches
        # that differ later share their reads (the place is then tried, the match decides).
        next_prefixes = [_first_word(prefix) if open_ else (prefix, open_) for prefix, open_ in next_prefixes]
        if len(set(next_prefixes)) > MAX_PREFIXES:
            return [(prefix, False) for prefix, _ in prefixes]
        prefixes = sorted(set(next_prefixes))
    return prefixes


def _first_word(prefix: str) -> Prefix:
    """A prefix that has just completed a word stops growing, unless that word occurs
    everywhere (`' the '`, `' do '`): such a prefix keeps its next words."""
    if len(prefix) > 1 and prefix.endswith(" "):
        word = prefix[:-1].rsplit(" ", 1)[-1]
        if rarity(word) >= MIN_START_RARITY:
            return (prefix, False)
    return (prefix, True)


def _chars(op: Any, av: Any, ignorecase: bool) -> list[str] | None:
    """The characters a literal or a set of literals matches, or None for other nodes."""
    codes = [av] if op is C.LITERAL else [cp for _, cp in av] if op is C.IN else []
    if not codes or op is C.IN and any(kind is not C.LITERAL for kind, _ in av):
        return None
    chars = [_literal(code, ignorecase) for code in codes]
    return None if None in chars else [char for char in chars if char is not None]


def _literal(code: int, ignorecase: bool) -> str | None:
    """The character as found in the searched text (the folded one when ignoring case)."""
    char = chr(code)
    if not ignorecase:
        return char
    return char.lower() if code < 0x80 else None
