"""RE2 supersets of patterns of the ``regex`` module (the hardened rules' dialect).

``soulscan.engine.re2_gate`` widens a Python ``re`` pattern node by node of ``re``'s own
parse. A ``regex`` pattern in version 0 (``regex.V0``) is written in the same syntax but for
a few forms ``re`` reads otherwise or not at all, and its classes differ in places; so a
``regex`` pattern is widened the same way only when:

* its flags are among ``IGNORECASE``, ``MULTILINE``, ``DOTALL`` (and ``V0``, ``UNICODE``,
  the defaults for a ``str`` pattern): no ``V1`` (nested sets, set operations, full case
  folding), no fuzzy, word, ASCII, POSIX or reverse matching;
* its source holds no set inside a set (``[[:alpha:]]``, a POSIX class ``re`` would read as
  members) and no ``{`` but a counted repeat (``(?:ab){e<=1}`` is fuzzy matching to
  ``regex``, literal text to ``re``);
* ``re`` parses it without a warning (a possible set operation or nested set) and with no
  inline flag but those above (``(?x)``, ``(?a)``...); whatever ``re`` does not know
  (``\\p{..}``, ``\\X``, ``\\K``, ``(?V1)``, ``(?r)``, ``(?|..)``, recursion) is an error
  there, so it is refused.

Three classes are then widened for ``regex``, not ``re`` (``tests/test_re2_regex.py`` checks
them over every code point):

* ``\\s``: ``regex`` leaves out U+001C-U+001F, which ``re`` takes; a ``\\s`` is widened to
  ``re``'s, and narrowed (in a negated set, ``\\S``) to ``regex``'s;
* a case-insensitive literal or set member takes what ``re`` takes for it and what
  ``regex``'s own case table (``_regex.get_all_cases``) gives;
* a negated set or literal refuses only its own members, never their other cases: a
  superset whatever either module's case rules.

Lookarounds are dropped from the widened pattern (a variable-width lookbehind, which ``re``
does not compile, too: ``re``'s parser reads them, its compiler alone refuses them); what a
positive one reads is a pattern of its own (``regex_superset_sources``), found somewhere in
every text the pattern matches: SS201's lookbehinds (``.env`` ... after ``curl ... -d``)
rule out what its widened pattern, any run of non-spaces, cannot.
"""

from __future__ import annotations

import re
import warnings
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

import regex

from soulscan.engine import cache
from soulscan.engine.re2_gate import _category, _Refused, _Widening

# The ``regex`` flags this widening proves, and the ``re`` flag each one is.
_RE_FLAG = {int(regex.IGNORECASE): re.IGNORECASE, int(regex.MULTILINE): re.MULTILINE,
            int(regex.DOTALL): re.DOTALL}
_ACCEPTED = int(regex.V0) | int(regex.UNICODE) | sum(_RE_FLAG)
_INLINE_ACCEPTED = re.IGNORECASE | re.DOTALL | re.MULTILINE | re.UNICODE
# U+001C-U+001F: in ``re``'s \s (``str.isspace``), not in ``regex``'s (Unicode White_Space)
_NOT_REGEX_SPACE = frozenset(range(0x1C, 0x20))
# A counted repeat of more than this many copies is widened to an unbounded one.
LOOSE_ABOVE = 16
_COUNTED_REPEAT = re.compile(r"\{(?:\d+(?:,\d*)?|,\d+)\}")


def _space_bodies() -> tuple[str, str]:
    """(``re``'s \\s, ``regex``'s \\s) as set bodies: the wider and the narrower."""
    from soulscan.engine.pyre import _category_members, _ranges
    from soulscan.engine.re2_gate import _body

    wide = _category_members("space")
    narrow = {cp for lo, hi in wide for cp in range(lo, hi + 1)} - _NOT_REGEX_SPACE
    return _body(wide), _body(_ranges(narrow))


class _RegexWidening(_Widening):
    def __init__(self, pattern: str, flags: int, regex_flags: int) -> None:
        super().__init__(pattern, flags)
        self._regex_flags = regex_flags
        self._wide_space, self._narrow_space = _space_bodies()

    def _members(self, codepoints: set[int]) -> list[tuple[int, int]]:
        if not self.ignorecase:
            return super()._members(codepoints)
        from regex import _regex

        from soulscan.engine.pyre import _ranges

        all_cases = getattr(_regex, "get_all_cases", None)  # a private name: not taken for granted
        if all_cases is None:
            raise _Refused("no case table of regex's")
        cases = set(self._closure(codepoints))
        for cp in codepoints:
            cases.update(all_cases(self._regex_flags, cp))
        return _ranges(cases)

    def _excluded(self, codepoints: set[int]) -> list[tuple[int, int]]:
        from soulscan.engine.pyre import _ranges

        return _ranges(codepoints)

    def _repeat(self, body: str, lo: int, hi: int) -> str:
        # a repeat of at most `hi` copies is at most `hi` states a thread of the DFA, and
        # these patterns nest and chain such repeats: unbounded, the superset keeps its
        # DFA small (2.9x fewer nanoseconds a byte over the corpora's searches, cold) and
        # rules out as many searches
        if hi is C.MAXREPEAT or hi == C.MAXREPEAT or hi > LOOSE_ABOVE:
            hi = C.MAXREPEAT
        return super()._repeat(body, lo, hi)

    def required(self, nodes: Any) -> list[str]:
        """RE2 patterns each found somewhere in every text the sequence ``nodes`` matches
        (the widened pattern drops its lookarounds): what each positive lookaround reads
        (a lookbehind's text ends, a lookahead's starts, where it stands), through plain
        groups; for an alternation with one, a pattern of each branch (what it requires, or
        its own widening). A repeated group is not read: it may match no copy."""
        found = []
        for op, av in nodes:
            if op is C.ASSERT:
                found.append(self.emit(av[1]))
            elif op is C.SUBPATTERN and not av[1] and not av[2]:
                found += self.required(av[3])
            elif op is C.ATOMIC_GROUP:
                found += self.required(av)
            elif op is C.BRANCH:
                each = [self.required(branch) for branch in av[1]]
                if any(each):
                    found.append("(?:" + "|".join(
                        read[0] if read else self.emit(branch)
                        for read, branch in zip(each, av[1], strict=True)) + ")")
        return [source for source in found if source]  # "" holds in every text

    def _category(self, code: Any, widen: bool) -> tuple[str, bool]:
        if code is C.CATEGORY_SPACE:
            return (self._wide_space if widen else self._narrow_space), False
        if code is C.CATEGORY_NOT_SPACE:
            return (self._narrow_space if widen else self._wide_space), True
        return _category(code, widen)


def _regex_only_syntax(pattern: str) -> bool:
    """Whether the source holds a form ``regex`` and ``re`` may read apart: a ``[`` inside
    a set (a POSIX class, a nested set) or a ``{`` that is not a counted repeat (fuzzy)."""
    index, in_set = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_set:
            if char == "[":
                return True
            in_set = char != "]"
        elif char == "[":
            in_set = True
            index += 1
            if pattern.startswith("^", index):
                index += 1
            if pattern.startswith("]", index):  # a leading ``]`` is a member
                index += 1
            continue
        elif char == "{" and not _COUNTED_REPEAT.match(pattern, index):
            return True
        index += 1
    return in_set


def regex_superset_sources(pattern: str, flags: int) -> tuple[str, ...] | None:
    """RE2 patterns each of which finds a match in every text where ``regex.search(pattern,
    text, flags)`` does: the pattern widened, then what its positive lookarounds read
    (``_RegexWidening.required``); None when this widening refuses the pattern."""
    return _superset_sources(pattern, int(flags), regex.__version__)


@cache.persistent_depending_on("soulscan.engine.pyre", "soulscan.engine.re2_gate")
def _superset_sources(pattern: str, flags: int, regex_version: str) -> tuple[str, ...] | None:
    # ``regex_version``: its case table is read, so a new ``regex`` is a fresh memo
    if flags & ~_ACCEPTED or _regex_only_syntax(pattern):
        return None
    re_flags = sum(re_flag for flag, re_flag in _RE_FLAG.items() if flags & flag)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a possible set operation or nested set
            parsed = _parser.parse(pattern, re_flags)
        if parsed.state.flags & ~_INLINE_ACCEPTED:
            return None
        regex_flags = flags | (int(regex.IGNORECASE) if parsed.state.flags & re.IGNORECASE else 0)
        widening = _RegexWidening(pattern, parsed.state.flags, regex_flags)
        return (widening.emit(parsed), *dict.fromkeys(widening.required(parsed)))
    except (re.error, Warning, _Refused, RecursionError):
        return None
