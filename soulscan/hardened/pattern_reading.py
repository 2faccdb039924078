r"""What a regex-dialect pattern says about where its matches lie, read from ``re``'s parse.

* ``leading_strings``: literal strings one of which every match holds a known distance
  after its start (``Starts``; its leading text, followed into groups and alternatives);
* ``trailing_strings``: the literal texts every match ends with, and how long a match is
  (``Ends``);
* ``leading_lookbehind``: the one-character lookbehind a pattern starts with, alone;
* ``starts_union``: the starts of an alternation from its branches'.

``soulscan.hardened.branch_search`` searches a rule only at the places these leave, and
``soulscan.hardened.gate`` looks the start strings up with the rules' anchors.
``re``'s parser reads a pattern as ``regex`` does unless it holds regex-only syntax
(``extract_regex_anchors`` refuses those, and so does ``parsed_pattern``).
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

from soulscan.engine import cache
from soulscan.engine.anchors import extract_regex_anchors, rarity
from soulscan.engine.segments import MIN_START_RARITY
from soulscan.hardened.anchor_finder import KeyedStrings, WordsIndex


@dataclass(frozen=True)
class Starts:
    """One of `strings` occurs in every match, `lo` to `hi` characters after its start (in
    the folded text when the pattern ignores case, lower-cased then)."""

    strings: tuple[str, ...]
    lo: int = 0
    hi: int = 0

    @functools.cached_property
    def keyed(self) -> KeyedStrings:
        # A string of lower-case ASCII words leaves its words in the folded text at the same
        # place (folding keeps ASCII lower case as it is): a text of words lacking one of
        # them lacks the string.
        return KeyedStrings(self.strings)

    def held_by(self, words: WordsIndex | None) -> Sequence[str]:
        """The strings a text may hold, by the index of its folded words view if given."""
        if words is None:
            return self.strings
        return [*self.keyed.unkeyed, *self.keyed.keyed_held_by(words)]



# The most characters a search tries before the strings that place it.
MAX_SPREAD = 16


@functools.lru_cache(maxsize=4096)
def leading_strings(source: str, flags: int) -> Starts | None:
    """Strings one of which every match of a regex-dialect pattern holds at a known distance
    from its start (its leading text, or the text after a short run such as ``(?:^|\\n)[ \\t]{0,8}``);
    None if unknown."""
    found = _leading_strings(source, int(flags))
    return None if found is None else Starts(*found)


@cache.persistent  # read for every branch of the words view at start-up (the gate's tests)
def _leading_strings(source: str, flags: int) -> tuple[tuple[str, ...], int, int] | None:
    """``leading_strings`` as plain data (strings, lo, hi). (The memo is keyed by this
    module's source: what the reading takes from ``engine.anchors`` says only whether and
    where the strings are cut, and any cut leaves strings every match holds.)

    Read with ``re``'s parser, which reads a pattern as ``regex`` does unless it holds
    regex-only syntax (``extract_regex_anchors`` refuses those patterns, and so does this).
    Literal text is followed into groups and alternatives (``' (?:ignore|forget) all'``
    starts with ``' ignore all'`` or ``' forget all'``): longer strings leave fewer places.
    """
    parsed = parsed_pattern(source, flags)
    if parsed is None:
        return None
    # an inline `(?i)` makes the whole pattern caseless, as it does the compiled one
    ignorecase = bool(parsed.state.flags & re.IGNORECASE)
    nodes = list(parsed)
    for skipped in range(len(nodes)):
        lo, hi = _parser.SubPattern(parsed.state, nodes[:skipped]).getwidth()
        if hi - lo > MAX_SPREAD:
            return None
        prefixes = _extend([("", True)], nodes[skipped:], ignorecase)
        found = _minimal({prefix for prefix, _ in prefixes})
        if found is not None:
            return found, lo, hi
    return None


def parsed_pattern(source: str, flags: int) -> Any:
    """A regex-dialect pattern read by ``re``'s parser; None when ``re`` may read it otherwise
    (verbose, V1, or syntax ``extract_regex_anchors`` refuses) or cannot read it."""
    if flags & (regex.VERBOSE | regex.V1) or extract_regex_anchors(source) is None:
        return None
    try:
        parsed = _parser.parse(source, re.IGNORECASE if flags & regex.IGNORECASE else 0)
    except (re.error, OverflowError, RecursionError):
        return None
    return None if parsed.state.flags & re.VERBOSE else parsed


# A pattern that can match more than this is searched without windows.
MAX_TRAILING_WIDTH = 1 << 16
# Shorter trailing strings leave too many windows to pay.
MIN_TRAILING_CHARS = 3


@dataclass(frozen=True)
class Ends:
    """Every match ends with one of `strings` and is `shortest` to `widest` long."""

    strings: tuple[str, ...]
    widest: int
    shortest: int


@functools.lru_cache(maxsize=1024)
def trailing_strings(source: str, flags: int) -> Ends | None:
    """The literal texts one of which every match of a regex-dialect pattern ends with
    (in the folded text when the pattern ignores case): its closing literal text, or the
    strings of a lookbehind at its end; None when unknown or too short to help. Read with
    ``re``'s parser, as ``leading_strings`` is."""
    found = _trailing_strings(source, int(flags))
    return None if found is None else Ends(*found)


# read for the single-branch rules at start-up: a parse each without the memo
@cache.persistent_depending_on("soulscan.engine.anchors")
def _trailing_strings(source: str, flags: int) -> tuple[tuple[str, ...], int, int] | None:
    parsed = parsed_pattern(source, flags)
    if parsed is None:
        return None
    ignorecase = bool(parsed.state.flags & re.IGNORECASE)
    shortest, widest = parsed.getwidth()
    if widest > MAX_TRAILING_WIDTH:
        return None
    tail = ""
    behind: list[str] | None = None  # the strings of a lookbehind at the very end
    for node in reversed(list(parsed)):
        op, av = node
        if op in _ZERO_WIDTH or _parser.SubPattern(parsed.state, [node]).getwidth() == (0, 0):
            # consumes nothing: the text before it ends the match as well
            if not tail and behind is None and op is C.ASSERT and av[0] == -1:
                # the text before the match's end is one of these strings
                behind = _strings_of(list(av[1]), ignorecase)
            continue
        char = _literal(av, ignorecase) if op is C.LITERAL else None
        if char is None:
            break
        tail = char + tail
    if len(tail) >= MIN_TRAILING_CHARS:
        return (tail,), widest, shortest
    if behind and min(map(len, behind)) >= MIN_TRAILING_CHARS:
        return tuple(sorted(set(behind))), widest, shortest
    return None


def _strings_of(nodes: list[Any], ignorecase: bool) -> list[str] | None:
    """Every text a run of literal nodes (sets of literals, alternatives, optional parts,
    plain groups) can match, or None for any other node or past ``MAX_PREFIXES`` texts."""
    found = [""]
    for op, av in nodes:
        chars = _chars(op, av, ignorecase)
        if chars is not None:
            choices: list[str] | None = chars
        elif op is C.BRANCH:
            each = [_strings_of(list(branch), ignorecase) for branch in av[1]]
            choices = None if None in each else [s for strings in each for s in strings or ()]
        elif op is C.SUBPATTERN and not (av[1] | av[2]):
            choices = _strings_of(list(av[3]), ignorecase)
        elif op in _REPEATS and av[0] == 0 and av[1] == 1:
            optional = _strings_of(list(av[2]), ignorecase)
            choices = None if optional is None else ["", *optional]
        else:
            choices = None
        if choices is None or len(found) * len(choices) > MAX_PREFIXES:
            return None
        found = [prefix + choice for prefix in found for choice in choices]
    return found


# A leading one-character lookbehind as written: `(?<=` and a set, an escape or a character.
_LEADING_LOOKBEHIND = regex.compile(r"\(\?<=(?:\[(?:\\.|[^\]\\])+\]|\\[a-zA-Z]|[^\\()\[\]|?*+{}.^$])\)")


@functools.lru_cache(maxsize=1024)
def leading_lookbehind(source: str, flags: int) -> regex.Pattern[str] | None:
    """A pattern that begins with a lookbehind of one character (`(?<=[\\s"'@=])`): that
    lookbehind alone, compiled as the pattern compiles it, so that its places are the
    only ones where a match can start; None otherwise, or when case folding could let it
    read more than one character."""
    written = _LEADING_LOOKBEHIND.match(source)
    if written is None or flags & regex.IGNORECASE or _INLINE_FLAGS.search(source):
        return None  # (checked first: most patterns are never parsed here)
    parsed = parsed_pattern(source, flags)
    if parsed is None:
        return None
    try:
        alone = _parser.parse(written.group(), 0)
    except (re.error, OverflowError, RecursionError):
        return None
    first = list(parsed)[:1]
    # the same node read alone as in the pattern (SubPatterns compare by identity: by repr)
    if repr(list(alone)) != repr(first) or first[0][0] is not C.ASSERT or first[0][1][0] != -1:
        return None
    if _parser.SubPattern(parsed.state, list(first[0][1][1])).getwidth() != (1, 1):
        return None
    return regex.compile(written.group(), flags)


# a global inline flag (`(?a)`, `(?i)`) anywhere changes what the lookbehind reads
_INLINE_FLAGS = regex.compile(r"\(\?[a-zA-Z]+\)")


def _minimal(found: set[str], merge_heads: bool = True) -> tuple[str, ...] | None:
    if not found or "" in found:
        return None
    if merge_heads:
        # Strings that share their first MERGED_CHARS characters (`' ignore '`, `' ignorar '`)
        # are searched for as that shared part: each string is one read of the text.
        by_head: dict[str, list[str]] = {}
        for string in found:
            by_head.setdefault(_head(string), []).append(string)
        found = {head if len(group) > 1 else group[0] for head, group in by_head.items()}
    # a string that extends another adds no place of its own
    return tuple(sorted(s for s in found if not any(s != t and s.startswith(t) for t in found)))


# Characters (leading spaces aside) that strings share to be searched for as one: long
# enough to be rare, and to keep a head key of the words index.
MERGED_CHARS = 5


def _head(string: str) -> str:
    spaces = len(string) - len(string.lstrip(" "))
    return string[: spaces + MERGED_CHARS]


def starts_union(starts: Sequence[Starts | None], merge_heads: bool = True) -> tuple[Starts, ...] | None:
    """What places every match of an alternation, from what places its branches'.
    `merge_heads`: search strings of several branches that begin alike as their shared
    head (one read of the text for them all); a caller that knows which strings occur
    keeps each branch's own strings instead, so that it can leave out the absent ones."""
    if not starts or None in starts:
        return None
    by_spread: dict[tuple[int, int], set[str]] = {}
    for branch in starts:
        if branch is not None:
            by_spread.setdefault((branch.lo, branch.hi), set()).update(branch.strings)
    return tuple(
        Starts(_minimal(strings, merge_heads) or (), lo, hi)
        for (lo, hi), strings in sorted(by_spread.items())
    )


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
