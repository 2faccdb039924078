"""Which of many literal strings occur in a text, in one linear RE2 pass (``RE2::Set``).

The hardened gates look up hundreds of literal anchors in each view of a text. The pivot
scans of ``soulscan.engine.anchorscan`` stop at each rare character and leave ``re``'s C
loop there, and the anchors they cannot pin cost an ``in`` each: ~60 ns a character over
the corpora. One RE2 set of the literals runs them all at once in a DFA pass (~5 ns a
character, the UTF-8 encoding included) and, unlike a rule's superset
(``soulscan.engine.re2_gate``), its answer is exact: a literal occurs in a ``str`` exactly
when its UTF-8 bytes occur in the text's UTF-8 bytes (UTF-8 is self-synchronising).

Two cases cannot be answered, and say so (None): a text with a lone surrogate (no UTF-8
form), and a pass whose DFA outgrew its memory (RE2 then reports nothing; an empty pattern
at the end of the text, in every set, tells that apart from "none occurs").

The import of ``re2`` and each set's build (~10 ms in all) pay once a process has looked up
``LITERAL_SETS_AFTER_CHARS`` characters (~60 ms of pivot scans), as the runtime scanner's
sets do (``soulscan.engine.re2_due``): a one-file run never builds one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from soulscan.engine.re2_due import DueAfter

LITERAL_SETS_AFTER_CHARS = 1_000_000
# RE2 reads bytes: a text mostly of multi-byte characters (emoji, CJK) costs it two to four
# times as many steps, while the pivot scans rarely stop in it; such a text is left to them.
MAX_BYTES_A_CHAR = 1.5
_DUE = DueAfter(LITERAL_SETS_AFTER_CHARS)  # characters looked up, shared by every finder


def share_literal_sets_due(processes: int) -> None:
    """``DueAfter.share``: before ``scan -j N`` forks its workers."""
    _DUE.share(processes)


def literal_sets_due() -> bool:
    """Whether the sets are due (read by the rule supersets too,
    ``soulscan.hardened.rule_supersets``, which are built with them)."""
    return _DUE.due(0)


def use_literal_sets(after_chars: int | None = LITERAL_SETS_AFTER_CHARS) -> None:
    """Build the sets once this many characters have been looked up from now (0: at the
    next lookup; None: never, the pivot scans answer alone)."""
    _DUE.restart(after_chars)


class ScreenSet:
    """RE2 patterns compiled as one set, with an end-of-text sentinel after them (the literal
    sets, the hardened screens, ``soulscan.hardened.re2_screens``, and rule supersets)."""

    def __init__(self, sources: Sequence[str], memory: int | None = None) -> None:
        """A set of ``memory`` bytes (`re2_gate.search_set`'s default: None). Raises
        `re2_gate.SetUnavailable` when google-re2 is missing or refuses (a program over its
        memory: repeats of repeats)."""
        from soulscan.engine.re2_gate import SetUnavailable, bytes_matcher, search_set

        re2, built = search_set(memory)
        try:
            for source in (*sources, r"\z"):
                built.Add(source)
            built.Compile()
        except re2.error as exc:
            raise SetUnavailable(str(exc)) from exc
        self._sentinel = len(sources)
        self._match: Callable[[bytes], list[int]] = bytes_matcher(built)

    def found(self, data: bytes) -> list[int] | None:
        """The indexes of the patterns that match in `data`; None when the DFA gave up
        before its end (RE2 then reports nothing, not even the sentinel)."""
        found = self._match(data)
        if self._sentinel not in found:
            return None
        found.remove(self._sentinel)
        return found


class LiteralSet(ScreenSet):
    """Literal strings compiled as one RE2 set."""

    def __init__(self, literals: Iterable[str]) -> None:
        """Raises ``re2_gate.SetUnavailable`` when google-re2 is missing or refuses. (A
        literal set's DFA has about one state at most a byte of its literals (its trie): a few
        thousand for hundreds of anchors, far within ``re2_gate.SET_MEMORY``.)"""
        from soulscan.engine.re2_gate import literal_source

        self.literals = tuple(literals)
        super().__init__([literal_source(literal) for literal in self.literals])

    def present(self, text: str) -> set[str] | None:
        """Exactly the literals that occur in ``text``; None when RE2 cannot say."""
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return None
        if len(data) > len(text) * MAX_BYTES_A_CHAR:
            return None
        found = self.found(data)
        if found is None:
            return None
        literals = self.literals
        return {literals[index] for index in found}


class LiteralSetWhenDue:
    """A finder's literal set: None until lookups are due, then built once (and None for
    good when it cannot be built)."""

    def __init__(self, literals: Iterable[str]) -> None:
        self._literals = tuple(literals)
        self._set: LiteralSet | None = None
        self._refused = False

    def __call__(self, chars: int) -> LiteralSet | None:
        """The set, counting a lookup of ``chars`` characters while none is built."""
        if _DUE.after is None or self._refused:
            return None
        if self._set is not None:
            return self._set
        if not _DUE.due(chars):
            return None
        from soulscan.engine.re2_gate import SetUnavailable

        try:
            self._set = LiteralSet(self._literals)
        except SetUnavailable:
            self._refused = True
        return self._set
