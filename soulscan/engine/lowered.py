"""A case-insensitive pattern rewritten for the lower-cased text the gate already holds.

``re`` searches a case-insensitive pattern by testing a set (``[aA]``) at every character,
and a rule's ``in`` checks read the text once per missing word. The same pattern with its
letters lower-cased, run case-sensitively over ``PreparedText.folded``, starts with plain
literal text, which ``re`` skips ahead to in a tight loop: one quick pass answers the rule.

* **exact**, for an ASCII text (whose folded form is ``text.lower()``): ASCII characters
  keep their length, class (``\\w``, ``\\s``, ``\\d``) and word boundaries when lower-cased,
  and a case-insensitive test of an ASCII character against ASCII pattern text asks only
  about its lower case. So each node matches the folded text exactly where the pattern's
  node matches the text: the rewritten pattern matches the same spans.
* **filter**, for any ASCII folded form (of a non-ASCII text: each non-ASCII character
  read as ``?``, none that folds to an ASCII letter): each node also takes ``?`` where the
  original could take a non-ASCII character (classes and positive sets gain ``?``, word
  boundaries are dropped, a set that excludes ``?`` is refused), so it matches wherever
  the pattern does, and more: a search that fails rules the rule out. A pattern that does
  not start with literal text is filtered by its top-level nodes from its first literal
  text on (``segments``: each run of top-level nodes matches a stretch of every match).

Only ASCII pattern text is rewritten; anything else (non-ASCII literals, inline flags,
backreferences, a negated set holding ``?`` in a filter) leaves the rule on its usual path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _compiler, _parser  # type: ignore[attr-defined]
from re import _constants as C  # type: ignore[attr-defined]
from typing import Any

_QUESTION = ord("?")
_UPPER = (ord("A"), ord("Z"))
_CASE_GAP = ord("a") - ord("A")
# classes that hold ``?``: a set excluding one of them would exclude a non-ASCII character's ``?``
_CLASSES_WITH_QUESTION = (C.CATEGORY_NOT_DIGIT, C.CATEGORY_NOT_SPACE, C.CATEGORY_NOT_WORD)
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)
# Word boundaries look at neighbours that ``?`` may misrepresent; positions themselves hold.
_BOUNDARIES = (C.AT_BOUNDARY, C.AT_NON_BOUNDARY)
# Fewer leading literal characters leave ``re`` stopping too often to beat the usual path.
MIN_PREFIX = 2


class _Refused(Exception):
    """The pattern holds something this rewrite does not prove."""


@dataclass(frozen=True)
class LoweredPattern:
    # for the folded form of an ASCII text: matches exactly where the pattern does (None:
    # the pattern does not start with literal text)
    exact: re.Pattern[str] | None
    # for any ASCII folded form: matches wherever the pattern does; the pattern itself when
    # it starts with literal text, else its top-level nodes from the first literal text on
    # (every match of the pattern holds a match of them)
    filter: re.Pattern[str]


def lowered_pattern(pattern: str, flags: int) -> LoweredPattern | None:
    """``pattern`` (compiled with ``flags``: exactly ``re.IGNORECASE``) rewritten for lower-cased
    text; None when it is refused or holds no ``MIN_PREFIX`` literal characters in a row at
    its top level."""
    if flags != re.IGNORECASE:
        return None
    try:
        parsed = _parser.parse(pattern, 0)
    except re.error:
        return None
    nodes = list(parsed)
    start = _literal_text_at(nodes)
    if parsed.state.flags & ~re.UNICODE or start is None:
        return None
    try:
        loose = _rewrite(nodes[start:], filtering=True)
    except _Refused:
        return None
    try:
        exact = _compile(parsed, _rewrite(nodes, filtering=False)) if start == 0 else None
    except _Refused:
        exact = None
    return LoweredPattern(exact, _compile(parsed, loose))


def _compile(parsed: Any, nodes: list[Any]) -> re.Pattern[str]:
    pattern: re.Pattern[str] = _compiler.compile(_parser.SubPattern(parsed.state, nodes), 0)
    return pattern


def _literal_text_at(nodes: list[Any]) -> int | None:
    """Where the first run of ``MIN_PREFIX`` literal nodes in a row starts."""
    run = 0
    for index, (op, _) in enumerate(nodes):
        run = run + 1 if op is C.LITERAL else 0
        if run == MIN_PREFIX:
            return index + 1 - MIN_PREFIX
    return None


def _rewrite(nodes: list[Any], *, filtering: bool) -> list[Any]:
    out: list[Any] = []
    for op, av in nodes:
        if op is C.LITERAL:
            out.append((op, _lower(_ascii(av))))
        elif op is C.NOT_LITERAL:
            if filtering and av == _QUESTION:
                raise _Refused
            out.append((op, _lower(_ascii(av))))
        elif op is C.ANY:
            out.append((op, av))
        elif op is C.IN:
            out.append((op, _set(av, filtering=filtering)))
        elif op is C.AT:
            if not (filtering and av in _BOUNDARIES):
                out.append((op, av))
        elif op in _REPEATS:
            low, high, body = av
            out.append((op, (low, high, _sub(body, filtering))))
        elif op is C.SUBPATTERN:
            group, add_flags, del_flags, body = av
            if add_flags or del_flags:
                raise _Refused
            out.append((op, (group, 0, 0, _sub(body, filtering))))
        elif op is C.BRANCH:
            out.append((op, (None, [_sub(branch, filtering) for branch in av[1]])))
        elif op in (C.ASSERT, C.ASSERT_NOT):
            if not filtering:  # a filter asks for less without it
                direction, body = av
                out.append((op, (direction, _sub(body, filtering))))
        else:
            raise _Refused
    return out


def _sub(body: Any, filtering: bool) -> Any:
    return _parser.SubPattern(body.state, _rewrite(list(body), filtering=filtering))


def _ascii(code: int) -> int:
    if code >= 0x80:  # a non-ASCII character may be a case of an ASCII letter (K, ſ)
        raise _Refused
    return code


def _lower(code: int) -> int:
    return code + _CASE_GAP if _UPPER[0] <= code <= _UPPER[1] else code


def _set(items: list[Any], *, filtering: bool) -> list[Any]:
    """A set matching each lower-cased character where the case-insensitive set matches it
    (and, filtering, ``?`` where it may match a non-ASCII character)."""
    negated = bool(items) and items[0][0] is C.NEGATE
    out: list[Any] = []
    for op, av in items:
        if op is C.NEGATE:
            out.append((op, av))
        elif op is C.LITERAL:
            out.append((op, _ascii(av)))
            out.append((op, _lower(av)))
            if filtering and negated and av == _QUESTION:
                raise _Refused
        elif op is C.RANGE:
            low, high = av
            _ascii(high)
            out.append((op, av))
            upper_low, upper_high = max(low, _UPPER[0]), min(high, _UPPER[1])
            if upper_low <= upper_high:
                out.append((op, (upper_low + _CASE_GAP, upper_high + _CASE_GAP)))
            if filtering and negated and low <= _QUESTION <= high:
                raise _Refused
        elif op is C.CATEGORY:
            if filtering and negated and av in _CLASSES_WITH_QUESTION:
                raise _Refused
            out.append((op, av))
        else:
            raise _Refused
    if filtering and not negated:
        out.append((C.LITERAL, _QUESTION))
    return out
