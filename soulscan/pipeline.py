"""discover → load as the runtime would → match rules → findings, one ``FileResult`` a file.

The runtime verdict (load / block / truncate / skip and the ids Hermes prints) comes from
``soulscan.hermes.documents.load_document``, which decides it from the first 65,536
characters exactly as Hermes does. Occurrences are located separately, by running the
same runtime rules over each region's *whole* text, so a payload past the scan window is
still found and shown with its line and column; such a finding is marked as not scanned
by the runtime and has no runtime effect.

Hardened findings (what the runtime misses) come from ``soulscan.hardened.analyze`` when
the profile asks for them and that package is installed.

Files are read here, not by the loader, so that a FIFO can never block a scan, a huge
file is refused before it is read, and an I/O failure becomes a recorded error rather
than a runtime "skip".
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from soulscan.discovery import Discovery, Target, describe_os_error
from soulscan.engine.rulepack import Rule
from soulscan.errors import SoulscanError
from soulscan.hardened.secrets import redact
from soulscan.hermes.documents import RuntimeDocument, load_document
from soulscan.hermes.scanner import runtime_matches
from soulscan.hermes.spans import Region
from soulscan.models import (
    EFFECT_NONE,
    ORIGIN_HARDENED,
    ORIGIN_RUNTIME,
    Confidence,
    FileResult,
    Finding,
    ScanError,
    ScanReport,
    Severity,
    Span,
)
from soulscan.report.escape import escape_bounded
from soulscan.report.excerpt import REDACTION_MARGIN, excerpt
from soulscan.textpos import LineIndex

PROFILES = ("runtime", "hardened", "all")
# Hermes never loads more than 500,000 characters of a context file (its largest cap), and
# matching every rule over the whole text costs seconds per megabyte: a file many times
# that size is not a real context file, and is reported as an error, never as clean.
DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
SNIPPET_LIMIT = 160
# Below this many files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 8


@dataclass(frozen=True)
class ScanOptions:
    profile: str = "all"
    hermes_home: Path | None = None
    context_length: int | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE


@dataclass(frozen=True)
class _Job:
    target: Target
    data: bytes | None  # pre-read input (standard input); None: read target.path


def read_target(target: Target, max_file_size: int, stdin: BinaryIO | None = None) -> bytes:
    """The bytes of one target; an ``OSError`` or ``SoulscanError`` says why not."""
    if target.path is None:
        source = stdin if stdin is not None else sys.stdin.buffer
        data = source.read(max_file_size + 1)
        _check_size(len(data), max_file_size)
        return data
    # O_NONBLOCK: opening a FIFO that slipped past discovery (a race) must not hang.
    descriptor = os.open(target.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SoulscanError("not a regular file")
        _check_size(info.st_size, max_file_size)
        data = handle.read(max_file_size + 1)
        _check_size(len(data), max_file_size)
        return data


def _check_size(size: int, limit: int) -> None:
    if size > limit:
        raise SoulscanError(
            f"file is larger than the --max-file-size limit of {limit:,} bytes; not scanned"
        )


def scan_target(target: Target, options: ScanOptions, data: bytes | None = None) -> FileResult | ScanError:
    """Scan one file; every problem reading it becomes a ``ScanError``."""
    try:
        if data is None:
            data = read_target(target, options.max_file_size)
        return _scan_bytes(target, data, options)
    except SoulscanError as exc:
        return ScanError(target.display, str(exc))
    except OSError as exc:
        return ScanError(target.display, describe_os_error(exc, target.path or Path("-")))


def _scan_bytes(target: Target, data: bytes, options: ScanOptions) -> FileResult:
    # "-" is how the loader knows the text came from standard input (no path to name).
    path = str(target.path) if target.path is not None else "-"
    document = load_document(
        path,
        target.kind,
        hermes_home=options.hermes_home,
        context_length=options.context_length,
        data=data,
    )
    findings: tuple[Finding, ...] = ()
    if document.text is not None:
        findings = _findings(document, target.display, options.profile)
    return FileResult(target.display, target.kind, document.summary, findings)


@dataclass(frozen=True)
class _RuleFacts:
    """What a finding needs to know about the rule that produced it."""

    id: str
    severity: Severity
    confidence: Confidence
    scope: str
    message: str

    @classmethod
    def of(cls, rule: Rule) -> _RuleFacts:
        return cls(rule.id, rule.severity, rule.confidence, rule.scope, rule.message)


def _invisible_facts(rule_id: str, char: str, scope: str) -> _RuleFacts:
    name = unicodedata.name(char, "unnamed")
    return _RuleFacts(
        rule_id,
        Severity.HIGH,
        Confidence.HIGH,
        scope,
        f"Invisible character U+{ord(char):04X} ({name}): it hides or reorders text a "
        "reviewer reads; Hermes treats it as an injection.",
    )


def _findings(document: RuntimeDocument, display: str, profile: str) -> tuple[Finding, ...]:
    assert document.text is not None
    context = _FileContext(document.text, LineIndex.of(document.text), display)
    runtime: list[Finding] = []
    hardened: list[Finding] = []
    for region in document.regions:
        if profile in ("runtime", "all"):
            runtime.extend(_runtime_findings(context, region))
        if profile in ("hardened", "all"):
            hardened.extend(_hardened_findings(context, document, region))
    collected = runtime + [f for f in hardened if not _restates_runtime(f, runtime)]
    collected.sort(key=lambda f: (f.span.start, f.span.end, f.origin != ORIGIN_RUNTIME, f.rule_id))
    return tuple(collected)


def _restates_runtime(finding: Finding, runtime: list[Finding]) -> bool:
    """A hardened finding inside a runtime occurrence adds nothing, unless it decoded a payload."""
    return finding.decoded is None and any(
        other.span.start <= finding.span.start and finding.span.end <= other.span.end
        for other in runtime
    )


@dataclass(frozen=True)
class _FileContext:
    text: str
    index: LineIndex
    display: str


def _runtime_findings(context: _FileContext, region: Region) -> Iterator[Finding]:
    for match in runtime_matches(region.text, region.scope):
        span = Span(region.offset + match.start, region.offset + match.end)
        if match.rule is None:
            facts = _invisible_facts(match.rule_id, region.text[match.start], region.scope)
        else:
            facts = _RuleFacts.of(match.rule)
        # Only an occurrence the runtime saw inside its window contributed to the block.
        counted = _inside(span, region.scanned) and match.rule_id in region.ids
        effect = region.effect if counted else EFFECT_NONE
        yield _finding(context, region, facts, ORIGIN_RUNTIME, span, effect)


def _hardened_findings(
    context: _FileContext, document: RuntimeDocument, region: Region
) -> Iterator[Finding]:
    analyze = _hardened_analyzer()
    if analyze is None:
        return
    for match in analyze(region.text, kind=document.kind, runtime=document):
        span = Span(region.offset + match.start, region.offset + match.end)
        yield _finding(
            context, region, _RuleFacts.of(match.rule), ORIGIN_HARDENED, span, EFFECT_NONE,
            decoded=match.decoded, detail=getattr(match, "detail", None),
        )


def _finding(
    context: _FileContext,
    region: Region,
    facts: _RuleFacts,
    origin: str,
    span: Span,
    effect: str,
    *,
    decoded: str | None = None,
    detail: str | None = None,
) -> Finding:
    scanned = _inside(span, region.scanned)
    reaches_model = any(_overlaps(span, visible) for visible in region.visible)
    location = context.index.location(span.start, span.end)
    line = context.index.line_text(location.line)
    end_in_line = location.end_column - 1 if location.end_line == location.line else len(line)
    shown = excerpt(line, location.column - 1, end_in_line, redact)
    extra = {
        # Identity of the matched content for suppressions and baselines (soulscan.suppress).
        "sha256": hashlib.sha256(
            context.text[span.start : span.end].encode("utf-8", "surrogatepass")
        ).hexdigest(),
        "runtime_scanned": str(scanned).lower(),
        "reaches_model": str(reaches_model).lower(),
        "excerpt_before": shown.before,
        "excerpt_match": shown.match,
        "excerpt_after": shown.after,
    }
    if detail:
        extra["detail"] = _safe(str(detail))
    return Finding(
        rule_id=facts.id,
        severity=facts.severity,
        confidence=facts.confidence,
        scope=facts.scope,
        message=facts.message,
        path=context.display,
        span=span,
        location=location,
        snippet=snippet_of(context.text[span.start : span.end]),
        origin=origin,
        runtime_visible=scanned and reaches_model,
        runtime_effect=effect,
        decoded=None if decoded is None else _safe(decoded),
        extra=extra,
    )


def snippet_of(matched: str) -> str:
    """The matched text as it may be shown: secrets redacted, escaped, bounded."""
    return _safe(matched)


def _safe(text: str) -> str:
    # Redact a bounded prefix: the margin keeps a secret at the cut whole for the redactor.
    return escape_bounded(redact(text[: SNIPPET_LIMIT + REDACTION_MARGIN]), SNIPPET_LIMIT)


def _inside(span: Span, window: Span | None) -> bool:
    return window is not None and window.start <= span.start and span.end <= window.end


def _overlaps(span: Span, other: Span) -> bool:
    if span.start == span.end:
        return other.start <= span.start < other.end
    return span.start < other.end and other.start < span.end


def _hardened_analyzer() -> Callable[..., Any] | None:
    try:
        from soulscan.hardened.analyze import analyze
    except ImportError:
        return None
    return analyze


def _scan_job(job: _Job, options: ScanOptions) -> FileResult | ScanError:
    return scan_target(job.target, options, job.data)


def run_scan(
    discovery: Discovery,
    options: ScanOptions,
    *,
    jobs: int = 1,
    stdin: BinaryIO | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> ScanReport:
    """Scan every discovered target; results keep the discovery order whatever ``jobs`` is."""
    if options.profile not in PROFILES:
        raise SoulscanError(f"unknown profile {options.profile!r}; use one of {', '.join(PROFILES)}")
    prepared: list[_Job | ScanError] = [_prepare(target, options, stdin) for target in discovery.targets]
    runnable = [job for job in prepared if isinstance(job, _Job)]
    outcomes = iter(_run_jobs(runnable, options, jobs, on_progress))
    files: list[FileResult] = []
    errors: list[ScanError] = list(discovery.errors)
    for item in prepared:
        outcome = next(outcomes) if isinstance(item, _Job) else item
        if isinstance(outcome, FileResult):
            files.append(outcome)
        else:
            errors.append(outcome)
    return ScanReport(tuple(files), tuple(errors))


def _prepare(target: Target, options: ScanOptions, stdin: BinaryIO | None) -> _Job | ScanError:
    if target.path is not None:
        return _Job(target, None)
    try:  # standard input is read once, here, so a worker process never needs it
        return _Job(target, read_target(target, options.max_file_size, stdin))
    except SoulscanError as exc:
        return ScanError(target.display, str(exc))
    except OSError as exc:
        return ScanError(target.display, describe_os_error(exc, target.path or Path("-")))


def _run_jobs(
    runnable: Sequence[_Job],
    options: ScanOptions,
    jobs: int,
    on_progress: Callable[[int], None] | None,
) -> Iterator[FileResult | ScanError]:
    if jobs <= 1 or len(runnable) < PARALLEL_THRESHOLD:
        for job in runnable:
            outcome = _scan_job(job, options)
            if on_progress is not None:
                on_progress(1)
            yield outcome
        return
    # The first file is scanned here: that loads and compiles the rule packs once, and
    # forked workers inherit them instead of each paying for it.
    first, rest = runnable[0], runnable[1:]
    yield _scan_job(first, options)
    if on_progress is not None:
        on_progress(1)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        chunksize = max(1, len(rest) // (jobs * 8))
        for outcome in pool.map(_scan_job, rest, [options] * len(rest), chunksize=chunksize):
            if on_progress is not None:
                on_progress(1)
            yield outcome
