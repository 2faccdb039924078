"""Translate a Python ``re`` pattern into a ``regex`` pattern that matches identically.

The runtime pack reproduces Hermes' own regexes, which Python's ``re`` module runs
with Unicode semantics. The ``regex`` module (which we need for per-search time
limits) differs in small ways that matter for byte-for-byte parity:

* case-insensitive matching: ``re`` treats ``ı`` as a case of ``i`` (its
  ``_EXTRA_CASES`` table) and compares ``str.lower``-style simple lowercase
  mappings; ``regex`` uses case folding, so ``ı`` does not match ``i``;
* ``\\s`` is ``str.isspace`` in ``re`` (it includes U+001C-U+001F), the
  White_Space property in ``regex``;
* ``\\w`` is ``str.isalnum() or "_"`` in ``re``; ``regex`` adds marks and join
  controls, and follows a newer Unicode version than this Python's ``unicodedata``.

So we parse the pattern with ``re``'s own parser and re-emit every atom as an
explicit character set computed from this interpreter's Unicode tables. The
structure (groups, alternation, repeats, assertions) is emitted unchanged.
``tests/test_pyre.py`` checks every atom of every python-re pack exhaustively
against ``re`` over all code points.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable
from re import _casefix, _parser  # type: ignore[attr-defined]
from re import _constants as C  # type: ignore[attr-defined]
from typing import Any

from soulscan.errors import RulePackError

_MAXCODE = sys.maxunicode
_MAXREPEAT = C.MAXREPEAT


@functools.cache
def _lowercase_inverse() -> dict[int, tuple[int, ...]]:
    """Map each simple-lowercase target to the code points that lowercase to it."""
    import _sre  # type: ignore[import-not-found]

    inverse: dict[int, list[int]] = {}
    for cp in range(_MAXCODE + 1):
        lower = _sre.unicode_tolower(cp)
        if lower != cp:
            inverse.setdefault(lower, []).append(cp)
    return {k: tuple(v) for k, v in inverse.items()}


# Each category's members are read off ``re`` itself, so they are right by construction.
_RE_CATEGORY = {"space": r"\s", "word": r"\w", "digit": r"\d"}
# The regex property expression closest to each category; the few code points on
# which this interpreter's Unicode tables disagree with regex's are patched in.
_PROPERTY_BASE = {"word": r"\p{L}\p{N}_", "digit": r"\p{Nd}"}


@functools.cache
def _all_codepoints_text() -> str:
    return "".join(chr(cp) for cp in range(_MAXCODE + 1) if not 0xD800 <= cp <= 0xDFFF)


@functools.cache
def _category_members(category: str) -> tuple[tuple[int, int], ...]:
    """Code-point ranges of ``re``'s Unicode ``\\s``, ``\\w`` or ``\\d``."""
    members = re.findall(_RE_CATEGORY[category], _all_codepoints_text())
    return tuple(_ranges(ord(ch) for ch in members))


@functools.cache
def _disagreement(category: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Where regex's property spelling of a category and ``re``'s own differ on this
    interpreter: (ranges only the property has, ranges only ``re`` has)."""
    import regex

    in_regex = {ord(ch) for ch in regex.findall(f"[{_PROPERTY_BASE[category]}]",
                                                _all_codepoints_text())}
    in_python = {cp for lo, hi in _category_members(category) for cp in range(lo, hi + 1)}
    return _ranges(in_regex - in_python), _ranges(in_python - in_regex)


@functools.cache
def _category_expression(category: str) -> str:
    """A compact regex (V1) set body equal to ``re``'s category on this interpreter.

    Spelling ``\\w`` as 700 explicit ranges makes every pattern slow to compile;
    a Unicode property plus a short correction list compiles in microseconds.
    """
    if category not in _PROPERTY_BASE:
        return _set_body(_category_members(category))
    base = _PROPERTY_BASE[category]
    extra, missing = _disagreement(category)
    body = f"[{base}--[{_set_body(extra)}]]" if extra else f"[{base}]"
    if missing:
        body = f"{body}||[{_set_body(missing)}]"
    return body


def _ranges(codepoints: Iterable[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in sorted(set(codepoints)):
        if out and cp == out[-1][1] + 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def _union(*range_lists: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(r for ranges in range_lists for r in ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return out


def _escape_cp(cp: int) -> str:
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _set_body(ranges: Iterable[tuple[int, int]]) -> str:
    parts = []
    for lo, hi in ranges:
        parts.append(_escape_cp(lo) if lo == hi else f"{_escape_cp(lo)}-{_escape_cp(hi)}")
    return "".join(parts)


_CATEGORY_NAMES = {
    C.CATEGORY_SPACE: ("space", False),
    C.CATEGORY_NOT_SPACE: ("space", True),
    C.CATEGORY_WORD: ("word", False),
    C.CATEGORY_NOT_WORD: ("word", True),
    C.CATEGORY_DIGIT: ("digit", False),
    C.CATEGORY_NOT_DIGIT: ("digit", True),
}


class _Translator:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.ignorecase = bool(flags & re.IGNORECASE)
        self.flags = flags

    # -- character sets -------------------------------------------------
    def _case_closure(self, codepoints: Iterable[int]) -> set[int]:
        """Everything ``re`` matches case-insensitively for these members.

        ``re`` lowercases the subject character and looks it up in the set of
        lowercased members plus their extra cases (``ı`` for ``i``, ``ſ`` for ``s``...).
        """
        import _sre

        lowered: set[int] = set()
        for cp in codepoints:
            lo = _sre.unicode_tolower(cp)
            lowered.add(lo)
            lowered.update(_casefix._EXTRA_CASES.get(lo, ()))
        inverse = _lowercase_inverse()
        # Lowercasing is idempotent, so the lowered set lowercases to itself; the
        # rest are the characters that lowercase into it.
        matched = set(lowered)
        for lo in lowered:
            matched.update(inverse.get(lo, ()))
        return matched

    def _class(self, items: list[tuple[Any, Any]]) -> str:
        negate = False
        members: set[int] = set()
        categories: list[str] = []
        for op, av in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                members.add(av)
            elif op is C.RANGE:
                lo, hi = av
                if self.ignorecase and hi - lo > 0x3000:
                    raise self._unsupported("a very large case-insensitive range")
                members.update(range(lo, hi + 1))
            elif op is C.CATEGORY:
                categories.append(self._category_set(av))
            else:
                raise self._unsupported(f"character-class item {op}")
        if self.ignorecase:
            members = self._case_closure(members)
        parts = [f"[{_set_body(_ranges(members))}]"] if members else []
        parts.extend(categories)
        if not parts:
            return "[\\u0000-\\U0010ffff]" if negate else "[^\\u0000-\\U0010ffff]"
        return f"[{'^' if negate else ''}{'||'.join(parts)}]"

    def _literal(self, cp: int, negated: bool = False) -> str:
        members = self._case_closure([cp]) if self.ignorecase else {cp}
        return f"[{'^' if negated else ''}{_set_body(_ranges(members))}]"

    def _category_set(self, code: Any) -> str:
        name, inverted = _CATEGORY_NAMES[code]
        return f"[{'^' if inverted else ''}{_category_expression(name)}]"

    def _category(self, code: Any) -> str:
        return self._category_set(code)

    def _unsupported(self, what: str) -> RulePackError:
        return RulePackError(f"pattern {self.pattern!r}: unsupported python-re construct: {what}")

    # -- structure -------------------------------------------------------
    def emit(self, nodes: Any) -> str:
        nodes = list(nodes)
        out = []
        for i, (op, av) in enumerate(nodes):
            if op is C.AT and av is C.AT_BOUNDARY:
                out.append(self._boundary(nodes[:i], nodes[i + 1:]))
            else:
                out.append(self._node(op, av))
        return "".join(out)

    def _boundary(self, before: list[Any], after: list[Any]) -> str:
        """``\\b`` with the side that is known to be a word character dropped.

        A full boundary test is two lookarounds on each side; when the pattern
        itself guarantees a word character next (``\\bname``) or just before
        (``network\\b``), one lookaround on the other side is equivalent and
        much faster.
        """
        word = self._word()
        if _starts_with_word(after, self):
            return f"(?<!{word})"
        if _ends_with_word(before, self):
            return f"(?!{word})"
        return self._at(C.AT_BOUNDARY)

    def is_word_literal(self, cp: int) -> bool:
        members = self._case_closure([cp]) if self.ignorecase else {cp}
        return all(chr(m).isalnum() or m == 0x5F for m in members)

    def _word(self) -> str:
        return self._category(C.CATEGORY_WORD)

    def _node(self, op: Any, av: Any) -> str:
        if op is C.LITERAL:
            return self._literal(av)
        if op is C.NOT_LITERAL:
            return self._literal(av, negated=True)
        if op is C.IN:
            return self._class(av)
        if op is C.ANY:
            return "(?s:.)" if self.flags & re.DOTALL else "[^\\n]"
        if op is C.CATEGORY:
            return self._category(av)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            lo, hi, sub = av
            hi_text = "" if hi is _MAXREPEAT or hi == _MAXREPEAT else str(hi)
            quant = f"{{{lo},{hi_text}}}"
            if op is C.MIN_REPEAT:
                quant += "?"
            elif op is C.POSSESSIVE_REPEAT:
                quant += "+"
            return f"(?:{self.emit(sub)}){quant}"
        if op is C.SUBPATTERN:
            group, add_flags, del_flags, sub = av
            if add_flags or del_flags:
                raise self._unsupported("inline flags inside a group")
            inner = self.emit(sub)
            return f"({inner})" if group is not None else f"(?:{inner})"
        if op is C.ATOMIC_GROUP:
            return f"(?>{self.emit(av)})"
        if op is C.BRANCH:
            _, branches = av
            return "(?:" + "|".join(self.emit(b) for b in branches) + ")"
        if op is C.AT:
            return self._at(av)
        if op in (C.ASSERT, C.ASSERT_NOT):
            direction, sub = av
            kind = ("=" if op is C.ASSERT else "!")
            prefix = "(?<" if direction < 0 else "(?"
            return f"{prefix}{kind}{self.emit(sub)})"
        if op is C.GROUPREF:
            return f"(?:\\{av})"
        raise self._unsupported(str(op))

    def _at(self, code: Any) -> str:
        word = self._word()
        multiline = bool(self.flags & re.MULTILINE)
        table = {
            C.AT_BEGINNING: "(?m:^)" if multiline else "(?-m:^)",
            C.AT_BEGINNING_STRING: "\\A",
            C.AT_END: "(?m:$)" if multiline else "(?-m:$)",
            C.AT_END_STRING: "\\Z",
            C.AT_BOUNDARY: f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))",
            C.AT_NON_BOUNDARY: f"(?:(?<={word})(?={word})|(?<!{word})(?!{word}))",
        }
        if code not in table:
            raise self._unsupported(f"anchor {code}")
        return table[code]


def _starts_with_word(nodes: list[Any], tr: _Translator) -> bool:
    """Does every match of ``nodes`` start with a word character?"""
    if not nodes:
        return False
    op, av = nodes[0]
    if op is C.LITERAL:
        return tr.is_word_literal(av)
    if op is C.SUBPATTERN:
        return _starts_with_word(list(av[3]) + nodes[1:], tr)
    if op is C.BRANCH:
        return all(_starts_with_word(list(b) + nodes[1:], tr) for b in av[1])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[0] >= 1:
        return _starts_with_word(list(av[2]), tr)
    return False


def _ends_with_word(nodes: list[Any], tr: _Translator) -> bool:
    """Does every match of ``nodes`` end with a word character?"""
    if not nodes:
        return False
    op, av = nodes[-1]
    if op is C.LITERAL:
        return tr.is_word_literal(av)
    if op is C.SUBPATTERN:
        return _ends_with_word(nodes[:-1] + list(av[3]), tr)
    if op is C.BRANCH:
        return all(_ends_with_word(nodes[:-1] + list(b), tr) for b in av[1])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):
        lo, _, sub = av
        inner = _ends_with_word(list(sub), tr)
        return inner and (lo >= 1 or _ends_with_word(nodes[:-1], tr))
    return False


_SUPPORTED_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL


@functools.cache
def _fast_replacements() -> tuple[tuple[str, str], ...]:
    """(exact, fast) spellings of each category whose exact form needs corrections.

    The fast form is the bare Unicode property. It is only a valid stand-in when
    it accepts a superset of ``re``'s category (nothing is missing) — then a text
    without any of the extra characters (``exactness_guard``) matches identically.
    """
    pairs = []
    for name, base in _PROPERTY_BASE.items():
        exact = _category_expression(name)
        if exact != f"[{base}]" and "||" not in exact:
            pairs.append((exact, f"[{base}]"))
    return tuple(pairs)


@functools.cache
def exactness_guard() -> str | None:
    """A set matching every character on which the fast variants may differ from ``re``."""
    extra = [r for name in _PROPERTY_BASE for r in _disagreement(name)[0]]
    return f"[{_set_body(_union(extra))}]" if extra else None


def fast_variant(exact: str) -> str | None:
    """The same pattern with property-based categories (quick to compile), if any differ."""
    fast = exact
    for exact_form, fast_form in _fast_replacements():
        fast = fast.replace(exact_form, fast_form)
    return fast if fast != exact else None


def translate(pattern: str, flags: int = 0) -> str:
    """Return a ``regex`` pattern (compile it with ``regex.V1``) that matches
    exactly what ``re`` would."""
    if flags & ~_SUPPORTED_FLAGS & ~re.UNICODE:
        raise RulePackError(f"pattern {pattern!r}: unsupported python-re flags {flags:#x}")
    try:
        parsed = _parser.parse(pattern, flags)
    except re.error as exc:
        raise RulePackError(f"pattern {pattern!r}: {exc}") from exc
    effective = parsed.state.flags
    if effective & ~(_SUPPORTED_FLAGS | re.UNICODE):
        raise RulePackError(f"pattern {pattern!r}: unsupported inline flags")
    return _Translator(pattern, effective).emit(parsed)
