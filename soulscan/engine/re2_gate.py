"""One linear pass that proves which rules of a set cannot match a text (RE2's ``RE2::Set``).

Python's ``re`` reads a text once per pattern (or once per anchor pivot, as the gates of
``soulscan.engine.prefilter`` do); RE2 runs every pattern of a set at once in one DFA pass,
in time linear in the text. It cannot run the rules themselves (no lookaround, no
backreferences, other Unicode tables, other case rules), so each rule gets a *superset*
pattern here: everything the rule matches, the superset matches too. Its matches are not
used; its silence is: a rule whose superset finds nothing in a text has no match there.
Whatever the superset does find is decided by the rule's own pattern, as before.

How a pattern is widened, node by node of ``re``'s own parse:

* a literal or set member, case-insensitive, becomes every character ``re`` takes for it
  (``soulscan.engine.pyre``'s case closure: ``ı`` and ``İ`` for ``i``, the Kelvin sign for
  ``k``); RE2's own case folding is never used;
* ``\\s`` and ``\\S`` are ``re``'s exact sets; ``\\w``, ``\\d`` and their negations are
  widened to every character but the ASCII ones outside them (Unicode tables differ between
  RE2 and this Python; the ASCII ones agree), or, inside a negated set, narrowed to their
  ASCII members, so the negation widens;
* lookarounds, ``\\b``, ``^``, ``$`` and the like are dropped (a condition fewer); a
  backreference becomes "any text"; lazy, possessive and atomic forms become plain greedy
  ones (the same texts have a match); a bound over RE2's limit of 1,000 is dropped;
* anything else (conditional groups, inline flags in a group) leaves the rule without a
  superset: it is always decided by its own pattern.

RE2 gives up when its DFA outgrows its memory and then reports no match at all; an empty
pattern at the end of the text is added to every set, so a pass that did not read the
whole text is told apart from one that found nothing, and answers "unsure".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any, cast

from soulscan.engine import cache

MAX_RE2_REPEAT = 1000  # RE2 refuses a counted repeat above this
# The memory of a set's program and DFA. The strict scope's set over the corpora runs 2.5x
# slower at RE2's default 8 MB (its DFA cache refills) and no faster above 16 MB. A crafted
# text that outgrows it slows the pass, or (RE2 giving up) gets "unsure", never a wrong "no".
SET_MEMORY = 16 << 20

# Characters outside ``re``'s \w, \d among ASCII (RE2 and Python agree on ASCII).
_ASCII_NOT_WORD = r"\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f"
_ASCII_NOT_DIGIT = r"\x00-\x2f\x3a-\x7f"


class _Refused(Exception):
    """The pattern holds something this widening does not prove."""


class SetUnavailable(Exception):
    """No RE2 set can be built here (google-re2 missing, or RE2 refused to compile it)."""


def _escape(cp: int) -> str:
    return f"\\x{{{cp:x}}}"


def _body(ranges: Sequence[tuple[int, int]]) -> str:
    return "".join(_escape(lo) if lo == hi else f"{_escape(lo)}-{_escape(hi)}" for lo, hi in ranges)


@functools.cache
def _space_body() -> str:
    from soulscan.engine.pyre import _category_members

    return _body(_category_members("space"))


def _category(code: Any, widen: bool) -> tuple[str, bool]:
    """A category as (set body, negated): a superset of it when ``widen``, else a subset."""
    if code is C.CATEGORY_SPACE:
        return _space_body(), False
    if code is C.CATEGORY_NOT_SPACE:
        return _space_body(), True
    if code is C.CATEGORY_WORD:
        return (_ASCII_NOT_WORD, True) if widen else ("0-9A-Za-z_", False)
    if code is C.CATEGORY_NOT_WORD:
        return ("0-9A-Za-z_", True) if widen else (_ASCII_NOT_WORD, False)
    if code is C.CATEGORY_DIGIT:
        return (_ASCII_NOT_DIGIT, True) if widen else ("0-9", False)
    if code is C.CATEGORY_NOT_DIGIT:
        return ("0-9", True) if widen else (_ASCII_NOT_DIGIT, False)
    raise _Refused(f"category {code}")


class _Widening:
    def __init__(self, pattern: str, flags: int) -> None:
        from soulscan.engine.pyre import _Translator

        self.ignorecase = bool(flags & re.IGNORECASE)
        self.dotall = bool(flags & re.DOTALL)
        self._closure = _Translator(pattern, flags)._case_closure

    def _members(self, codepoints: set[int]) -> list[tuple[int, int]]:
        """Every character the pattern takes for one of these."""
        from soulscan.engine.pyre import _ranges

        return _ranges(self._closure(codepoints) if self.ignorecase else codepoints)

    def _excluded(self, codepoints: set[int]) -> list[tuple[int, int]]:
        """Characters a negated set or literal of these surely refuses (``re``'s closure is
        exact: all it takes for them)."""
        return self._members(codepoints)

    def _category(self, code: Any, widen: bool) -> tuple[str, bool]:
        return _category(code, widen)

    def _set(self, items: list[tuple[Any, Any]]) -> str:
        negate = bool(items) and items[0][0] is C.NEGATE
        members: set[int] = set()
        parts = []
        for op, av in items[1:] if negate else items:
            if op is C.LITERAL:
                members.add(av)
            elif op is C.RANGE:
                lo, hi = av
                if self.ignorecase and hi - lo > 0x3000:
                    raise _Refused("a very large case-insensitive range")
                members.update(range(lo, hi + 1))
            elif op is C.CATEGORY:
                # a member of a negated set narrows, so the set widens
                body, negated = self._category(av, widen=not negate)
                parts.append(f"[^{body}]" if negated else f"[{body}]")
            else:
                raise _Refused(f"set item {op}")
        if members:
            parts.append(f"[{_body(self._excluded(members) if negate else self._members(members))}]")
        if not parts:
            return r"(?s:.)" if negate else "[^\\x00-\\x{10ffff}]"
        if not negate:
            return "(?:" + "|".join(parts) + ")" if len(parts) > 1 else parts[0]
        # [^A B]: what is in neither; RE2 has no set difference, so each part must be a
        # plain (not negated) set, whose bodies join into one negated set
        bodies = []
        for part in parts:
            if part.startswith("[^"):
                return r"(?s:.)"  # (a negated part inside a negated set: anything, widened)
            bodies.append(part[1:-1])
        return f"[^{''.join(bodies)}]"

    def _repeat(self, body: str, lo: int, hi: int) -> str:
        if lo > MAX_RE2_REPEAT:
            raise _Refused("a repeat of more than 1,000")
        unbounded = hi is C.MAXREPEAT or hi == C.MAXREPEAT or hi > MAX_RE2_REPEAT
        return f"(?:{body}){{{lo},{'' if unbounded else hi}}}"

    def emit(self, nodes: Any) -> str:
        return "".join(self._node(op, av) for op, av in nodes)

    def _node(self, op: Any, av: Any) -> str:
        if op is C.LITERAL:
            return f"[{_body(self._members({av}))}]"
        if op is C.NOT_LITERAL:
            return f"[^{_body(self._excluded({av}))}]"
        if op is C.IN:
            return self._set(av)
        if op is C.ANY:
            return r"(?s:.)" if self.dotall else r"[^\n]"
        if op is C.CATEGORY:
            body, negated = self._category(av, widen=True)
            return f"[^{body}]" if negated else f"[{body}]"
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            lo, hi, sub = av
            return self._repeat(self.emit(sub), lo, hi)
        if op is C.SUBPATTERN:
            _, add_flags, del_flags, sub = av
            if add_flags or del_flags:
                raise _Refused("inline flags inside a group")
            return f"(?:{self.emit(sub)})"
        if op is C.ATOMIC_GROUP:
            return f"(?:{self.emit(av)})"
        if op is C.BRANCH:
            return "(?:" + "|".join(self.emit(branch) for branch in av[1]) + ")"
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            return ""
        if op is C.GROUPREF:
            return r"(?s:.)*"
        raise _Refused(str(op))


@cache.persistent_depending_on("soulscan.engine.pyre")
def superset_source(pattern: str, flags: int) -> str | None:
    """An RE2 pattern that matches wherever ``re.search(pattern, text, flags)`` does (and
    maybe elsewhere); None when this widening refuses the pattern."""
    if flags & ~(re.IGNORECASE | re.DOTALL | re.MULTILINE | re.UNICODE):
        return None
    try:
        parsed = _parser.parse(pattern, flags)
        if parsed.state.flags & ~(re.IGNORECASE | re.DOTALL | re.MULTILINE | re.UNICODE):
            return None
        return _Widening(pattern, parsed.state.flags).emit(parsed)
    except (re.error, _Refused, RecursionError):
        return None


def search_set(memory: int | None = None) -> tuple[Any, Any]:
    """The ``re2`` module and an empty unanchored ``re2.Set`` of ``memory`` bytes
    (``SET_MEMORY`` by default); raises SetUnavailable without google-re2."""
    try:
        import re2  # type: ignore[import-untyped]  # imported by the scans that pay for it
    except ImportError as exc:
        raise SetUnavailable("google-re2 is not installed") from exc
    options = re2.Options()
    options.max_mem = SET_MEMORY if memory is None else memory
    options.log_errors = False
    return re2, re2.Set.SearchSet(options)


def bytes_matcher(built: Any) -> Callable[[bytes], list[int]]:
    """A compiled set's match over UTF-8 bytes, as the list of the patterns found: the
    binding's C++ method when it has one (no str-or-bytes dispatch a call; a private name,
    so not taken for granted), else its public ``Match`` (which gives None for none)."""
    inner = getattr(getattr(built, "_set", None), "Match", None)
    if inner is not None:
        return cast("Callable[[bytes], list[int]]", inner)
    public = built.Match
    return lambda data: public(data) or []


def literal_source(text: str) -> str:
    """An RE2 pattern matching exactly ``text`` (each character escaped by its code point)."""
    return "".join(_escape(ord(char)) for char in text)


_NOTHING: tuple[frozenset[int], frozenset[str]] = (frozenset(), frozenset())


class SetGate:
    """Patterns (``re`` source and flags) compiled as one RE2 set; ``possible`` names the
    ones that may match a text, and literal characters (``chars``) that occur in it."""

    def __init__(self, patterns: Sequence[tuple[str, int]], chars: Sequence[str] = ()) -> None:
        re2, built = search_set()
        always = set()
        self._index: list[int] = []  # set index -> pattern index (or -1 - char index)
        for index, (pattern, flags) in enumerate(patterns):
            source = superset_source(pattern, flags)
            if source is None:
                always.add(index)
                continue
            try:
                built.Add(source)
            except re2.error:
                always.add(index)
                continue
            self._index.append(index)
        for place, char in enumerate(chars):
            built.Add(literal_source(char))
            self._index.append(-1 - place)
        self._sentinel = len(self._index)
        built.Add(r"\z")
        try:
            built.Compile()
        except re2.error as exc:  # a program over its memory
            raise SetUnavailable(str(exc)) from exc
        self.always = frozenset(always)  # patterns with no superset: each always searched
        self._chars = tuple(chars)
        self._match = bytes_matcher(built)

    def possible(self, text: str) -> tuple[frozenset[int], frozenset[str]] | None:
        """(the patterns that may match ``text``, besides ``always``; the ``chars`` in it),
        or None when RE2 cannot say (a text not encodable as UTF-8, or a DFA that gave up)."""
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return None
        found = self._match(data)
        if len(found) == 1 and found[0] == self._sentinel:  # most texts: nothing but the end
            return _NOTHING
        if self._sentinel not in found:
            return None
        index = self._index
        patterns = set()
        chars = set()
        for hit in found:
            if hit == self._sentinel:
                continue
            which = index[hit]
            if which >= 0:
                patterns.add(which)
            else:
                chars.add(self._chars[-1 - which])
        return frozenset(patterns), frozenset(chars)

    def chars_if_none_match(self, text: str) -> frozenset[str] | None:
        """The ``chars`` in ``text`` when no pattern may match it; None when one may (or has
        no superset), or RE2 cannot say."""
        found = self.possible(text)
        if found is None or found[0] or self.always:
            return None
        return found[1]
