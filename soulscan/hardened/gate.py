"""Which hardened rules, and which of their branches, can match one view of a text.

A rule's own anchors (``soulscan.engine.anchors``) are proven for the whole pattern, so a rule
written as a long alternation gets only the union of its branches' weakest words (`SS101`:
one of `ignore`, `prompt`, `rules`, ...), and its regex then tries every branch at every
position. Here each top-level branch gets its own most selective requirement; a rule runs only
when one of its branches meets its requirement, and then only with those branches: a branch
whose anchors are absent cannot match anywhere in the text, so dropping it changes no match.

Testing hundreds of anchors one `in` at a time costs more than the rules it spares, so on
views with many anchors the text's tokens are collected once (one split) and an anchor whose
spelling pins a whole token, or a token's first or last characters, is only searched for when
that token key occurs.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import regex

from soulscan.engine.anchors import NON_ASCII, Anchors, extract_regex_anchors
from soulscan.engine.matcher import PreparedText
from soulscan.engine.rulepack import Rule


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
    rule: Rule
    branches: tuple[str, ...]
    whole: Requirement  # the rule's own anchors, for a rule that is not split
    requirements: tuple[Requirement, ...]  # one a branch


Requirement = tuple[frozenset[str], ...] | None  # every group needs a member; None: no test


def _groups(anchors: Anchors | None) -> Requirement:
    return None if anchors is None else tuple(frozenset(group) for group in anchors)


_GATED: dict[tuple[str, str], GatedRule] = {}  # by (pack, rule id): a Rule is not hashable


def gated_rule(rule: Rule) -> GatedRule:
    key = (rule.pack, rule.id)
    if key not in _GATED:
        _GATED[key] = _gate_rule(rule)
    return _GATED[key]


def _gate_rule(rule: Rule) -> GatedRule:
    if not rule.anchors_folded or rule.exact_source is not None:
        # A python-re rule: its anchors may hold on the unfolded text only, and its pattern
        # may be a quick variant; the matcher's own checks run it (analyze.py).
        return GatedRule(rule, (rule.regex_source,), None, (None,))
    branches = split_alternatives(rule.regex_source, rule.regex_flags)
    if branches is None or len(branches) == 1:
        return GatedRule(rule, (rule.regex_source,), _groups(rule.anchors), (None,))
    requirements = tuple(_groups(extract_regex_anchors(branch)) for branch in branches)
    return GatedRule(rule, tuple(branches), None, requirements)


# A token key: (WHOLE, token), (HEAD, a token's first KEY_CHARS) or (TAIL, its last KEY_CHARS).
KEY_CHARS = 3
WHOLE, HEAD, TAIL = 0, 1, 2
TokenKey = tuple[int, str]
_ALNUM_RUN = regex.compile(r"[a-z0-9]+")
_NOT_SPACED = regex.compile(r"[^a-z0-9 ]")
_NOT_ALNUM = regex.compile(r"[^a-z0-9]")
# Below this many anchors one `in` each is cheaper than collecting the tokens.
MIN_KEYED_ANCHORS = 150


def token_key(anchor: str, spaced: bool) -> TokenKey | None:
    """A token key every text holding `anchor` holds, or None.

    ``spaced``: the view's only separator is a space (the words view), and its tokens are
    what a split on spaces gives; otherwise a token is a run of ASCII letters and digits.
    A piece of the anchor between two separators is a whole token of the text; the piece
    after its last separator starts a token, the piece before its first one ends a token.
    """
    if anchor == NON_ASCII or not anchor.isascii() or spaced and _NOT_SPACED.search(anchor):
        return None
    pieces = anchor.split(" ") if spaced else _NOT_ALNUM.split(anchor)
    inner = max(pieces[1:-1], key=len, default="")
    if inner:
        return (WHOLE, inner)
    if len(pieces) >= 2 and len(pieces[-1]) >= KEY_CHARS:
        return (HEAD, pieces[-1][:KEY_CHARS])
    if len(pieces) >= 2 and len(pieces[0]) >= KEY_CHARS:
        return (TAIL, pieces[0][-KEY_CHARS:])
    return None


def _tokens(folded: str, spaced: bool) -> set[str]:
    return set(folded.split(" ") if spaced else _ALNUM_RUN.findall(folded))


def _token_keys(tokens: set[str]) -> tuple[set[str], set[str], set[str]]:
    return tokens, {t[:KEY_CHARS] for t in tokens}, {t[-KEY_CHARS:] for t in tokens}


# A group split for testing: its anchors that have a token key, and the ones to search for.
Group = tuple[frozenset[str], tuple[str, ...]]
Test = tuple[Group, ...] | None


def _test(groups: Requirement, keyed: set[str]) -> Test:
    """The groups worth testing: those whose every anchor has a token key (testing them
    costs a set intersection), or else the single group with the fewest anchors to search."""
    if not groups:
        return None

    def searched(group: frozenset[str]) -> tuple[str, ...]:
        return tuple(sorted(anchor for anchor in group if anchor not in keyed))

    cheap = [group for group in groups if not searched(group)]
    chosen = cheap or [min(groups, key=lambda group: len(searched(group)))]
    return tuple((frozenset(group & keyed), searched(group)) for group in chosen)


class _Presence(dict[str, bool]):
    """Which anchors occur in one folded text; each is searched for at most once."""

    def __init__(self, folded: str, possible: set[str], distinct_tokens: str | None) -> None:
        super().__init__()
        self.folded = folded
        self.possible = possible  # keyed anchors whose token key occurs
        # every distinct token once: an anchor inside one token occurs here iff in the text
        self.distinct_tokens = distinct_tokens

    def __missing__(self, anchor: str) -> bool:
        if anchor == NON_ASCII:  # PreparedText appends it to a non-ASCII text
            found = self.folded.endswith(NON_ASCII)
        elif self.distinct_tokens is not None and _ALNUM_RUN.fullmatch(anchor):
            found = anchor in self.distinct_tokens
        else:
            found = anchor in self.folded
        self[anchor] = found
        return found

    def meets(self, test: Test) -> bool:
        if test is None:
            return True
        # plain loops: this runs for every branch of every rule on every text
        for keyed, searched in test:
            for anchor in keyed.intersection(self.possible) if keyed else ():
                if self[anchor]:
                    break
            else:
                for anchor in searched:
                    if self[anchor]:
                        break
                else:
                    return False
        return True


class ViewGate:
    """The rules of one view that can match a text, each with only its possible branches."""

    def __init__(self, rules: Sequence[Rule], view: str) -> None:
        gated = [gated_rule(rule) for rule in rules]
        anchors = {
            anchor
            for rule in gated
            for groups in (rule.whole, *rule.requirements)
            if groups is not None
            for group in groups
            for anchor in group
        }
        self._spaced = view == "words"
        self._keyed: dict[TokenKey, list[str]] = {}
        if len(anchors) >= MIN_KEYED_ANCHORS:
            for anchor in sorted(anchors):
                key = token_key(anchor, self._spaced)
                if key is not None:
                    self._keyed.setdefault(key, []).append(anchor)
        keyed = {anchor for members in self._keyed.values() for anchor in members}
        # Branches often share a test (the same verbs, the same script): each is run once.
        tests: dict[Test, int] = {}

        def number(groups: Requirement) -> int:
            return tests.setdefault(_test(groups, keyed), len(tests))

        self.rules = tuple(
            (rule, number(rule.whole), tuple(number(groups) for groups in rule.requirements))
            for rule in gated
        )
        self._tests = tuple(tests)
        self._keys = tuple(
            frozenset(key[1] for key in self._keyed if key[0] == kind) for kind in (WHOLE, HEAD, TAIL)
        )

    def presence(self, folded: str) -> _Presence:
        if not self._keyed:
            return _Presence(folded, set(), None)
        tokens = _tokens(folded, self._spaced)
        possible: set[str] = set()
        for kind, (keys, present) in enumerate(zip(self._keys, _token_keys(tokens))):
            for key in keys.intersection(present):
                possible.update(self._keyed[(kind, key)])
        return _Presence(folded, possible, " ".join(tokens))

    def live(self, prepared: PreparedText) -> dict[str, regex.Pattern[str]]:
        """Rule id -> the pattern of its possible branches, for each rule that can match."""
        presence = self.presence(prepared.folded)
        passed: dict[int, bool] = {}
        result = {}
        for gated, whole, tests in self.rules:
            if whole not in passed:
                passed[whole] = presence.meets(self._tests[whole])
            if not passed[whole]:
                continue
            for test in tests:
                if test not in passed:
                    passed[test] = presence.meets(self._tests[test])
            alive = tuple(index for index, test in enumerate(tests) if passed[test])
            if not alive:
                continue
            if len(alive) == len(gated.branches):
                result[gated.rule.id] = gated.rule.compiled
            else:
                source = "|".join(gated.branches[index] for index in alive)
                result[gated.rule.id] = _compiled(source, gated.rule.regex_flags)
        return result


@functools.lru_cache(maxsize=4096)
def _compiled(source: str, flags: int) -> regex.Pattern[str]:
    return regex.compile(source, flags)
