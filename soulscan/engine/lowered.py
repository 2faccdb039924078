"""A case-insensitive pattern rewritten for the lower-cased text the gate already holds.

``re`` searches a case-insensitive pattern by testing a set (``[aA]``) at every character,
and a rule's ``in`` checks read the text once per missing word. The same pattern with its
letters lower-cased, run case-sensitively over ``PreparedText.folded``, starts with plain
literal text, which ``re`` skips ahead to in a tight loop: one quick pass answers the rule.

For an ASCII text (whose folded form is ``text.lower()``): ASCII characters keep their
length, class (``\\w``, ``\\s``, ``\\d``) and word boundaries when lower-cased, and a
case-insensitive test of an ASCII character against ASCII pattern text asks only about its
lower case. So each node matches the folded text exactly where the pattern's node matches
the text: the rewritten pattern matches the same spans, node for node, and so backtracks no
more than the runtime's own search does.

There is deliberately no loosened form for non-ASCII texts (each non-ASCII character read
as ``?``): widening ``\\w`` and ``\\s`` to take ``?`` lets nested repeats such as
``(?:\\w+\\s+)*`` split a run of ``?`` every way: on a text of hidden characters that the
pattern itself fails at once, the search had not finished after 12 minutes.

What is exact is narrower (``takes_symbols``): a text whose non-ASCII characters are all
*symbols* (``re`` reads none of them, nor its lower case, as a word, space or digit
character, and none is a case of an ASCII letter: emoji, curly quotes, dashes, hidden
characters) folds each of them to ``?``, which no node tells apart from them when the
pattern names ``?`` nowhere: a literal or set member is ASCII and never ``?``, a class
(``\\w``, ``\\s``, ``\\d``, negated or not) takes neither, ``.`` takes both, and a boundary
sees a non-word character either way. Nothing is widened: the search on the folded text
makes the very steps the runtime's search makes on the text.

Only ASCII pattern text is rewritten; anything else (non-ASCII literals, inline flags,
backreferences) leaves the rule on its usual path.
"""

from __future__ import annotations

import re
from re import _compiler, _parser  # type: ignore[attr-defined]
from re import _constants as C  # type: ignore[attr-defined]
from typing import Any

from soulscan.engine.anchors import frequency_rank
from soulscan.engine.anchorscan import MIN_PIVOT_RANK

_UPPER = (ord("A"), ord("Z"))
_CASE_GAP = ord("a") - ord("A")
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)
# Fewer leading literal characters leave ``re`` stopping too often to beat the usual path
# (unless the one is as rare as the anchor scans' pivots: ``anchorscan.MIN_PIVOT_RANK``).
MIN_PREFIX = 2


class _Refused(Exception):
    """The pattern holds something this rewrite does not prove."""


def lowered_pattern(pattern: str, flags: int) -> re.Pattern[str] | None:
    """``pattern`` (compiled with ``flags``: exactly ``re.IGNORECASE``) rewritten for the
    lower-cased form of an ASCII text; None when it is refused or does not start with
    ``MIN_PREFIX`` literal characters."""
    if flags != re.IGNORECASE:
        return None
    try:
        parsed = _parser.parse(pattern, 0)
    except re.error:
        return None
    nodes = _boundary_behind(parsed, list(parsed))
    if parsed.state.flags & ~re.UNICODE or not _led_by_literal_text(nodes):
        return None
    try:
        return _compile(parsed, _rewrite(nodes))
    except _Refused:
        return None


# What ``PreparedText.folded`` holds for a non-ASCII character (``str.encode``'s replacement).
SYMBOL_STAND_IN = "?"
# What a folded text may hold for a letter (``sparse_window``): a word character that is
# no digit, and upper case, so no lower-cased text or pattern letter is ever equal to it.
LETTER_STAND_IN = "Z"


def takes_symbols(pattern: str, flags: int) -> bool:
    """Is ``lowered_pattern(pattern, flags)`` exact on the folded form of a text whose
    non-ASCII characters are all symbols (no literal or set member of ``pattern`` is
    ``SYMBOL_STAND_IN``)? The caller has checked that the lowered pattern exists."""
    return _names_none(pattern, SYMBOL_STAND_IN)


def takes_letters(pattern: str, flags: int) -> bool:
    """Is ``lowered_pattern(pattern, flags)`` exact on the folded form of a text whose
    non-ASCII characters are symbols, each folded to ``SYMBOL_STAND_IN``, and letters (word
    characters that are no digits; ``re`` reads each one's lower case alike), each folded
    to ``LETTER_STAND_IN``? As for symbols: a literal is lower-cased ASCII, never the
    stand-in nor a case of such a letter; ``\\w`` takes both, ``\\s`` and ``\\d`` neither, so
    do boundaries; only a set that names the stand-in (``[A-Z]``) tells them apart."""
    return _names_none(pattern, SYMBOL_STAND_IN, LETTER_STAND_IN)


def _names_none(pattern: str, *chars: str) -> bool:
    """Does no literal or set member of ``pattern`` stand for any of ``chars``? (Parsed once.)"""
    try:
        nodes = list(_parser.parse(pattern, 0))
    except re.error:
        return False
    return not any(_names(nodes, ord(char)) for char in chars)


def _names(nodes: list[Any], code: int) -> bool:
    """Does a literal, a negated literal or a set member of ``nodes`` stand for ``code``?"""
    for op, av in nodes:
        if op is C.LITERAL or op is C.NOT_LITERAL:
            named = av == code
        elif op is C.IN:
            named = any(item is C.LITERAL and value == code
                        or item is C.RANGE and value[0] <= code <= value[1] for item, value in av)
        else:
            named = any(_names(list(body), code) for body in _bodies(op, av))
        if named:
            return True
    return False


def _bodies(op: Any, av: Any) -> list[Any]:
    """The sub-patterns a node holds."""
    if op in _REPEATS:
        return [av[2]]
    if op is C.SUBPATTERN:
        return [av[3]]
    if op is C.BRANCH:
        return list(av[1])
    if op in (C.ASSERT, C.ASSERT_NOT):
        return [av[1]]
    return []


def _compile(parsed: Any, nodes: list[Any]) -> re.Pattern[str]:
    pattern: re.Pattern[str] = _compiler.compile(_parser.SubPattern(parsed.state, nodes), 0)
    return pattern


_BOUNDARIES = (C.AT_BOUNDARY, C.AT_NON_BOUNDARY)


def _boundary_behind(parsed: Any, nodes: list[Any]) -> list[Any]:
    """A leading word boundary before literal text (``\\bname``) checked behind that text
    instead (``name(?<=\\bname)``): the same test of the same characters at the same place,
    with no choice in it, so the same matches; and ``re`` then skips ahead to the text in a
    tight loop rather than testing the boundary at every character."""
    if len(nodes) < 2 or nodes[0][0] is not C.AT or nodes[0][1] not in _BOUNDARIES:
        return nodes
    run = 1
    while run < len(nodes) and nodes[run][0] is C.LITERAL:
        run += 1
    if run == 1:
        return nodes
    behind = _parser.SubPattern(parsed.state, nodes[:run])
    return [*nodes[1:run], (C.ASSERT, (-1, behind)), *nodes[run:]]


def _led_by_literal_text(nodes: list[Any]) -> bool:
    """Does the pattern start with ``MIN_PREFIX`` literal characters, or with one rare
    character (``<``: one the anchor scans would pivot on, so ``re`` seldom stops at it)?"""
    if _literal_text_at(nodes) == 0:
        return True
    return bool(nodes) and nodes[0][0] is C.LITERAL and frequency_rank(chr(nodes[0][1])) >= MIN_PIVOT_RANK


def _literal_text_at(nodes: list[Any]) -> int | None:
    """Where the first run of ``MIN_PREFIX`` literal nodes in a row starts."""
    run = 0
    for index, (op, _) in enumerate(nodes):
        run = run + 1 if op is C.LITERAL else 0
        if run == MIN_PREFIX:
            return index + 1 - MIN_PREFIX
    return None


def _rewrite(nodes: list[Any]) -> list[Any]:
    out: list[Any] = []
    for op, av in nodes:
        if op is C.LITERAL or op is C.NOT_LITERAL:
            out.append((op, _lower(_ascii(av))))
        elif op is C.ANY or op is C.AT:
            out.append((op, av))
        elif op is C.IN:
            out.append((op, _set(av)))
        elif op in _REPEATS:
            low, high, body = av
            out.append((op, (low, high, _sub(body))))
        elif op is C.SUBPATTERN:
            group, add_flags, del_flags, body = av
            if add_flags or del_flags:
                raise _Refused
            out.append((op, (group, 0, 0, _sub(body))))
        elif op is C.BRANCH:
            out.append((op, (None, [_sub(branch) for branch in av[1]])))
        elif op in (C.ASSERT, C.ASSERT_NOT):
            direction, body = av
            out.append((op, (direction, _sub(body))))
        else:
            raise _Refused
    return out


def _sub(body: Any) -> Any:
    return _parser.SubPattern(body.state, _rewrite(list(body)))


def _ascii(code: int) -> int:
    if code >= 0x80:  # a non-ASCII character may be a case of an ASCII letter (K, ſ)
        raise _Refused
    return code


def _lower(code: int) -> int:
    return code + _CASE_GAP if _UPPER[0] <= code <= _UPPER[1] else code


def _set(items: list[Any]) -> list[Any]:
    """A set matching each lower-cased character where the case-insensitive set matches it."""
    out: list[Any] = []
    for op, av in items:
        if op is C.NEGATE or op is C.CATEGORY:
            out.append((op, av))
        elif op is C.LITERAL:
            out.append((op, _ascii(av)))
            out.append((op, _lower(av)))
        elif op is C.RANGE:
            low, high = av
            _ascii(high)
            out.append((op, av))
            upper_low, upper_high = max(low, _UPPER[0]), min(high, _UPPER[1])
            if upper_low <= upper_high:
                out.append((op, (upper_low + _CASE_GAP, upper_high + _CASE_GAP)))
        else:
            raise _Refused
    return out
