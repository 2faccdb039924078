"""Audit items → ``FileResult``s, so every reporter (text, json, sarif, github) shows them.

An ``AuditItem`` is one piece of text of a Hermes home that can reach the model (a
config value, a prefill turn, a cron prompt, a stored system prompt, ...) with the
runtime's verdict on it. ``item_result`` adds the hardened findings (every hardened
rule, via ``soulscan.hardened.analyze``) to the item's own hits (the runtime's pattern
ids where the runtime scans, and the structural findings of the surfaces pack), each
located in the file the text came from.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

from soulscan.audit.source import SourceText
from soulscan.engine.rulepack import Rule, builtin_packs
from soulscan.findings import RuleFacts
from soulscan.hardened.analyze import analyze
from soulscan.hardened.secrets import redact
from soulscan.models import (
    EFFECT_NONE,
    ORIGIN_HARDENED,
    ORIGIN_RUNTIME,
    FileResult,
    Finding,
    RuntimeSummary,
    Span,
)
from soulscan.pipeline import snippet_of
from soulscan.report.excerpt import excerpt
from soulscan.textpos import LineIndex

SURFACES_PACK = "soulscan-hardened-surfaces"
NOT_SCANNED = "not scanned by Hermes"


# One description of a rule for every finding, the audit's included.
Facts = RuleFacts


@dataclass(frozen=True)
class Hit:
    """A finding before it is tied to a file: a span of the item's text."""

    facts: Facts
    origin: str
    start: int
    end: int
    effect: str = EFFECT_NONE
    detail: str | None = None
    # Offsets into the item's whole file instead (a structural finding located by its
    # rule's pattern in the raw file, e.g. a prefill turn's role).
    file_span: tuple[int, int] | None = None


@dataclass(frozen=True)
class AuditItem:
    path: str  # the file, as shown
    kind: str  # the surface (FileResult.kind)
    key: str  # where inside the file ("" for the whole file)
    source: SourceText | None  # the text that reaches the model; None when there is none
    runtime: RuntimeSummary
    analyze_kind: str | None = "payload"  # the hardened analysis' view; None: no analysis
    hits: tuple[Hit, ...] = ()
    scanned: bool = False  # the runtime scans this text before it reaches the model
    reaches_model: bool = True


@functools.cache
def surface_rule(rule_id: str) -> Rule:
    for pack in builtin_packs():
        if pack.id == SURFACES_PACK:
            return pack.rule(rule_id)
    raise LookupError(f"built-in rule pack {SURFACES_PACK!r} is missing")


def unscanned(where: str, chars: int, *, action: str = "load") -> RuntimeSummary:
    """The verdict for text the runtime injects without any scan."""
    return RuntimeSummary(action, (), chars, chars if action == "load" else 0,
                          detail=f"{NOT_SCANNED}; {where}")


def item_result(item: AuditItem, profile: str) -> FileResult:
    findings: list[Finding] = []
    text = item.source.text if item.source is not None else ""
    index = LineIndex.of(text)
    runtime = [h for h in item.hits if h.origin == ORIGIN_RUNTIME]
    structural = [h for h in item.hits if h.origin != ORIGIN_RUNTIME]
    if profile in ("runtime", "all"):
        findings.extend(_finding(item, index, hit) for hit in runtime)
    if profile in ("hardened", "all"):
        findings.extend(_finding(item, index, hit) for hit in structural)
        if item.source is not None and item.analyze_kind is not None and text.strip():
            for match in analyze(text, kind=item.analyze_kind):
                if profile == "all" and match.decoded is None and any(
                        h.start <= match.start and match.end <= h.end for h in runtime):
                    continue  # a hardened match inside a runtime hit adds nothing
                hit = Hit(Facts.of(match.rule), ORIGIN_HARDENED, match.start, match.end,
                          detail=match.detail)
                findings.append(_finding(item, index, hit, decoded=match.decoded))
    findings.sort(key=lambda f: (f.location.line, f.location.column, f.origin != ORIGIN_RUNTIME,
                                 f.rule_id))
    return FileResult(item.path, item.kind, item.runtime, tuple(findings))


def _finding(item: AuditItem, index: LineIndex, hit: Hit, *, decoded: str | None = None) -> Finding:
    source = item.source or SourceText.detached("")
    if hit.file_span is not None and source.file_text is not None:
        index = source.file_index()
        start, end = hit.file_span
        location = index.location(start, end)
    else:
        start, end = hit.start, hit.end
        location = source.location(start, end)
    where = index.location(start, end)
    line = index.line_text(where.line)
    end_in_line = where.end_column - 1 if where.end_line == where.line else len(line)
    shown = excerpt(line, where.column - 1, end_in_line, redact)
    matched = index.text[start:end]
    extra = {
        "sha256": hashlib.sha256(matched.encode("utf-8", "surrogatepass")).hexdigest(),
        "runtime_scanned": str(item.scanned).lower(),
        "reaches_model": str(item.reaches_model).lower(),
        "excerpt_before": shown.before,
        "excerpt_match": shown.match,
        "excerpt_after": shown.after,
    }
    if item.key:
        extra["key"] = snippet_of(item.key)
    if hit.detail:
        extra["detail"] = snippet_of(hit.detail)
    message = hit.facts.message + (f" [{snippet_of(item.key)}]" if item.key else "")
    return Finding(
        rule_id=hit.facts.id,
        severity=hit.facts.severity,
        confidence=hit.facts.confidence,
        scope=hit.facts.scope,
        message=message,
        path=item.path,
        span=Span(start, end),
        location=location,
        snippet=snippet_of(matched),
        origin=hit.origin,
        runtime_visible=item.scanned and item.reaches_model,
        runtime_effect=hit.effect,
        decoded=None if decoded is None else snippet_of(decoded),
        extra=extra,
    )
