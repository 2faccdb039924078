"""A necessary condition of a Python-``re`` pattern: a stretch of its top-level sequence.

When a pattern matches, each node of its top-level sequence matches one piece of the
match, the pieces one after another. So any run of consecutive nodes matches its own
stretch of the text on its own, and a search for the run alone finds a match wherever the
pattern has one: lookarounds and boundaries look at the same text either way; a
backreference could name a group outside the run, so a run holding one is never used.

A run that asks for more than the rule's anchors (``now\\s+(?:a|an|the)\\s+`` in
``you\\s+are\\s+(?:\\w+\\s+){0,8}now\\s+(?:a|an|the)\\s+``, where the anchors only say
``now``, ``you`` and ``are``) rules out, with one C-speed search, the texts that hold every
anchor but never in that shape, before the pattern itself is tried place by place.
The run is tried only where it can start (one of its leading strings, found with
``str.find``): ``re`` cannot skip ahead in C to a case-insensitive literal, so a plain
search for the run would read the text slower than the pattern's own tries do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from re import _compiler, _parser  # type: ignore[attr-defined]
from re import _constants as C  # type: ignore[attr-defined]
from typing import Any

from soulscan.engine import cache
from soulscan.engine.anchors import leading_strings, rarity

# A run must demand at least this many literal characters: fewer are found in most texts.
MIN_LITERALS = 4
# A run is tried where one of its leading strings occurs: those found in nearly every text
# (``to``, ``the``) would leave too many places to try.
MIN_START_RARITY = 20

_SINGLE = (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.AT, C.CATEGORY)
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)


@dataclass(frozen=True)
class NecessaryRun:
    """A stretch of a pattern that every match holds, with the strings it starts with."""
    pattern: re.Pattern[str]  # the run alone
    starts: tuple[str, ...]  # one of these begins every match of the run (folded, when caseless)
    folded: bool

    def occurs_at(self, text: str, places: Sequence[int]) -> bool:
        """Does the run match ``text`` at one of ``places`` (every place where one of
        ``starts`` occurs, in the folded text when ``folded``)?"""
        match = self.pattern.match
        return any(match(text, place) for place in places)


# The C half of ``re``, which a run's program is handed to (``_compiler.compile`` calls it).
_SRE: Any = vars(_compiler)["_sre"]


def necessary_run(pattern: str, flags: int) -> NecessaryRun | None:
    """A run of ``pattern``'s top-level nodes, compiled alone, that every text the pattern
    matches also matches; None when no run is worth a search of its own.

    The run is never the pattern's first one (a search already tries only the places
    where that can start); it starts with literal text (``re`` then skips ahead in C),
    and has a node that is neither literal text nor a boundary (else it says little more
    than an anchor).

    The analysis parses the pattern (the runtime gate asks for every rule at start-up,
    ~3 ms a run), so its result is kept on disk as plain data (``_run_program``): the
    run's program for ``re``'s C compiler, its start strings and whether it is caseless.
    """
    found = _run_program(pattern, int(flags))
    run = _from_program(found)
    if run is None and found is not None:  # a stored program C refused: work it out again
        run = _from_program(_run_program.__wrapped__(pattern, int(flags)))  # type: ignore[attr-defined]
    return run


def _from_program(found: Any) -> NecessaryRun | None:
    """The run ``_run_program`` described; None for none, or for a description that is not
    one (C checks the program itself)."""
    if found is None:
        return None
    try:
        (run_flags, code, groups, group_index, index_group), starts, folded = found
        if (type(run_flags) is not int or type(code) is not tuple or type(groups) is not int
                or type(group_index) is not tuple or type(index_group) is not tuple
                or type(starts) is not tuple or not all(type(start) is str for start in starts)
                or type(folded) is not bool):
            return None
        compiled = _SRE.compile(None, run_flags, list(code), groups, dict(group_index),
                                index_group)
    except (TypeError, ValueError, RuntimeError, OverflowError):
        return None
    return NecessaryRun(compiled, starts, folded)


@cache.persistent_depending_on("soulscan.engine.anchors")  # leading_strings, rarity
def _run_program(pattern: str, flags: int) -> tuple[Any, ...] | None:
    """``necessary_run``'s run as plain data: (the arguments ``re``'s compiler hands to C
    for it, its start strings, whether they are folded); None when there is no run."""
    try:
        parsed = _parser.parse(pattern, flags)
    except re.error:
        return None
    nodes = list(parsed)
    best: tuple[int, int, int] | None = None  # (literals, start, end)
    for start, end in _runs(nodes):
        if start == 0:
            continue
        start = next((i for i in range(start, end) if _starts_with_literal(nodes[i])), end)
        run = nodes[start:end]
        if not any(map(_informative, run)):
            continue
        literals = sum(_literals(node) for node in run)
        if literals >= MIN_LITERALS and (best is None or literals >= best[0]):
            best = (literals, start, end)
    if best is None:
        return None
    _, start, end = best
    ignorecase = bool(parsed.state.flags & re.IGNORECASE)
    starts = leading_strings(nodes[start:end], ignorecase)
    if starts is None or min(map(rarity, starts)) < MIN_START_RARITY:
        return None
    sub_pattern = _parser.SubPattern(parsed.state, nodes[start:end])
    _, (arguments,) = cache.recorded_calls(_SRE, "compile",
                                           lambda: _compiler.compile(sub_pattern, flags))
    _, run_flags, code, groups, group_index, index_group = arguments
    program = (int(run_flags), tuple(int(op) for op in code), int(groups),
               tuple(sorted(group_index.items())), tuple(index_group))
    return program, tuple(sorted(starts)), ignorecase


def _runs(nodes: list[Any]) -> list[tuple[int, int]]:
    """Maximal stretches of simple nodes (cheap to search, no backreference)."""
    runs = []
    start = 0
    for index, node in enumerate([*nodes, None]):
        if node is None or not _simple(node):
            if index > start:
                runs.append((start, index))
            start = index + 1
    return runs


def _simple(node: tuple[Any, Any]) -> bool:
    op, av = node
    if op in _SINGLE:
        return True
    if op in _REPEATS:
        _, high, body = av
        items = list(body)
        return (high == 1 or high is C.MAXREPEAT) and len(items) == 1 and items[0][0] in _SINGLE
    if op is C.SUBPATTERN:
        return not (av[1] | av[2]) and all(map(_simple, av[3]))
    if op is C.BRANCH:
        return all(all(map(_simple, branch)) for branch in av[1])
    return False


def _starts_with_literal(node: tuple[Any, Any]) -> bool:
    op, av = node
    if op is C.LITERAL:
        return True
    if op is C.SUBPATTERN:
        return bool(av[3]) and _starts_with_literal(av[3][0])
    if op is C.BRANCH:
        return all(bool(branch) and _starts_with_literal(branch[0]) for branch in av[1])
    return False


def _informative(node: tuple[Any, Any]) -> bool:
    r"""Does the node ask for more than literal text (which anchors already stand for)?
    An alternative of plain text (``conversation`` beside ``chat\s+history``) asks no more."""
    op, av = node
    if op in (C.LITERAL, C.AT):
        return False
    if op is C.SUBPATTERN:
        return any(map(_informative, av[3]))
    if op is C.BRANCH:
        return all(any(map(_informative, branch)) for branch in av[1])
    return True


def _literals(node: tuple[Any, Any]) -> int:
    """Literal characters every match of the node holds."""
    op, av = node
    if op is C.LITERAL:
        return 1
    if op is C.SUBPATTERN:
        return sum(map(_literals, av[3]))
    if op is C.BRANCH:
        return min(sum(map(_literals, branch)) for branch in av[1])
    if op in _REPEATS:
        return int(av[0]) * sum(map(_literals, av[2]))
    return 0
