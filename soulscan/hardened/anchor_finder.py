"""Which of a fixed set of literal anchors occur in a folded text.

Each anchor costs one substring search, which ordinary prose pays hundreds of times over.
Two finders answer exactly for every anchor they are given, each suited to one kind of text:

* ``PivotFinder``: one ``re`` pass that stops only at rare characters finds the anchors
  holding one (``soulscan.engine.anchorscan``), and one pass a shared letter the anchors
  made only of common characters; the few left are each searched with ``in``. The passes
  are built at first need: the first small texts are answered with an ``in`` per anchor,
  which costs less than building them;
* ``TokenFinder`` (the words view, a text of words separated by single spaces): a whole
  word between spaces is found by a set intersection with the text's tokens (``WordsIndex``,
  one split); the anchors inside one word (maybe with a space on one side) by one pivot
  pass over the text's distinct words, which hold such an anchor exactly when the text does
  and are shorter; the anchors of several words by one pivot pass over the text.

Once a process has looked up enough text (``soulscan.engine.re2_literals``), each finder
answers by one RE2 set of all its anchors instead, a linear pass about ten times cheaper
than those passes, and as exact; a text RE2 cannot answer for goes the ways above.

``tests/test_hardened_gate.py`` compares both with plain ``in``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol

import regex

from soulscan.engine.anchors import NON_ASCII
from soulscan.engine.anchorscan import MIN_PIVOT_RANK, AnchorScan, build_scan, letter_scans
from soulscan.engine.re2_literals import LiteralSetWhenDue


class AnchorFinder(Protocol):
    def present(self, folded: str) -> set[str]:
        """Exactly the anchors that occur in `folded` (and `NON_ASCII`, which
        ``PreparedText`` appends to the folded form of a non-ASCII text)."""
        ...


@functools.lru_cache(maxsize=64)
def pivot_finder(anchors: frozenset[str]) -> PivotFinder:
    """The finder for `anchors` (none of them `NON_ASCII`) in any text."""
    return PivotFinder(anchors)


@functools.lru_cache(maxsize=64)
def token_finder(anchors: frozenset[str]) -> TokenFinder:
    """The finder for `anchors` (none of them `NON_ASCII`) in a words view."""
    return TokenFinder(sorted(anchors))


# Building a finder's scans costs milliseconds (``build_scan`` works out hundreds of
# anchors' pivots, ``re`` compiles the alternation): a run that scans one small file pays
# it for a lookup an ``in`` per anchor does in a fraction of one. A finder answers with
# ``in`` until that has read about this many characters (a text's length, plus a call's
# overhead, times the anchors it looks for: about half a millisecond per million), less
# than the build costs, then builds its scans.
IN_BUDGET = 8_000_000
IN_CALL_CHARS = 100  # an ``in`` of a tiny text still costs a call


# A long text that repeats its lines (a generated file, a padded attack) is searched through
# its distinct lines, joined by line breaks: an anchor without a line break is in the text
# exactly when it is in one of its lines. Splitting and joining costs about a tenth of the
# passes, paid in vain when the lines are mostly distinct.
DISTINCT_LINES_FROM = 1 << 15


def _distinct_lines(text: str) -> str | None:
    """The text's distinct lines joined by line breaks, when that is under half as long."""
    distinct = "\n".join(dict.fromkeys(text.split("\n")))
    return distinct if len(distinct) * 2 <= len(text) else None


class PivotFinder:
    def __init__(self, anchors: Iterable[str], min_rank: int = MIN_PIVOT_RANK,
                 in_budget: int = IN_BUDGET) -> None:
        self.anchors = tuple(sorted(set(anchors)))
        # an ASCII text holds none of the others: they are not looked up with ``in`` there
        self._ascii_anchors = tuple(anchor for anchor in self.anchors if anchor.isascii())
        self._min_rank = min_rank
        self._in_budget = in_budget
        self._scans: tuple[tuple[AnchorScan, ...], tuple[str, ...]] | None = None
        # the anchors a text's distinct lines may not tell (``_distinct_lines``)
        self._across_lines = frozenset(anchor for anchor in self.anchors if "\n" in anchor)
        self._literal_set = LiteralSetWhenDue(self.anchors)

    def found_in(self, text: str) -> set[str]:
        """Exactly the anchors that occur in `text`."""
        if len(text) >= DISTINCT_LINES_FROM:
            lines = _distinct_lines(text)
            if lines is not None:
                found = self._found_in(lines) - self._across_lines
                found.update(anchor for anchor in self._across_lines if anchor in text)
                return found
        return self._found_in(text)

    def _found_in(self, text: str) -> set[str]:
        ascii = text.isascii()
        if self._scans is None:
            anchors = self._ascii_anchors if ascii else self.anchors
            reads = (len(text) + IN_CALL_CHARS) * len(anchors)
            if reads <= self._in_budget:
                self._in_budget -= reads
                return {anchor for anchor in anchors if anchor in text}
            self._scans = self._build()
        scans, unpinned = self._scans
        found = scans[0].present(text)
        for scan in scans[1:]:
            found |= scan.present(text)
        found.update(anchor for anchor in unpinned if anchor in text and (anchor.isascii() or not ascii))
        return found

    def _build(self) -> tuple[tuple[AnchorScan, ...], tuple[str, ...]]:
        """The scans, and the anchors they leave to ``in``."""
        anchors = set(self.anchors)
        scan = build_scan(anchors, self._min_rank)
        # anchors of common letters only: one scan a letter several of them share
        scans = (scan, *letter_scans(anchors - scan.pinned))
        pinned = frozenset().union(*(scan.pinned for scan in scans))
        return scans, tuple(sorted(anchors - pinned))

    def present(self, folded: str) -> set[str]:
        found = _found_by_set(self._literal_set, folded)
        if found is None:
            found = self.found_in(folded)
        if folded.endswith(NON_ASCII):
            found.add(NON_ASCII)
        return found


# Token keys. A token is what a split on spaces gives in the words view (its only
# separator). A piece of an anchor between two of its spaces is a whole token of any text
# holding the anchor; the piece after its last space starts a token, the piece before its
# first one ends a token.
WHOLE, HEAD, TAIL = 0, 1, 2
KEY_CHARS = 4  # a token's first or last characters kept as HEAD and TAIL keys
ONE_TOKEN_PIVOT_RANK = 10  # below `e t i a r o n s c d`
# Splitting a text into tokens costs about as much as sixty substring searches.
MIN_ANCHORS_FOR_TOKENS = 60
TokenKey = tuple[int, str]
_WORD = regex.compile(r"[a-z0-9]+")
_NOT_SPACED = regex.compile(r"[^a-z0-9 ]")


def token_keys(anchor: str) -> tuple[TokenKey, ...]:
    """Every token key a text holding `anchor` holds (none for a piece of one token)."""
    if anchor == NON_ASCII or not anchor.isascii() or _NOT_SPACED.search(anchor):
        return ()
    pieces = anchor.split(" ")
    if len(pieces) < 2:
        return ()
    keys = [(WHOLE, piece) for piece in pieces[1:-1] if piece]
    if len(pieces[-1]) >= KEY_CHARS:
        keys.append((HEAD, pieces[-1][:KEY_CHARS]))
    if len(pieces[0]) >= KEY_CHARS:
        keys.append((TAIL, pieces[0][-KEY_CHARS:]))
    # the longest whole token first: it is the rarest, and it indexes the anchor
    return tuple(sorted(keys, key=lambda key: (key[0] != WHOLE, -len(key[1]), key)))


class KeyedStrings:
    """Strings of words, each indexed by its token keys: the ones a text of words may hold
    are picked out by set intersections, without a look at each string."""

    def __init__(self, strings: Iterable[str]) -> None:
        self.by_key: dict[TokenKey, list[tuple[str, tuple[TokenKey, ...]]]] = {}
        self.unkeyed: list[str] = []  # strings with no key: a text may hold any of them
        for string in strings:
            keys = token_keys(string)
            if keys:
                self.by_key.setdefault(keys[0], []).append((string, keys[1:]))
            else:
                self.unkeyed.append(string)
        self.keys = tuple(
            frozenset(key for kind_, key in self.by_key if kind_ == kind) for kind in (WHOLE, HEAD, TAIL)
        )

    def keyed_held_by(self, words: WordsIndex) -> Iterator[str]:
        """The strings with keys whose keys the text all holds (the only ones it can hold)."""
        held = words.held
        for kind, keys in enumerate(self.keys):
            for key in keys.intersection(held[kind]):
                for string, others in self.by_key[(kind, key)]:
                    if all(other in held[other_kind] for other_kind, other in others):
                        yield string


class TokenFinder:
    """Which of a fixed set of anchors occur in a folded words view."""

    def __init__(self, anchors: Sequence[str]) -> None:
        self.tokens_pay = len(anchors) >= MIN_ANCHORS_FOR_TOKENS
        self.anchors = tuple(anchors)
        self.ascii_anchors = tuple(anchor for anchor in anchors if anchor.isascii())
        # ` word ` (one whole token, a space each side: the start strings of most rules of
        # the view) occurs in a text padded with spaces exactly when `word` is one of its
        # tokens: a set intersection answers for all of them
        self.spaced_words = {anchor[1:-1]: anchor for anchor in anchors if spaced_word(anchor)}
        spaced = set(self.spaced_words.values())
        # A piece of one word, maybe with a space on one side (` instr`, `user `), is in a
        # padded text exactly when it is in its distinct tokens, each with a space each
        # side, which are shorter: one pivot pass over them finds all such anchors.
        one_word = {a for a in anchors if a not in spaced and a.isascii() and one_word_piece(a)}
        self.in_tokens = PivotFinder(one_word, ONE_TOKEN_PIVOT_RANK)
        # Anchors of several words by one pivot pass over the text (an ``in`` of each whose
        # words the text holds costs more: the common words are in most texts).
        self.across = PivotFinder(
            a for a in anchors if a not in spaced and a not in one_word and a.isascii()
        )
        # an ASCII text holds none of these
        self.non_ascii = PivotFinder(anchor for anchor in anchors if not anchor.isascii())
        self._literal_set = LiteralSetWhenDue(self.anchors)

    def present(self, folded: str, words: Callable[[], WordsIndex] | None = None) -> set[str]:
        """`words`: gives the index of `folded` (``ViewRules.words_index``, from the words
        view's own tokens), asked only when the tokens pay: not when an RE2 set answers."""
        ascii = folded.isascii()
        found_by_set = _found_by_set(self._literal_set, folded)
        if found_by_set is not None:
            found = found_by_set
        elif not self.tokens_pay:
            found = {anchor for anchor in (self.ascii_anchors if ascii else self.anchors) if anchor in folded}
        else:
            index = WordsIndex.of(folded) if words is None else words()
            padded = _padded(folded)
            found = self.in_tokens.found_in(f" {index.distinct} " if padded else folded)
            found |= self.across.found_in(folded)
            if not ascii:
                found |= self.non_ascii.found_in(folded)
            spaced_words = self.spaced_words
            held = spaced_words.keys() & index.tokens
            if held and not padded:
                held = {word for word in held if spaced_words[word] in folded}
            found.update(spaced_words[word] for word in held)
        if folded.endswith(NON_ASCII):  # where PreparedText puts it
            found.add(NON_ASCII)
        return found


def _found_by_set(literal_set: LiteralSetWhenDue, folded: str) -> set[str] | None:
    """The anchors in `folded` by one RE2 pass over it, once such passes are due
    (``soulscan.engine.re2_literals``); None when they are not, or RE2 cannot say."""
    built = literal_set(len(folded))
    return None if built is None else built.present(folded)


def spaced_word(anchor: str) -> bool:
    """One whole token with a space each side (`` [^ ]+ ``): string tests, not a regex
    match of each of the words view's ~650 anchors at start-up."""
    return len(anchor) > 2 and anchor[0] == anchor[-1] == " " and " " not in anchor[1:-1]


def one_word_piece(anchor: str) -> bool:
    """A piece of one token, maybe with a space on one side or both (`` ?[^ ]+ ?``)."""
    core = anchor.removeprefix(" ")
    core = core.removesuffix(" ")
    return bool(core) and " " not in core


def _padded(folded: str) -> bool:
    """Does every token of `folded` have a space each side (bar the NON_ASCII marker that
    PreparedText appends to a non-ASCII text, after its last space)?"""
    return folded.startswith(" ") and folded.endswith((" ", " " + NON_ASCII))


class WordsIndex:
    """The distinct tokens of a folded words view (and, when asked, their first and last
    characters)."""

    def __init__(self, tokens: set[str]) -> None:
        self.tokens = tokens

    @functools.cached_property
    def distinct(self) -> str:
        """Every distinct token once: shorter than the text, and holding a string without a
        space exactly when the text does (joined at first need: a text whose anchors an
        RE2 set finds never needs it)."""
        return " ".join(self.tokens)

    @functools.cached_property
    def longest(self) -> int:
        """The length of the longest token: no run of characters other than a space in the
        text is longer (``reach.reach``'s `longest_word`; asked by each rule tried in it)."""
        return max(map(len, self.tokens), default=0)

    @classmethod
    def of(cls, folded: str) -> WordsIndex:
        return cls(set(folded.split(" ")))

    @functools.cached_property
    def held(self) -> tuple[set[str], set[str], set[str]]:
        """The token keys by WHOLE, HEAD, TAIL (``KeyedStrings``)."""
        tokens = self.tokens
        return (tokens, {t[:KEY_CHARS] for t in tokens}, {t[-KEY_CHARS:] for t in tokens})
