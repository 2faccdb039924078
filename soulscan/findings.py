"""Rule matches → findings located in the file on disk, with what the runtime does about them.

Occurrences of the runtime's own rules are found by running them (``runtime_matches``)
over each region's *whole* text in the ``all`` profile, while the verdict comes from the
first 65,536 characters only, exactly as Hermes decides it. So a payload past the scan
window is still located, and marked as not scanned by the runtime and without runtime
effect. The ``runtime`` profile lists only what Hermes checks: the occurrences its own scan
sees, found in the scan window's text alone (a match that needs a character past the
window is not one the runtime sees), and none in a region the runtime found clean.

Hardened findings (what the runtime misses) come from ``soulscan.hardened.analyze`` and
the project's own rule packs (``soulscan.extra_packs``); one that merely restates a runtime
occurrence is dropped. Every string a finding carries is
redacted, escaped and bounded here, so reporters never see raw file text.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import operator
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from soulscan.engine.rulepack import Rule
from soulscan.extra_packs import extra_matches
from soulscan.hardened.secrets import redact
from soulscan.hermes.documents import RuntimeDocument
from soulscan.hermes.scanner import RuntimeMatch, collector_paused, runtime_matches
from soulscan.hermes.spans import Region
from soulscan.hermes.sparse_window import last_window
from soulscan.models import (
    EFFECT_NONE,
    ORIGIN_HARDENED,
    ORIGIN_RUNTIME,
    Confidence,
    Finding,
    Location,
    Severity,
    Span,
    new_finding,
)
from soulscan.report.escape import escape_bounded
from soulscan.report.excerpt import (
    REDACTION_MARGIN,
    Excerpt,
    FileExcerpts,
    KnownCharacters,
    one_line_character_pieces,
)
from soulscan.textpos import LineIndex
from soulscan.verdict_occurrences import hidden_char, hidden_places, verdict_occurrences

_RULE_ID = operator.attrgetter("rule_id")
_MATCH_START, _MATCH_END = operator.itemgetter(2), operator.itemgetter(3)  # of a RuntimeMatch
_new = tuple.__new__  # a named tuple built without its Python-level ``__new__``
_object_new = object.__new__
PROFILES = ("runtime", "hardened", "all")
SNIPPET_LIMIT = 160
MAX_OCCURRENCES = 1000


@dataclass(frozen=True)
class RuleFacts:
    """What a finding needs to know about the rule that produced it (shared with the
    ``soulscan hermes`` audit, whose findings are built the same way)."""

    id: str
    severity: Severity
    confidence: Confidence
    scope: str
    message: str

    @classmethod
    def of(cls, rule: Rule) -> RuleFacts:
        # (asked for again in every flagged file: built once a rule; rules live as long as
        # their packs, and the entry keeps its rule alive, so the id is never reused)
        known = _RULE_FACTS.get(id(rule))
        if known is None or known[0] is not rule:
            known = _RULE_FACTS[id(rule)] = (
                rule, cls(rule.id, rule.severity, rule.confidence, rule.scope, rule.message))
        return known[1]


_RULE_FACTS: dict[int, tuple[Rule, RuleFacts]] = {}


@functools.lru_cache(maxsize=1024)  # a file of hidden characters repeats a few of them
def invisible_facts(rule_id: str, char: str, scope: str) -> RuleFacts:
    """The runtime reports invisible characters by id only; describe the character."""
    name = unicodedata.name(char, "unnamed")
    return RuleFacts(
        rule_id,
        Severity.HIGH,
        Confidence.HIGH,
        scope,
        f"Invisible character U+{ord(char):04X} ({name}): it hides or reorders text a "
        "reviewer reads; Hermes treats it as an injection.",
    )


def document_findings(
    document: RuntimeDocument, display: str, profile: str, rule_packs: tuple[str, ...] = ()
) -> tuple[Finding, ...]:
    """Every finding of a decoded document, in file order, runtime ones first at a tie.

    At most ``MAX_OCCURRENCES`` occurrences of one rule are listed per file; the last one
    listed counts the rest in ``extra["omitted_occurrences"]``. A file of a million
    zero-width spaces would otherwise make a report of a million findings.
    """
    if profile != "runtime":
        return _findings(document, display, profile, rule_packs)
    if not any(map(_runtime_flagged, document.regions)):
        return ()  # the common case: nothing to locate, nothing else to run
    # A file of hidden characters drafts and builds thousands of objects: the collector
    # walks them once, after the drafts are gone (paused in each step, it walked both
    # steps' objects, drafts and all, as each ended: ~0.1 ms of 1,000 findings).
    with collector_paused():
        return _findings(document, display, profile, rule_packs)


def _findings(
    document: RuntimeDocument, display: str, profile: str, rule_packs: tuple[str, ...]
) -> tuple[Finding, ...]:
    assert document.text is not None
    context = _FileContext(document.text, display)
    if profile == "runtime" and len(document.regions) == 1:
        alike = _one_hidden_character(context, document.regions[0])
        if alike is not None:
            return tuple(_count_omitted(alike, context.occurrences))
    runtime: list[_Draft] = []
    hardened: list[_Draft] = []
    runtime_regions = 0  # regions with runtime occurrences
    for region in document.regions:
        found: list[_Draft] = []
        if profile == "runtime":
            # The window's text is the one the verdict's ids were found in: only their
            # rules have occurrences there.
            found = _runtime_findings(context, region, _runtime_window(region), region.ids)
        elif profile == "all" and not _runtime_cleared(region):
            found = _runtime_findings(context, region, region.text)
        if found:
            runtime.extend(found)
            runtime_regions += 1
        if profile in ("hardened", "all"):
            hardened.extend(_hardened_findings(context, document, region))
            if rule_packs:
                hardened.extend(_project_pack_findings(context, document, region, rule_packs))
    if not runtime and not hardened:  # the common case: a clean file
        return ()
    kept = runtime
    if hardened and runtime:  # (the runtime profile has no hardened one to compare)
        restates = _runtime_cover(runtime)
        kept = runtime + [draft for draft in hardened if not restates(draft)]
    elif hardened:  # (the hardened profile: no runtime occurrence to restate)
        kept = hardened
    collected = _count_omitted(context.build(kept), context.occurrences)
    # (spans are (start, end) tuples; with findings of one origin alone the origin ties,
    # and those of one region come in file order: its occurrences in (start, end, id) order)
    if hardened or runtime_regions > 1:
        collected.sort(key=_file_order if hardened and runtime else _span_then_id)
    return tuple(collected)


def _file_order(finding: Finding) -> tuple[int, int, bool, str]:
    span = finding.span
    return span.start, span.end, finding.origin != ORIGIN_RUNTIME, finding.rule_id


_span_then_id = operator.attrgetter("span", "rule_id")


def _runtime_cover(runtime: list[_Draft]) -> Callable[[_Draft], bool]:
    """Whether a hardened finding lies inside a runtime occurrence (and decoded nothing)."""
    spans = sorted((f.span.start, f.span.end) for f in runtime)
    starts = [start for start, _ in spans]
    furthest_end = list(itertools.accumulate((end for _, end in spans), max))

    def restates(draft: _Draft) -> bool:
        if draft.decoded is not None:
            return False
        last = bisect.bisect_right(starts, draft.span.start) - 1
        return last >= 0 and furthest_end[last] >= draft.span.end

    return restates


def _count_omitted(findings: list[Finding], occurrences: Counter[str]) -> list[Finding]:
    if max(occurrences.values(), default=0) <= MAX_OCCURRENCES:
        return findings  # the common case: every occurrence is listed
    # The last listed finding of each rule with more: looked for from the end, until each
    # such rule has been met (the last finding of a file of hidden characters, at once).
    over = {rule_id: count - MAX_OCCURRENCES for rule_id, count in occurrences.items()
            if count > MAX_OCCURRENCES}
    for position in range(len(findings) - 1, -1, -1):
        finding = findings[position]
        omitted = over.pop(finding.rule_id, 0)
        if omitted:
            extra = {**finding.extra, "omitted_occurrences": str(omitted)}
            findings[position] = replace(finding, extra=extra)
            if not over:
                break
    return findings


class _Draft(NamedTuple):
    """A finding before it is located and shown: one that is dropped (it restates a
    runtime occurrence) costs nothing more, and those kept are shown together."""

    region: Region
    facts: RuleFacts
    origin: str
    span: Span
    effect: str
    decoded: str | None = None
    detail: str | None = None


class _FileContext:
    """The text and display name of the file being reported, and its occurrence counts.

    (A plain class with slots, not a frozen dataclass: one is made for every scanned file,
    clean or not, and the dataclass's ``__init__`` and default factory cost three times as
    much.)"""

    __slots__ = ("display", "occurrences", "text")

    def __init__(self, text: str, display: str) -> None:
        self.text = text
        self.display = display
        self.occurrences: Counter[str] = Counter()

    def admit(self, rule_id: str) -> bool:
        """Count an occurrence; False once the rule has ``MAX_OCCURRENCES`` listed."""
        self.occurrences[rule_id] += 1
        return self.occurrences[rule_id] <= MAX_OCCURRENCES

    def admit_all(
        self, matches: Sequence[RuntimeMatch], counts: Counter[str] | None = None
    ) -> Sequence[RuntimeMatch]:
        """``admit`` for many matches at once: each counted, those still listed yielded.

        Counted in one pass in C, and left as soon as every rule is at its cap: a
        megabyte of emoji sequences holds 150,000 joiners and lists only 1,000.
        ``counts``: how many occurrences of each rule there are when ``matches`` lists only
        the first ``MAX_OCCURRENCES`` of each (``verdict_occurrences``).
        """
        occurrences = self.occurrences
        if counts is not None and not occurrences:
            # The first rules counted (a file's only region, most often): each has room for
            # the ``MAX_OCCURRENCES`` listed.
            dict.update(occurrences, counts)
            return matches
        listed = Counter(map(_RULE_ID, matches))
        if counts is None:
            counts = listed
        left = {rule_id: MAX_OCCURRENCES - occurrences[rule_id] for rule_id in counts}
        occurrences.update(counts)
        if all(left[rule_id] >= count for rule_id, count in listed.items()):
            return matches  # the common case: room for every one listed
        return list(self._still_listed(matches, left))

    @staticmethod
    def _still_listed(matches: Sequence[RuntimeMatch], left: dict[str, int]) -> Iterator[RuntimeMatch]:
        open_rules = sum(1 for room in left.values() if room > 0)
        for match in matches:
            if not open_rules:
                return
            room = left[match.rule_id]
            if room > 0:
                left[match.rule_id] = room - 1
                if room == 1:
                    open_rules -= 1
                yield match

    def build(self, drafts: Sequence[_Draft]) -> list[Finding]:
        """The findings of ``drafts``, located and shown in one pass over the text."""
        if len(drafts) <= _MANY_OBJECTS:  # (most files: no context manager's frames)
            return self._build(drafts)
        with collector_paused():
            return self._build(drafts)

    def _build(self, drafts: Sequence[_Draft]) -> list[Finding]:
        text, display = self.text, self.display
        locations, shown = self._shown([draft.span for draft in drafts])
        if len(drafts) > _MANY_OBJECTS:
            alike = self._alike_findings(drafts, locations, shown)
            if alike is not None:
                return alike
        # (one turn a listed occurrence, thousands in a file of hidden characters: the
        # helpers are inlined, a short matched text's digest and snippet are worked out once
        # a text, and a finding like one built before takes that one's fields and sets its
        # own span, location, snippet and extra: a dict update, not 14 named arguments)
        identities: dict[str, tuple[str, str]] = {}
        like: dict[tuple[int, str, str, str | None, bool], dict[str, Any]] = {}
        findings: list[Finding] = []
        append = findings.append
        last_region: Region | None = None
        low, high = 1, 0  # the last region's scanned span
        visible_spans: tuple[Span, ...] = ()  # and the spans of it that reach the model
        for draft, location, excerpt in zip(drafts, locations, shown, strict=True):
            region, facts, origin, span, effect, decoded, detail = draft
            start, end = span
            if region is not last_region:
                last_region, window, visible_spans = region, region.scanned, region.visible
                low, high = (window.start, window.end) if window is not None else (1, 0)
            scanned = low <= start and end <= high  # (never with no window: 1 > 0)
            # Whether the span overlaps a visible one (an empty span: lies inside one). None
            # of a blocked unit reaches the model: every runtime-profile finding.
            reaches_model = False
            for visible_start, visible_end in visible_spans:  # (written out: one a finding)
                if (visible_start <= start < visible_end if start == end
                        else start < visible_end and visible_start < end):
                    reaches_model = True
                    break
            matched = text[start:end]
            identity = identities.get(matched)  # (only short ones are kept)
            if identity is None:
                identity = _identity(matched)
                if len(matched) <= 64:
                    identities[matched] = identity
            before, match, after = excerpt
            extra = {
                # Identity of the matched content for suppressions and baselines (soulscan.suppress).
                "sha256": identity[0],
                "runtime_scanned": "true" if scanned else "false",
                "reaches_model": "true" if reaches_model else "false",
                "excerpt_before": before,
                "excerpt_match": match,
                "excerpt_after": after,
            }
            if detail:
                extra["detail"] = _safe(str(detail))
            kind = (id(facts), origin, effect, decoded, scanned and reaches_model)
            fields = like.get(kind)
            if fields is None:
                finding = new_finding(
                    facts.id, facts.severity, facts.confidence, facts.scope, facts.message,
                    display, span, location, identity[1], origin, scanned and reaches_model,
                    effect, None if decoded is None else _safe(decoded), extra,
                )
                like[kind] = vars(finding)
            else:
                finding = _like(fields, span, location, identity[1], extra)
            append(finding)
        return findings


    def _alike_findings(self, drafts: Sequence[_Draft], locations: Sequence[Location],
                        shown: Sequence[Excerpt]) -> list[Finding] | None:
        """``_build`` of many drafts alike in all but their spans, all inside their region's
        scanned window, in a region none of which reaches the model (a file of hidden
        characters: a thousand joiners of one blocked window); None for drafts that are
        not. As in ``_build``, the first is built in full and the others take its fields
        and set their own span, location, snippet and extra: here without the per-draft
        checks of region, kind and visibility, answered once for all of them."""
        first = drafts[0]
        shared = _SHARED_BY_DRAFTS(first)
        if not all(map(shared.__eq__, map(_SHARED_BY_DRAFTS, drafts))):
            return None
        return self._alike_built(first, list(map(_DRAFT_SPAN, drafts)), locations, shown)

    def build_alike(self, first: _Draft, spans: list[Span]) -> list[Finding] | None:
        """``build`` of more than ``_MANY_OBJECTS`` drafts that are ``first`` but for their
        ``spans`` (in text order), without the drafts; None where ``_alike_findings`` would
        not build them (the caller builds them one by one)."""
        return self._alike_built(first, spans, *self._shown(spans))

    def _shown(self, spans: Sequence[Span]) -> tuple[list[Location], list[Excerpt]]:
        """The location and excerpt of each span, in one pass over the text."""
        text = self.text
        index = LineIndex.of(text)
        locations = index.locations(spans)
        return locations, FileExcerpts(text, index).excerpts(locations)

    def _alike_built(self, first: _Draft, spans: list[Span], locations: Sequence[Location],
                     shown: Sequence[Excerpt]) -> list[Finding] | None:
        """The findings of drafts that are ``first`` but for their ``spans``, when they are
        all inside the region's scanned window and none of the region reaches the model."""
        region, facts, origin, _, effect, decoded, detail = first
        window = region.scanned
        if (detail or region.visible or window is None
                or not (window.start <= min(map(_SPAN_START, spans))
                        and max(map(_SPAN_END, spans)) <= window.end)):
            return None
        text = self.text
        identities: dict[str, tuple[str, str]] = {}  # (a matched text's, for its excerpts)
        findings: list[Finding] = []
        append = findings.append
        fields: dict[str, Any] | None = None
        for span, location, (before, match, after) in zip(spans, locations, shown, strict=True):
            matched = text[span[0]:span[1]]
            identity = identities.get(matched)  # (a file of hidden characters lists one)
            if identity is None:
                identity = identities[matched] = _identity(matched)
            # (scanned, and reaching no model)
            extra = {"sha256": identity[0], "runtime_scanned": "true", "reaches_model": "false",
                     "excerpt_before": before, "excerpt_match": match, "excerpt_after": after}
            if fields is None:
                finding = new_finding(
                    facts.id, facts.severity, facts.confidence, facts.scope, facts.message,
                    self.display, span, location, identity[1], origin, False,
                    effect, None if decoded is None else _safe(decoded), extra,
                )
                fields = vars(finding)
            else:  # (``_like`` written out: a thousand of them)
                finding = _object_new(Finding)
                own = finding.__dict__
                own.update(fields)
                own["span"], own["location"], own["snippet"], own["extra"] = span, location, identity[1], extra
            append(finding)
        return findings


def _identity(matched: str) -> tuple[str, str]:
    """A matched text's digest (``extra["sha256"]``) and its snippet."""
    return (_short_digest(matched) if len(matched) <= 64 else _sha256(matched),
            _safe_prefix(matched[:_SAFE_PREFIX]))


def _like(fields: dict[str, Any], span: Span, location: Location, snippet: str,
          extra: dict[str, str]) -> Finding:
    """A finding with the ``fields`` of one built before but its own span, location,
    snippet and extra: a dict update, not 14 named arguments."""
    finding: Finding = _object_new(Finding)
    own = vars(finding)
    own.update(fields)
    own["span"], own["location"], own["snippet"], own["extra"] = span, location, snippet, extra
    return finding


_SHARED_BY_DRAFTS = operator.itemgetter(0, 1, 2, 4, 5, 6)  # a _Draft but its span
_DRAFT_SPAN = operator.itemgetter(3)
_SPAN_START, _SPAN_END = operator.itemgetter(0), operator.itemgetter(1)


def _runtime_findings(
    context: _FileContext, region: Region, text: str, verdict: Sequence[str] | None = None
) -> list[_Draft]:
    """Occurrences of the runtime's rules in ``text``, a prefix of the region's text
    (``verdict``: the runtime's ids for exactly this text, see ``runtime_matches``)."""
    if not text:
        return []
    if verdict is None:
        matches = context.admit_all(runtime_matches(text, region.scope))
    else:
        listed, counts = verdict_occurrences(text, region.scope, verdict, MAX_OCCURRENCES)
        matches = context.admit_all(listed, counts)
    if len(matches) <= _MANY_OBJECTS:
        return _drafts_one_by_one(region, text, matches)
    with collector_paused():
        return _runtime_drafts(region, text, matches)


def _one_hidden_character(context: _FileContext, region: Region) -> list[Finding] | None:
    """The runtime-profile findings of a file's one region when the runtime blocks it for
    one hidden character alone, listed more than ``_MANY_OBJECTS`` times (a file of emoji
    sequences: a thousand joiners), as ``_runtime_findings`` and ``build`` make them (its
    first places, ``verdict_occurrences``; drafts alike but for their spans,
    ``_alike_drafts``; built alike, ``_alike_findings``), without a match and a draft a
    place. None for any other region."""
    char = hidden_char(region.ids[0]) if len(region.ids) == 1 else None
    if char is None:
        return None
    # (the region's scan window, read in its text; empty unless the runtime flagged it)
    places, count = hidden_places(region.text, char, MAX_OCCURRENCES, _runtime_window_end(region))
    if len(places) <= _MANY_OBJECTS:
        return None
    offset, repeat = region.offset, itertools.repeat
    starts = list(map(offset.__add__, places)) if offset else places
    facts = invisible_facts(region.ids[0], char, region.scope)
    built = _one_line_findings(context, region, facts, starts)
    if built is None:
        spans = list(map(_new, repeat(Span), zip(starts, map((1).__add__, starts))))
        # (inside the window, and the verdict's: the region's effect)
        first = _new(_Draft, (region, facts, ORIGIN_RUNTIME, spans[0], region.effect, None, None))
        built = context.build_alike(first, spans)
    if built is not None:  # (the file's only region: each rule has room for all it lists)
        context.occurrences[region.ids[0]] = count
    return built


def _one_line_findings(context: _FileContext, region: Region, facts: RuleFacts,
                       starts: list[int]) -> list[Finding] | None:
    """``build_alike`` of one hidden character's places at ``starts`` (inside the region's
    scanned window, which reaches no model) when they lie on one long line whose excerpts
    ``one_line_character_pieces`` answers: each finding built in one turn from its place
    and its pieces, without a location, an excerpt or a draft an object first. None where
    it does not answer, or for a region that reaches the model."""
    window = region.scanned
    if region.visible or window is None or not window.start <= starts[0] <= starts[-1] < window.end:
        return None
    text = context.text
    # (the characters of the window the runtime's scan has just read, when this is its text)
    scanned = last_window()
    known = (KnownCharacters(scanned[1], region.offset, region.offset + len(scanned[0]))
             if scanned is not None and text.startswith(scanned[0], region.offset) else None)
    shown = one_line_character_pieces(text, starts, known)
    if shown is None:
        return None
    line, line_start, (befores, match, afters) = shown
    digest, snippet = _identity(text[starts[0]])
    column_of = 1 - line_start  # (a place's column, less its offset)
    # (scanned, and reaching no model; the first finding built in full, the others take
    # its fields and set their own span, location and extra)
    start, column = starts[0], starts[0] + column_of
    finding = new_finding(
        facts.id, facts.severity, facts.confidence, facts.scope, facts.message,
        context.display, _new(Span, (start, start + 1)), _new(Location, (line, column, line, column + 1)),
        snippet, ORIGIN_RUNTIME, False, region.effect, None,
        {"sha256": digest, "runtime_scanned": "true", "reaches_model": "false",
         "excerpt_before": befores[0], "excerpt_match": match, "excerpt_after": afters[0]})
    fields = vars(finding)
    findings = [finding]
    append = findings.append
    rows = zip(starts, befores, afters)
    next(rows)
    for start, before, after in rows:  # (one turn a finding, a thousand in a file)
        finding = _object_new(Finding)
        own = finding.__dict__
        own.update(fields)
        column = start + column_of
        own["span"] = _new(Span, (start, start + 1))
        own["location"] = _new(Location, (line, column, line, column + 1))
        own["extra"] = {
            "sha256": digest, "runtime_scanned": "true", "reaches_model": "false",
            "excerpt_before": before, "excerpt_match": match, "excerpt_after": after}
        append(finding)
    return findings


def _runtime_drafts(region: Region, text: str, matches: Sequence[RuntimeMatch]) -> list[_Draft]:
    """The drafts of more than ``_MANY_OBJECTS`` occurrences: alike when they are."""
    alike = _alike_drafts(region, text, matches)
    return _drafts_one_by_one(region, text, matches) if alike is None else alike


def _alike_drafts(region: Region, text: str, matches: Sequence[RuntimeMatch]) -> list[_Draft] | None:
    """``_drafts_one_by_one`` of many occurrences all inside the window (a file of hidden
    characters: a thousand joiners, or hidden bits written with two or three of them),
    built column by column in C; None for occurrences that are not."""
    offset, window = region.offset, region.scanned
    starts = list(map(_MATCH_START, matches))
    ends = list(map(_MATCH_END, matches))
    if offset:
        starts, ends = list(map(offset.__add__, starts)), list(map(offset.__add__, ends))
    if window is None or not (window.start <= min(starts) and max(ends) <= window.end):
        return None
    rule_ids = list(map(_RULE_ID, matches))
    # (each rule's facts from its first occurrence, as one by one: the first of each id is
    # the one a reversed dict display keeps)
    firsts = dict(zip(reversed(rule_ids), reversed(matches)))
    facts_of = {
        rule_id: invisible_facts(rule_id, text[first_start], region.scope)
        if rule is None else RuleFacts.of(rule)
        for rule_id, (_, rule, first_start, _) in firsts.items()
    }
    effect_of = {rule_id: region.effect if rule_id in region.ids else EFFECT_NONE
                 for rule_id in firsts}
    repeat = itertools.repeat
    spans = map(_new, repeat(Span), zip(starts, ends))
    return list(map(_new, repeat(_Draft), zip(
        repeat(region), map(facts_of.__getitem__, rule_ids), repeat(ORIGIN_RUNTIME), spans,
        map(effect_of.__getitem__, rule_ids), repeat(None), repeat(None))))


def _drafts_one_by_one(region: Region, text: str, matches: Sequence[RuntimeMatch]) -> list[_Draft]:
    facts_of: dict[str, RuleFacts] = {}  # one rule (or hidden character) a rule id
    offset, window, ids, effect = region.offset, region.scanned, region.ids, region.effect
    low, high = (window.start, window.end) if window is not None else (1, 0)
    drafts: list[_Draft] = []
    append = drafts.append
    for rule_id, rule, match_start, match_end in matches:
        start, end = offset + match_start, offset + match_end
        facts = facts_of.get(rule_id)
        if facts is None:
            facts = facts_of[rule_id] = (
                invisible_facts(rule_id, text[match_start], region.scope)
                if rule is None else RuleFacts.of(rule)
            )
        # Only an occurrence the runtime saw inside its window contributed to the block.
        counted = low <= start and end <= high and rule_id in ids
        # (one a listed occurrence, thousands in a file of hidden characters: the named
        # tuples are built without their Python-level ``__new__``)
        append(_new(_Draft, (region, facts, ORIGIN_RUNTIME, _new(Span, (start, end)),
                             effect if counted else EFFECT_NONE, None, None)))
    return drafts


# Past this many findings (or occurrences) of a file, they are built with the cycle
# collector paused.
_MANY_OBJECTS = 256


def _runtime_flagged(region: Region) -> bool:
    """The runtime scanned this region and found something in its window. Otherwise its
    window holds no occurrence of the runtime's rules: the same rules over the same text."""
    return bool(region.ids) and region.scanned is not None


def _runtime_window_end(region: Region) -> int:
    """Where ``_runtime_window`` ends in the region's text."""
    if not _runtime_flagged(region):
        return 0
    assert region.scanned is not None and region.scanned.start == region.offset
    return region.scanned.end - region.offset


def _runtime_window(region: Region) -> str:
    """What the runtime profile reads of a region: the text the runtime's own scan read
    (``text[:MAX_SCAN_CHARS]``, the region's scanned span; it starts where the text does),
    or nothing when that scan found nothing or never ran (a ``[BLOCKED:`` memory entry,
    a repeated one)."""
    return region.text[: _runtime_window_end(region)]


def _runtime_cleared(region: Region) -> bool:
    """The runtime scanned all of this text, with these very rules, and found nothing:
    locating occurrences would find none either (the common case, and most of the
    per-file cost of a scan)."""
    return (not region.ids and region.scanned is not None
            and region.scanned.start <= region.offset
            and region.offset + len(region.text) <= region.scanned.end)


def _hardened_findings(
    context: _FileContext, document: RuntimeDocument, region: Region
) -> Iterator[_Draft]:
    analyze = _hardened_analyzer()
    if analyze is None:
        return
    offset = region.offset
    for match in analyze(region.text, kind=document.kind, runtime=document):
        if not context.admit(match.rule.id):
            continue
        span = _new(Span, (offset + match.start, offset + match.end))
        yield _new(_Draft, (region, RuleFacts.of(match.rule), ORIGIN_HARDENED, span, EFFECT_NONE,
                            match.decoded, match.detail))


def _project_pack_findings(
    context: _FileContext, document: RuntimeDocument, region: Region, packs: tuple[str, ...]
) -> Iterator[_Draft]:
    """Findings of the project's own rule packs (config ``rule-packs``): not the runtime's."""
    for rule, start, end in extra_matches(region.text, document.kind, packs):
        if not context.admit(rule.id):
            continue
        span = Span(region.offset + start, region.offset + end)
        yield _Draft(region, RuleFacts.of(rule), ORIGIN_HARDENED, span, EFFECT_NONE)


def snippet_of(matched: str) -> str:
    """The matched text as it may be shown: secrets redacted, escaped, bounded."""
    return _safe(matched)


def _safe(text: str) -> str:
    # Redact a bounded prefix: the margin keeps a secret at the cut whole for the redactor.
    return _safe_prefix(text[:_SAFE_PREFIX])


_SAFE_PREFIX = SNIPPET_LIMIT + REDACTION_MARGIN


def _sha256(matched: str) -> str:
    return hashlib.sha256(matched.encode("utf-8", "surrogatepass")).hexdigest()


# Short matches recur (each hidden character) and are remembered; long ones are not kept
# alive by the cache.
_short_digest = functools.lru_cache(maxsize=1024)(_sha256)


@functools.lru_cache(maxsize=1024)
def _safe_prefix(prefix: str) -> str:
    return escape_bounded(redact(prefix), SNIPPET_LIMIT)


@functools.cache  # (asked for every region scanned: an import statement each time costs)
def _hardened_analyzer() -> Callable[..., Any] | None:
    try:
        from soulscan.hardened.analyze import analyze
    except ImportError:
        return None
    return analyze
