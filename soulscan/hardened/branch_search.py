r"""Search the live branches of a hardened rule only where a match can start.

When every branch left by the gate begins with literal text (``' ignore'``, ``'<|im_start'``,
``'忽略'``), every match starts where one of those strings occurs; when a branch begins with a
short run of bounded width (``(?:^|\n)[ \t>]{0,8}\[system``), every match starts that many
characters (``lo`` to ``hi``) before one. Trying the pattern with ``match`` at each such place,
skipping the places a previous match covers, gives exactly what ``finditer`` gives over the
whole text: ``finditer`` takes the leftmost match at or after the end of the previous one, and
only those places can start one. ``match(text, place)`` sees the whole text, so lookbehinds,
``^`` and ``\b`` read the same characters either way. A branch whose text starts anywhere else
leaves the whole-text ``finditer``.

A text with many places is searched whole instead: one ``finditer`` is cheaper than hundreds of
``match`` calls (``soulscan.engine.prefilter.most_places``, the runtime rules' trade-off too).
``tests/test_hardened_branch_search.py`` compares this with ``finditer``, branch by branch.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

import regex

from soulscan.engine import cache
from soulscan.engine.anchors import extract_regex_anchors, fold, rarity
from soulscan.engine.matcher import PreparedText
from soulscan.engine.prefilter import matches_at, most_places
from soulscan.engine.segments import MIN_START_RARITY
from soulscan.hardened.anchor_finder import KeyedStrings, WordsIndex
from soulscan.hardened.reach import matches_at_by_window, reach
from soulscan.hardened.repeated_lines import REPEATED_LINES_FROM, RepeatedLines, repeated_lines


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


@dataclass(frozen=True)
class BranchSearch:
    """`pattern`: the rule's own; `live`: the alternation of the branches the gate left, when
    it dropped some. A dropped branch matches nowhere in the text, so at each place the
    first branch of `pattern` that matches is a live one: trying `pattern` at the live
    branches' places gives what `live` gives. Only a whole-text search, or one at very many
    places, compiles `live` (sparing the dropped branches' tries at each of them): each text
    may leave another set of branches, and compiling one costs as much as hundreds of
    searches."""

    pattern: regex.Pattern[str]
    starts: tuple[Starts, ...] | None  # every match is placed by one; None: search the whole text
    # string of `starts` -> anchors it holds once folded: a text without one of them has no
    # such string (folding keeps each character's place and turns it into the same ASCII)
    needs: Mapping[str, frozenset[str]] = field(default_factory=dict)
    live: tuple[str, int] | None = None  # (source, flags)
    # every match ends with one of the strings and is `shortest` to `widest` long
    # (``trailing_strings``), so it starts that far before the end of one of their places
    ends: Ends | None = None
    # a match starts only right after a character this zero-width pattern (the pattern's
    # own leading lookbehind, ``leading_lookbehind``) finds: the places of a search in
    # windows without start strings
    after: regex.Pattern[str] | None = None

    @functools.cached_property
    def _ignorecase(self) -> bool:
        # cached: `flags & IGNORECASE` is a slow enum operation, not worth repeating a text
        return bool(self.pattern.flags & regex.IGNORECASE)

    def spans(
        self,
        prepared: PreparedText,
        words: WordsIndex | None = None,
        present: set[str] | None = None,
    ) -> list[tuple[int, int]]:
        """Every match, as ``finditer`` gives them. `words`: the index of the prepared words
        view's folded text; `present`: which of the anchors `needs` names occur in it (all
        of them looked up): the strings they rule out are not searched for."""
        text = prepared.text
        if self.starts is not None:
            places = self._places(prepared, words, present)
        else:
            places = self._window_places(prepared)
        if places is not None:
            narrow = self.live is not None and len(places) >= NARROWED_FROM_PLACES
            pattern = _compiled(*self.live) if narrow and self.live else self.pattern
            if len(places) >= MEMO_FROM_PLACES and _repeated_lines(text) is not None:
                around = reach(pattern.pattern, pattern.flags)
                if around is not None and around.behind + around.ahead >= MEMO_FROM_REACH:
                    return list(matches_at_by_window(pattern, text, places, around))
            return list(matches_at(pattern, text, places))
        pattern = self.pattern if self.live is None else _compiled(*self.live)
        return [match.span() for match in pattern.finditer(text)]

    def _places(
        self, prepared: PreparedText, words: WordsIndex | None, present: set[str] | None
    ) -> list[int] | None:
        """Every place where a match can start, or None when there are too many to try."""
        text = prepared.text
        haystack = prepared.folded if self._ignorecase else text
        most = most_places(len(text))
        windows = self._windows(haystack, len(text), most)
        places: set[int] = set()
        needs = self.needs
        for starts in self.starts or ():
            if present is not None and needs:
                # the gate's lookup says which strings occur: the words index adds nothing
                strings: Sequence[str] = [
                    s for s in starts.strings if s not in needs or needs[s] <= present
                ]
            else:
                strings = starts.held_by(words)
            # each place of a string is tried at `width` places
            width = starts.hi - starts.lo + 1
            budget = (most - len(places)) // width
            if windows is None:
                found = start_places(haystack, strings, len(text), budget)
            else:
                found = _places_in(windows, starts, strings, haystack, len(text), budget)
            if found is None:
                return None
            if starts.hi:
                found = [p - d for p in found for d in range(starts.lo, starts.hi + 1) if p >= d]
            places.update(found)
            if len(places) > most:
                return None
        return sorted(places)

    def _windows(self, haystack: str, length: int, most: int) -> list[tuple[int, int]] | None:
        """The ranges where a match can start (from `widest` to `shortest` characters
        before the end of a place of a string every match ends with), merged, in order;
        None to look everywhere."""
        if self.ends is None:
            return None
        ends = self.ends
        closings: list[int] = []  # where a place of one of the strings ends
        for string in ends.strings:
            found = start_places(haystack, (string,), length, most - len(closings))
            if found is None:
                return None
            closings += [place + len(string) for place in found]
        windows: list[tuple[int, int]] = []
        for closing in sorted(closings):
            first, last = max(0, closing - ends.widest), closing - ends.shortest
            if windows and first <= windows[-1][1] + 1:
                windows[-1] = (windows[-1][0], max(windows[-1][1], last))
            else:
                windows.append((first, last))
        return windows

    def _window_places(self, prepared: PreparedText) -> list[int] | None:
        """Every place in the windows (``_windows``) where a match of a pattern without
        start strings can start, or None to search the whole text: a non-empty match
        starts in a window, and right after a character `after` finds when it is known."""
        if self.ends is None or self.ends.shortest < 1:
            return None
        text = prepared.text
        haystack = prepared.folded if self._ignorecase else text
        # ``finditer`` of such a pattern tries it at every place of the text, each try far
        # cheaper than a ``match`` call: only a text with few places in windows pays
        most = len(text) // WINDOW_CHARS_PER_PLACE
        windows = self._windows(haystack, len(text), most)
        if windows is None:
            return None
        places: list[int] = []
        after = self.after
        for first, last in windows:
            if after is None:
                places.extend(range(first, last + 1))
            else:
                places.extend(m.start() for m in after.finditer(text, first, last + 1))
            if len(places) > most:
                return None
        return places


def _places_in(
    windows: list[tuple[int, int]], starts: Starts, strings: Sequence[str],
    haystack: str, length: int, most: int,
) -> list[int] | None:
    """The places of `strings` that put a match start in one of the windows; None past
    `most`. (A string `lo` to `hi` after a start in [a, b] starts in [a + lo, b + hi].)"""
    found: list[int] = []
    longest = max(map(len, strings), default=0)
    lines = _repeated_lines(haystack)
    if lines is not None:
        # each string's places found once, those in each window picked out of them
        every = [(len(string), lines.every(string)) for string in strings]
        for first, last in windows:
            limit = min(length, last + starts.hi + longest)
            begin = first + starts.lo
            for size, places in every:
                found += places[bisect_left(places, begin) : bisect_right(places, limit - size)]
            if len(found) > most:
                return None
        return found
    for first, last in windows:
        limit = min(length, last + starts.hi + longest)
        more = start_places(haystack, strings, limit, most - len(found), first + starts.lo)
        if more is None:
            return None
        found += more
    return found


def _repeated_lines(haystack: str) -> RepeatedLines | None:
    return repeated_lines(haystack) if len(haystack) >= REPEATED_LINES_FROM else None


# A text that repeats its lines is searched once per distinct window a pattern can read
# (``reach.matches_at_by_window``) when there are this many places to try, and the pattern
# reads this far around each: a try that may read that far costs more than the window's
# slice and hash.
MEMO_FROM_PLACES = 64
MEMO_FROM_REACH = 1024


# After this many places of one string, found a ``find`` each, the rest are counted in one
# C pass when they look too many: a string that occurs everywhere is given up on without a
# call a place.
FINDS_BEFORE_COUNT = 8


def start_places(
    haystack: str, strings: Iterable[str], limit: int, most: int, begin: int = 0
) -> list[int] | None:
    """Every offset from `begin` where one of `strings` occurs whole below `limit`; None
    past `most`."""
    lines = _repeated_lines(haystack)
    if lines is not None:
        return lines.places(strings, limit, most, begin)
    places: list[int] = []
    find = haystack.find
    for string in strings:
        index = find(string, begin, limit)
        found = 0
        while index >= 0:
            places.append(index)
            found += 1
            if len(places) > most:
                return None
            if (found == FINDS_BEFORE_COUNT
                    and (limit - index) * found > (most - len(places)) * (index - begin + 1)
                    and len(places) + haystack.count(string, index + 1, limit) > most):
                # at the rate found so far the string would pass `most`, and ``count`` (of
                # occurrences that do not overlap: never more than there are) says it does
                return None
            index = find(string, index + 1, limit)
    return places


# Compiling the live branches' alternation costs about as much as trying the dropped
# branches too at this many places.
NARROWED_FROM_PLACES = 2048


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, flags: int) -> regex.Pattern[str]:
    return regex.compile(source, flags)


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
# A search in windows without start strings tries the pattern at every place of a window
# (after a character `after` finds): one ``match`` call costs about what ``finditer``
# spends on this many characters of a whole-text search of such a pattern.
WINDOW_CHARS_PER_PLACE = 8


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


def anchors_held(starts: tuple[Starts, ...] | None, anchors: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each string of `starts` -> the `anchors` (folded text) it holds, when it holds any."""
    anchors = tuple(anchors)
    held = {}
    for string in {string for group in starts or () for string in group.strings}:
        folded = fold(string)
        inside = frozenset(anchor for anchor in anchors if anchor in folded)
        if inside:
            held[string] = inside
    return held


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
