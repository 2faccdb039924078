"""The hardened verdict: every hardened rule over the views of one text, spans in original offsets.

Smuggled and encoded payloads (tag characters, variation selectors, hidden bit runs, base64,
hex, ...) are decoded and the decoded text is scanned again by every rule; a hit there is
reported on the span of the encoded run, with the decoded text attached.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from soulscan.engine.rulepack import FILE_KINDS, Rule
from soulscan.engine.text_memos import text_memo
from soulscan.hardened.decode import decode_blobs
from soulscan.hardened.frontmatter_view import frontmatter_span
from soulscan.hardened.quoted import QuotedRegions
from soulscan.hardened.runtime_aware import HINT_MAX_CHARS, unscanned_start
from soulscan.hardened.secrets import find_secrets
from soulscan.hardened.unicode import analyse_unicode
from soulscan.hardened.view_rules import ViewRules, applies, hardened_rules
from soulscan.hardened.views import VIEW_NAMES, Views
from soulscan.hermes.memory_format import ENTRY_DELIMITER
from soulscan.hermes.scanner import MAX_SCAN_CHARS

if TYPE_CHECKING:
    from soulscan.hermes.documents import RuntimeDocument

MAX_DECODE_DEPTH = 2
# The pipeline passes soul|hermes|agents|claude|cursorrules|mdc|memory|user|skill|payload;
# any kind a rule pack may name (config, cron, prefill, ...) is accepted too.
KINDS = FILE_KINDS


@dataclass(frozen=True)
class HardenedMatch:
    """One hardened rule's match, as offsets into the original text."""
    rule: Rule  # soulscan.engine.rulepack.Rule (id, name, severity, confidence, message…)
    start: int  # code-point offsets into the ORIGINAL text passed in
    end: int
    decoded: str | None = None  # decoded smuggled/encoded payload, if any
    detail: str | None = None


@dataclass(frozen=True)
class _Payload:
    """A decoded or revealed stretch of text, at its span in the original."""
    start: int
    end: int
    text: str
    how: str


@functools.cache
def rules_for_kind(kind: str) -> tuple[Rule, ...]:
    """The rules a file of `kind` is analysed with, in pack order (quoted injections are
    worked out from the other findings)."""
    return tuple(
        rule for rule in hardened_rules() if applies(rule, kind) and rule.view != "quoted-injection"
    )


ANALYSED_VIEWS = ("unicode", "secrets", "encoded")


@dataclass(frozen=True)
class _KindPlan:
    """Where each rule of a kind stands, so a text walks only the rules that can match."""

    rules: tuple[Rule, ...]  # rules_for_kind(kind)
    index: dict[str, int]  # rule id -> its place in `rules`
    # the text views with rules, in the order of their first rules: a view's anchors found by a
    # lookup shared with the views after it (ViewRules.present) are found in the same order
    text_views: tuple[str, ...]
    # (place of an analysis view in ANALYSED_VIEWS, its rules): none match if it found nothing
    analysed: tuple[tuple[int, tuple[int, ...]], ...]
    always: tuple[int, ...]  # rules of the runtime-aware views: each looks at the text itself


@functools.cache
def _plan(kind: str) -> _KindPlan:
    rules = rules_for_kind(kind)
    analysed: dict[str, list[int]] = {}
    for index, rule in enumerate(rules):
        if rule.view in ANALYSED_VIEWS:
            analysed.setdefault(rule.view, []).append(index)
    return _KindPlan(
        rules,
        {rule.id: index for index, rule in enumerate(rules)},
        tuple(dict.fromkeys(rule.view for rule in rules if rule.view in VIEW_NAMES)),
        tuple((ANALYSED_VIEWS.index(view), tuple(indexes)) for view, indexes in analysed.items()),
        tuple(
            index
            for index, rule in enumerate(rules)
            if rule.view not in VIEW_NAMES and rule.view not in ANALYSED_VIEWS
        ),
    )


# (a rule's pattern, label) -> does the pattern find the label: a few dozen labels (issue
# kinds, secret names, encodings) each asked of the same rules in text after text
_LABELLED: dict[tuple[str, int, str], bool] = {}


def _labelled(rule: Rule, label: str) -> bool:
    key = (rule.regex_source, rule.regex_flags, label)
    found = _LABELLED.get(key)
    if found is None:
        if len(_LABELLED) >= 4096:  # labels carry no text, but bound the memo all the same
            _LABELLED.clear()
        found = _LABELLED[key] = rule.compiled.search(label) is not None
    return found


def _text_matches(rule: Rule, views: Views, spans: list[tuple[int, int]]) -> list[HardenedMatch]:
    view = views.get(rule.view)
    found = []
    for a, b in spans:
        while a < b and view.text[a] == " " and rule.view == "words":
            a += 1
        while b > a and view.text[b - 1] == " " and rule.view == "words":
            b -= 1
        start, end = view.span(a, b)
        found.append(HardenedMatch(rule, start, max(end, start)))
    return found


def _memory_tails(text: str) -> list[tuple[int, int]]:
    """Spans of memory entries past each entry's own scan window (W1e)."""
    spans, position = [], 0
    for entry in text.split(ENTRY_DELIMITER):
        if len(entry) > MAX_SCAN_CHARS and entry[MAX_SCAN_CHARS:].strip():
            spans.append((position + MAX_SCAN_CHARS, position + len(entry)))
        position += len(entry) + len(ENTRY_DELIMITER)
    return spans


def _unscanned_visible(runtime: RuntimeDocument) -> list[tuple[int, int]]:
    """File ranges the runtime loads into the prompt without having scanned them."""
    spans = []
    for region in runtime.regions:
        scanned = region.scanned
        for span in region.visible:
            if scanned is not None and scanned.start <= span.start and span.end <= scanned.end:
                continue  # scanned whole (a file loaded whole): no piece is left
            pieces = [(span.start, span.end)]
            if scanned is not None:
                pieces = [
                    (a, b)
                    for a, b in (
                        (span.start, min(span.end, scanned.start)),
                        (max(span.start, scanned.end), span.end),
                    )
                    if b > a
                ]
            spans.extend(pieces)
    return spans


def _runtime_matches(
    rule: Rule, text: str, kind: str, runtime: RuntimeDocument | None
) -> list[HardenedMatch]:
    if rule.view == "beyond-scan-window" and runtime is not None and runtime.text == text:
        return [
            HardenedMatch(rule, a, b, detail=f"{b - a} chars loaded unscanned")
            for a, b in _unscanned_visible(runtime)
            if text[a:b].strip()
        ]
    if rule.view == "beyond-scan-window":
        if kind in ("memory", "user"):
            return [
                HardenedMatch(rule, a, b, detail="memory entry past its scan window")
                for a, b in _memory_tails(text)
            ]
        if len(text) > MAX_SCAN_CHARS and text[MAX_SCAN_CHARS:].strip():
            return [
                HardenedMatch(
                    rule,
                    MAX_SCAN_CHARS,
                    len(text),
                    detail=f"{len(text) - MAX_SCAN_CHARS} chars unscanned",
                )
            ]
        return []
    if rule.view == "beyond-hint-cut":
        if len(text) > HINT_MAX_CHARS and text[HINT_MAX_CHARS:].strip():
            return [
                HardenedMatch(
                    rule,
                    HINT_MAX_CHARS,
                    len(text),
                    detail=f"{len(text) - HINT_MAX_CHARS} chars dropped",
                )
            ]
        return []
    if rule.view == "frontmatter":
        span = frontmatter_span(text)
        if span and rule.compiled.search(text[span[0] : span[1]]):
            return [HardenedMatch(rule, span[0], span[1])]
    return []


class _Analysis:
    def __init__(
        self, text: str, kind: str, depth: int, runtime: RuntimeDocument | None = None
    ) -> None:
        self.text = text
        self.kind = kind
        self.depth = depth
        self.runtime = runtime
        self.views = Views(text)
        self.issues = analyse_unicode(text, self.views.characters)
        self.blobs = decode_blobs(text) if depth < MAX_DECODE_DEPTH else []
        self.secrets = find_secrets(text)
        self.view_rules = ViewRules(self.views, kind)

    def payloads(self) -> list[_Payload]:
        found = [_Payload(i.start, i.end, i.decoded, i.kind) for i in self.issues if i.decoded]
        found += [_Payload(b.start, b.end, b.text, b.encoding) for b in self.blobs]
        return found

    def rule_matches(self, rule: Rule) -> list[HardenedMatch]:
        if rule.view in VIEW_NAMES:
            spans = self.view_rules.spans(rule)  # most live rules' searches find nothing
            return _text_matches(rule, self.views, spans) if spans else []
        if rule.view == "unicode":
            return [
                HardenedMatch(rule, i.start, i.end, decoded=i.decoded, detail=i.detail)
                for i in self.issues
                if _labelled(rule, i.kind)
            ]
        if rule.view == "secrets":
            return [
                HardenedMatch(rule, h.start, h.end, detail=h.name)
                for h in self.secrets
                if _labelled(rule, h.name)
            ]
        if rule.view == "encoded":
            return [
                HardenedMatch(rule, b.start, b.end, decoded=b.text, detail=b.encoding)
                for b in self.blobs
                if _labelled(rule, b.label)
            ]
        return _runtime_matches(rule, self.text, self.kind, self.runtime)

    def candidates(self) -> list[Rule]:
        """The rules of the kind that can match, in pack order: each text view's live rules
        (the gate's answer for the whole view), the rules of an analysis that found
        something, and every other rule."""
        plan = _plan(self.kind)
        chosen = list(plan.always)
        place, live = plan.index.__getitem__, self.view_rules.live
        for view in plan.text_views:
            chosen += map(place, live(view))
        found = (self.issues, self.secrets, self.blobs)  # in ANALYSED_VIEWS' order
        for number, indexes in plan.analysed:
            if found[number]:
                chosen += indexes
        chosen.sort()
        return list(map(plan.rules.__getitem__, chosen))

    def own_matches(self) -> list[HardenedMatch]:
        """The matches of the rules on this text itself, in pack order."""
        matches: list[HardenedMatch] = []
        for rule in self.candidates():
            matches.extend(self.rule_matches(rule))
        return matches

    def run(self) -> list[HardenedMatch]:
        matches = self.own_matches()
        if self.depth < MAX_DECODE_DEPTH:
            for payload in self.payloads():
                inner = _payload_matches(type(self), payload.text, self.depth + 1)
                for match in inner:
                    if match.rule.view in ("encoded", "unicode"):
                        continue
                    matches.append(
                        HardenedMatch(
                            match.rule,
                            payload.start,
                            payload.end,
                            decoded=payload.text,
                            detail=f"inside decoded {payload.how} payload",
                        )
                    )
        return matches


# A decoded payload's own matches depend on its text and depth alone, and the same payload
# recurs (one hidden sentence in many files, a probe's encoded string in many items): those of
# a short payload are kept.
PAYLOAD_MEMO_CHARS = 4096
PAYLOAD_MEMO_SIZE = 512


def _payload_matches(
    analysis: type[_Analysis], text: str, depth: int
) -> tuple[HardenedMatch, ...]:
    """The matches of `analysis` of a payload (a variant of it, as the tests' ungated one,
    is never remembered)."""
    if analysis is not _Analysis or len(text) > PAYLOAD_MEMO_CHARS:
        return tuple(analysis(text, "payload", depth).run())
    return _remembered_payload_matches(text, depth)


@text_memo(maxsize=PAYLOAD_MEMO_SIZE)
def _remembered_payload_matches(text: str, depth: int) -> tuple[HardenedMatch, ...]:
    return tuple(_Analysis(text, "payload", depth).run())


QUOTED_RULE_ID = "SS100"


def _rule_by_id(rule_id: str) -> Rule:
    return next(rule for rule in hardened_rules() if rule.id == rule_id)


def _demote_quoted(text: str, matches: list[HardenedMatch]) -> list[HardenedMatch]:
    """Injection phrases wholly inside code or a quotation become SS100 (quoted as an example)."""
    candidates = [m for m in matches if m.rule.id.startswith("SS1") and m.decoded is None]
    if not candidates:
        return matches
    regions = QuotedRegions(text)
    quoted_rule = _rule_by_id(QUOTED_RULE_ID)
    result = []
    candidate_ids = {id(match) for match in candidates}  # `in` a list compares field by field
    for match in matches:
        if id(match) in candidate_ids and regions.contains(match.start, match.end):
            match = HardenedMatch(
                quoted_rule,
                match.start,
                match.end,
                None,
                f"{match.rule.id} {match.rule.name}, quoted as an example",
            )
        result.append(match)
    return result


def _drop_hidden_markup_in_code(text: str, matches: list[HardenedMatch]) -> list[HardenedMatch]:
    """Hidden-content markup (SS5xx) inside a code block or inline code is shown verbatim, not hidden."""
    if not any(m.rule.id.startswith("SS5") for m in matches):
        return matches
    code = QuotedRegions(text, code_only=True)
    return [
        m for m in matches if not (m.rule.id.startswith("SS5") and code.contains(m.start, m.end))
    ]


def _mark_unscanned(matches: list[HardenedMatch], kind: str) -> list[HardenedMatch]:
    if not matches:  # most files
        return matches
    limit = unscanned_start(kind)
    if limit is None:
        return matches
    marked = []
    for match in matches:
        if match.end > limit and match.rule.view != "beyond-scan-window":
            note = "past the runtime's 65,536-char scan window"
            detail = f"{match.detail}; {note}" if match.detail else note
            match = HardenedMatch(match.rule, match.start, match.end, match.decoded, detail)
        marked.append(match)
    return marked


def _dedupe(matches: list[HardenedMatch]) -> list[HardenedMatch]:
    if len(matches) < 2:  # most files: nothing to sort or repeat
        return list(matches)
    seen: set[tuple[str, int, int]] = set()
    unique = []
    for match in sorted(matches, key=lambda m: (m.start, m.end, m.rule.id)):
        key = (match.rule.id, match.start, match.end)
        if key not in seen:
            seen.add(key)
            unique.append(match)
    return unique


def analyze(text: str, *, kind: str, runtime: RuntimeDocument | None = None) -> list[HardenedMatch]:
    """Every hardened finding for `text` read as a file of `kind`, sorted by position.

    `runtime` (soulscan.hermes.documents.RuntimeDocument of the same text) makes SS701 exact:
    it then reports the ranges the runtime loads without scanning them. Without it SS701
    assumes the worst case (a large context window loads everything past the scan window).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown file kind {kind!r} (known: {', '.join(sorted(KINDS))})")
    matches = _Analysis(text, kind, 0, runtime).run()
    matches = _drop_hidden_markup_in_code(text, _demote_quoted(text, matches))
    return _dedupe(_mark_unscanned(matches, kind))
