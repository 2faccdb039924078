"""The Hermes 0.19.0 threat scanner, run as the runtime pack through the rule engine.

Semantics reproduced from ``tools/threat_patterns.py`` of hermes-agent 0.19.0:
empty text → no findings (before the scope is checked); only the first
``MAX_SCAN_CHARS`` code points are scanned; each distinct invisible character of
that window yields ``invisible_unicode_U+XXXX``; the patterns of the scope run in
table order over the NFKC form of the window, case-insensitively, each reported
once. The runtime orders several invisible findings by Python set iteration
(hash-seed dependent); we sort them by code point.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import gc
import itertools
import operator
import re
import unicodedata
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, NamedTuple

from soulscan.engine.prefilter import (
    FirstMatch,
    GatedRule,
    RuleSetGate,
    gated_python_re,
    matches_at,
)
from soulscan.engine.re2_due import DueAfter
from soulscan.engine.rulepack import Rule, runtime_pack
from soulscan.engine.text_memos import on_forget
from soulscan.hermes.nfkc import nfkc, nfkc_mapped
from soulscan.hermes.sparse_window import window_facts

if TYPE_CHECKING:
    from soulscan.engine.re2_gate import SetGate

MAX_SCAN_CHARS = 65_536
SCOPES = ("all", "context", "strict")
_SCOPE_MEMBERS = {
    "all": frozenset({"all"}),
    "context": frozenset({"all", "context"}),
    "strict": frozenset({"all", "context", "strict"}),
}


def _pack_invisible() -> frozenset[str]:
    return runtime_pack().invisible_chars


def __getattr__(name: str) -> frozenset[str]:
    # INVISIBLE_CHARS lives in the runtime pack (one copy of the runtime's facts);
    # read it from there on first use rather than loading the pack at import.
    if name == "INVISIBLE_CHARS":
        return _pack_invisible()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _invisible_pattern() -> re.Pattern[str]:
    """A character of the runtime's invisible set: a C-speed scan (``re`` scans a plain set
    about three times faster than ``regex``). The set is tested only on characters of its
    own span (one range test a character is quicker than ``re``'s test of the scattered set)."""
    chars = sorted(_pack_invisible())
    members = "".join(f"\\u{ord(ch):04x}" for ch in chars)
    return re.compile(f"[\\u{ord(chars[0]):04x}-\\u{ord(chars[-1]):04x}](?<=[{members}])")


def invisible_id(ch: str) -> str:
    return f"invisible_unicode_U+{ord(ch):04X}"


def _is_invisible_id(finding: str) -> bool:
    return finding.startswith("invisible_unicode_")


def _members(scope: str) -> frozenset[str]:
    members = _SCOPE_MEMBERS.get(scope)
    if members is None:
        raise ValueError(f"scan_for_threats: unknown scope {scope!r}")
    return members


@functools.cache
def _rules_in(members: frozenset[str]) -> tuple[Rule, ...]:
    return tuple(rule for rule in runtime_pack().rules if rule.scope in members)


@functools.cache
def _gate_in(members: frozenset[str]) -> RuleSetGate:
    """The scope's rules ready to run many times (the runtime pack is python-re)."""
    return RuleSetGate([gated_python_re(rule) for rule in _rules_in(members)])


def _gate_for_scope(scope: str) -> RuleSetGate:
    gate = _GATES[scope] = _gate_in(_members(scope))
    return gate


def scan_for_threats(text: str, scope: str = "context") -> list[str]:
    """The runtime's finding ids for ``text`` at ``scope``, in the runtime's order."""
    global _last_scan
    if not text:
        return []
    last_text, last_scope, last_found = _last_scan  # (one read: a consistent triple)
    if text == last_text and scope == last_scope:  # lengths first, then one C compare
        return list(last_found)
    found = _scan(text, scope)
    _last_scan = text, scope, tuple(found)
    return found


# The last text scanned, its scope and its findings. ``soulscan.pipeline`` judges a file's
# text to learn whether it is clean, and a file that is not (or that the runtime cuts) is
# judged again by its document: the second scan of the same text is a compare.
_last_scan: tuple[str, str, tuple[str, ...]] = ("", "", ())


def _forget_last_scan() -> None:
    global _last_scan
    _last_scan = ("", "", ())


on_forget(_forget_last_scan)  # a benchmark's repeated runs scan afresh (engine/text_memos)


def _scan(text: str, scope: str) -> list[str]:
    gate = _GATES.get(scope) or _gate_for_scope(scope)
    window = text[:MAX_SCAN_CHARS]
    quick = _QUICK.get(scope) or _quick_gate_for(scope, len(window))
    if quick is not None:
        answer = _quick_answer(quick, window)
        if answer is not None:
            return answer
    if window.isascii():  # no invisible character, NFKC changes nothing, folding lowers
        firsts = _firsts_of(window, scope)
        return [rule.id for rule in gate.rules_matching(window, window.lower(), firsts=firsts)]
    facts = window_facts(window, _pack_invisible())
    findings = [invisible_id(ch) for ch in sorted(facts.invisible)] if facts.invisible else []
    if not facts.normal:
        # NFKC that makes no new run of ASCII characters finds no anchor the window lacks:
        # when no rule meets its anchors in the window, none matches its NFKC either
        if facts.ascii_kept and gate.ascii_anchors_only and not gate.may_any_match(
                window.encode("ascii", "replace").decode("ascii").lower()):
            return findings
        normal = nfkc(window)
        if quick is not None and quick.chars_if_none_match(normal) is not None:
            return findings
        matching = gate.matching_rules(gate.prepare(normal))
    elif facts.folded is not None and gate.ascii_anchors_only and (
            gate.letters_fold or not facts.letters):  # as the runtime pack's gates do
        matching = gate.rules_matching(window, facts.folded, facts.symbols_only,
                                       letters=facts.letters, firsts=_firsts_of(window, scope))
    else:
        matching = gate.matching_rules(gate.prepare(window))
    findings.extend(rule.id for rule in matching)
    return findings


# scope -> its gate, filled on first use (a dict lookup a scan, not a cached call)
_GATES: dict[str, RuleSetGate] = {}


# The last window whose rules were searched in it (by their own or lowered patterns, on the
# window itself), its scope, and where each matching rule's leftmost match starts when its
# search told: the runtime profile then locates the verdict's occurrences in that very
# window, each rule's ``finditer`` from there on (``runtime_matches``).
_last_firsts: tuple[str, str, dict[str, FirstMatch]] = ("", "", {})


def _firsts_of(window: str, scope: str) -> dict[str, FirstMatch]:
    """A fresh record of first matches for ``window``, kept as the last one."""
    global _last_firsts
    firsts: dict[str, FirstMatch] = {}
    _last_firsts = window, scope, firsts
    return firsts


def _firsts_for(text: str, scope: str) -> dict[str, FirstMatch]:
    """The first matches recorded for ``text`` at ``scope`` (empty: none known)."""
    window, window_scope, firsts = _last_firsts
    if scope == window_scope and firsts and (window is text or window == text):
        return firsts
    return {}


def _forget_firsts() -> None:
    global _last_firsts
    _last_firsts = ("", "", {})


on_forget(_forget_firsts)


# An RE2 set (``soulscan.engine.re2_gate``) answers most windows in one linear pass: "no
# rule can match, and these invisible characters occur". The import and a scope's set
# (~20 ms) pay once a process has scanned this many characters (~20 ms of the pure-Python
# gates); a one-file run never builds them.
QUICK_AFTER_CHARS = 1_000_000
_QUICK_DUE = DueAfter(QUICK_AFTER_CHARS)
# scope -> its RE2 set, built at the scope's first scan once they are due
_QUICK: dict[str, SetGate] = {}


def use_quick_gate(after_chars: int | None = QUICK_AFTER_CHARS) -> None:
    """Build the RE2 sets once this many characters are scanned (0: at the next scan;
    None: never, and drop those built). The verdicts are the same either way."""
    _QUICK_DUE.restart(after_chars)
    _QUICK.clear()
    _forget_last_scan()  # the next scan is answered by the gate chosen now


def share_quick_gate_due(processes: int) -> None:
    """``DueAfter.share``: before ``scan -j N`` forks its workers."""
    _QUICK_DUE.share(processes)


def _quick_gate_for(scope: str, chars: int) -> SetGate | None:
    """Count a window's characters; once they are due, the scope's set, built now (None:
    not due, or no set can be built: the pure-Python gates then answer alone for good)."""
    if not _QUICK_DUE.due(chars):
        return None
    from soulscan.engine.re2_gate import SetGate, SetUnavailable
    entries = _gate_in(_members(scope)).rules  # the patterns as each rule's own search runs them
    try:
        quick = _QUICK[scope] = SetGate([(entry.rule.pattern, entry.flags) for entry in entries],
                                        sorted(_pack_invisible()))
    except SetUnavailable:
        _QUICK_DUE.restart(None)
        _QUICK.clear()
        return None
    return quick


def _quick_answer(quick: SetGate, window: str) -> list[str] | None:
    """The findings of a window that is its own NFKC form and in which no rule's superset
    matches; None when a rule may match (the gate decides), the window is not NFKC (the
    gate's own shortcut comes first, then the set on the NFKC form) or the set cannot say."""
    if not window.isascii() and not unicodedata.is_normalized("NFKC", window):
        return None
    invisible = quick.chars_if_none_match(window)
    return None if invisible is None else [invisible_id(ch) for ch in sorted(invisible)]


def threat_message(finding: str) -> str:
    if finding.startswith("invisible_unicode_"):
        codepoint = finding.removeprefix("invisible_unicode_")
        return f"Blocked: content contains invisible unicode character {codepoint} (possible injection)."
    return (
        f"Blocked: content matches threat pattern '{finding}'. Content is injected into the "
        "system prompt and must not contain injection or exfiltration payloads."
    )


def first_threat_message(text: str, scope: str = "strict") -> str | None:
    findings = scan_for_threats(text, scope)
    return threat_message(findings[0]) if findings else None


def blocked_placeholder(filename: str, findings: list[str]) -> str:
    return (
        f"[BLOCKED: {filename} contained potential prompt injection "
        f"({', '.join(findings)}). Content not loaded.]"
    )


def scan_context_content(text: str, filename: str) -> str:
    """What the runtime loads for a context file: the text, or a BLOCKED placeholder.

    One leading U+FEFF is tolerated (removed, then the rest is scanned); any other
    BOM is an invisible character like the rest.
    """
    text = text.removeprefix("\ufeff")
    findings = scan_for_threats(text, "context")
    return blocked_placeholder(filename, findings) if findings else text


class RuntimeMatch(NamedTuple):
    """One occurrence of a runtime finding, with its span in the scanned text."""

    rule_id: str
    rule: Rule | None  # None for invisible-character findings
    start: int
    end: int


def runtime_matches(
    text: str, scope: str, verdict: Collection[str] | None = None
) -> list[RuntimeMatch]:
    """Every occurrence of every runtime finding in ``text`` (the whole text, not
    just the scan window: callers compare spans with ``MAX_SCAN_CHARS`` to tell
    whether the runtime would have seen them), ordered by (start, end, rule id).

    ``verdict``: the ids ``scan_for_threats(text, scope)`` gave, for a ``text`` no longer
    than the scan window. Only those rules are run (and the invisible characters only
    when the verdict names one): a rule the scan found nowhere has no occurrence in the
    same text, so the matches are the same without the gate's pass over the text.
    """
    gate = _GATES.get(scope) or _gate_for_scope(scope)
    if verdict is not None and len(text) > MAX_SCAN_CHARS:
        raise ValueError("runtime_matches: a verdict speaks only for the scan window")
    mapped = nfkc_mapped(text)
    named = None if verdict is None else [entry for entry in gate.rules if entry.rule.id in verdict]
    lowered_of, folded, prepared_folded = (_lowered_reading(gate, mapped.text)
                                           if named is None or named else (None, "", None))
    prepared = gate.prepare(mapped.text, prepared_folded)
    entries = gate.candidates(prepared) if named is None else named
    # (a scan of this very window told where rules' first matches start: a rule's finditer
    # starts there; the mapped text is the window itself when the scan searched the window)
    firsts = _firsts_for(mapped.text, scope) if named else {}
    found: list[RuntimeMatch] = []
    identical = not mapped.out_starts
    for entry in entries:
        rule = entry.rule
        lowered = lowered_of(entry) if lowered_of is not None else None
        first = firsts.get(rule.id)
        spans: Iterator[tuple[int, int]]
        if lowered is not None and first is not None and first.places is not None:
            spans = matches_at(lowered, folded, first.places)  # (the scan's start places)
        elif lowered is not None:  # (``pos`` still lets the pattern see what lies before it)
            since = 0 if first is None else first.start
            spans = (found_at.span() for found_at in lowered.finditer(folded, since))
        elif first is not None:
            spans = entry.finditer_from(prepared, first)
        else:
            spans = entry.finditer(prepared)
        if identical:  # (the text is its own NFKC: a span is its source span)
            rule_id = rule.id  # (built without the named tuple's Python-level ``__new__``)
            found.extend(_new(RuntimeMatch, (rule_id, rule, start, end)) for start, end in spans)
            continue
        for start, end in spans:
            src_start, src_end = mapped.source_span(start, end)
            found.append(_new(RuntimeMatch, (rule.id, rule, src_start, src_end)))
    matches = (_invisible_matches(text)  # already in order
               if verdict is None or any(map(_is_invisible_id, verdict)) else [])
    if len(found) > _FEW_MATCHES:
        matches.extend(found)
        matches.sort(key=_match_order)
    else:
        for match in found:
            bisect.insort(matches, match, key=_match_order)
    return matches


_match_order = operator.attrgetter("start", "end", "rule_id")
_new = tuple.__new__


def _lowered_reading(
    gate: RuleSetGate, text: str
) -> tuple[Callable[[GatedRule], re.Pattern[str] | None] | None, str, str | None]:
    """Which lowered pattern of a rule finds its matches in ``text`` (already NFKC) as its
    own pattern does, span for span, and the folded text it runs on: as ``scan_for_threats``
    answers a window (``soulscan.engine.lowered``); (None, "") when no rule's would. Third:
    the folded text the gate's own checks read (``PreparedText.folded``) when the window's
    facts give it, as the scan takes it (None: the prepared text folds it itself)."""
    if text.isascii():
        lowered = text.lower()
        return _LOWERED, lowered, lowered
    if not gate.ascii_anchors_only:
        return None, "", None
    facts = window_facts(text, _pack_invisible())
    if not facts.normal or facts.folded is None:
        return None, "", None
    # (a letter reads as the stand-in only for a gate whose strings never hold it)
    prepared_folded = facts.folded if gate.letters_fold or not facts.letters else None
    if facts.symbols_only:
        return _LOWERED_FOR_SYMBOLS, facts.folded, prepared_folded
    if facts.letters:
        return _LOWERED_FOR_LETTERS, facts.folded, prepared_folded
    return None, "", prepared_folded


_LOWERED = operator.attrgetter("lowered")
_LOWERED_FOR_SYMBOLS = operator.attrgetter("lowered_for_symbols")
_LOWERED_FOR_LETTERS = operator.attrgetter("lowered_for_letters")
_FEW_MATCHES = 64  # inserting each into the ordered list beats sorting them all


def _invisible_matches(text: str) -> list[RuntimeMatch]:
    """Every invisible character of the runtime's set, in order of position.

    A file can hold a million of them (ZWJ emoji sequences): the matches are built by
    C-level ``map`` over plain offsets rather than one Python call each.
    """
    if text.isascii():
        return []
    starts = [found.start() for found in _invisible_pattern().finditer(text)]
    ids = map(_invisible_ids().__getitem__, map(text.__getitem__, starts))
    ends = map(operator.add, starts, itertools.repeat(1))
    rows = zip(ids, itertools.repeat(None), starts, ends)
    with collector_paused():  # (a million new tuples)
        return list(map(tuple.__new__, itertools.repeat(RuntimeMatch), rows))


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector paused while thousands of objects that hold no cycle are built
    at once (a file of hidden characters): run every 700 new containers by default
    (``soulscan`` itself runs it far less often, ``cli``), it would walk them all again
    and again, and free none (for a million tuples, twice the cost of building them)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@functools.cache
def _invisible_ids() -> dict[str, str]:
    return {ch: invisible_id(ch) for ch in _pack_invisible()}
