"""``soulscan scan --as skill PATH``: the Hermes 0.19.0 skills guard on one skill, file by file.

A skill directory (or one file) becomes a ``ScanReport``:

* one ``FileResult`` for the skill itself: the guard's verdict, the install decision of
  every trust level and the skills-index entry in ``RuntimeSummary.detail``; its action is
  what a community install does (``block`` or ``load``); structural findings live here;
* one ``FileResult`` per file the guard reads, with the guard's findings (origin runtime;
  critical and high ones drive the verdict, so their effect is ``blocks-file``) and, by
  profile, the hardened findings for the file's text;
* the files the guard skips (other suffixes, not UTF-8) as ``skip`` results, so nothing
  is silently left out;
* by profile, the skill judged as a bundle: SKILL.md gets SS010 for every file of the skill
  with a medium-or-worse hardened finding (``soulscan.hardened.skill_bundle``); scripts are
  read as code (kind ``skill-script``) by the hardened analysis.

A symbolic-link loop makes the runtime's guard crash; that is reported as a scan error.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from pathlib import Path

from soulscan.engine.matcher import rule_finditer
from soulscan.engine.rulepack import Rule
from soulscan.hardened.analyze import HardenedMatch, analyze
from soulscan.hardened.secrets import redact
from soulscan.hardened.skill_bundle import (
    FlaggedFile,
    bundle_message,
    bundle_rule,
    bundle_span,
    file_kind,
    flagging_ids,
)
from soulscan.hermes.skill_ignore import ignore_matcher
from soulscan.hermes.skill_install import COMMUNITY, decisions_by_trust_level
from soulscan.hermes.skill_structure import SkillScan, SkillScanAborted, scan_skill, walk_entries
from soulscan.hermes.skills_guard import SKILL_FILE, GuardFinding, guard_rules, read_scannable_text
from soulscan.hermes.skills_index import SkillIndexCrash, category_description, index_entry
from soulscan.models import (
    EFFECT_BLOCKS_FILE,
    EFFECT_NONE,
    ORIGIN_HARDENED,
    ORIGIN_RUNTIME,
    Confidence,
    FileResult,
    Finding,
    Location,
    RuntimeSummary,
    ScanError,
    ScanReport,
    Severity,
    Span,
)
from soulscan.pipeline import DEFAULT_MAX_FILE_SIZE, PROFILES, snippet_of
from soulscan.report.escape import escape_bounded
from soulscan.report.excerpt import excerpt
from soulscan.textpos import LineIndex

SKILL_KIND = "skill"
VERDICT_DRIVERS = ("critical", "high")
STRUCTURAL_MESSAGES = {
    "symlink_escape": "A symbolic link points outside the skill directory.",
    "broken_symlink": "A symbolic link cannot be resolved.",
    "oversized_file": "A file is larger than the guard's 256 KiB per-file limit.",
    "binary_file": "A binary or executable file type that has no place in a skill.",
    "unexpected_executable": "A file has an executable bit but is not a known script type.",
    "too_many_files": "The skill has more than the guard's 50 files.",
    "oversized_skill": "The skill is larger than the guard's 1 MiB total.",
}


def _facts_by_id() -> dict[str, Rule]:
    return {rule.id: rule for rule in guard_rules()}


def _effect(severity: str) -> str:
    return EFFECT_BLOCKS_FILE if severity in VERDICT_DRIVERS else EFFECT_NONE


def _extra(text: str, span: Span, index: LineIndex, location: Location) -> dict[str, str]:
    line = index.line_text(location.line)
    end = location.end_column - 1 if location.end_line == location.line else len(line)
    shown = excerpt(line, location.column - 1, end, redact)
    matched = text[span.start:span.end]
    return {
        "sha256": hashlib.sha256(matched.encode("utf-8", "surrogatepass")).hexdigest(),
        "runtime_scanned": "true", "reaches_model": "true",
        "excerpt_before": shown.before, "excerpt_match": shown.match,
        "excerpt_after": shown.after,
    }


def _guard_span(finding: GuardFinding, text: str, index: LineIndex, rules: dict[str, Rule]) -> Span:
    line_start = index.line_starts[finding.line - 1]
    line = index.line_text(finding.line)
    if finding.candidates:
        first = min(line.index(char) for char in finding.candidates)
        return Span(line_start + first, line_start + first + 1)
    for start, end in rule_finditer(rules[finding.pattern_id], line):
        return Span(line_start + start, line_start + end)
    return Span(line_start, line_start + len(line))


def _guard_finding(finding: GuardFinding, text: str, index: LineIndex, display: str,
                   rules: dict[str, Rule]) -> Finding:
    span = _guard_span(finding, text, index, rules)
    location = index.location(span.start, span.end)
    rule = rules.get(finding.pattern_id)
    message = rule.message if rule is not None else (
        f"Invisible character {finding.match.split(' ', 1)[0]} hides or reorders text; "
        "the skills guard flags the line.")
    return Finding(
        rule_id=finding.pattern_id, severity=Severity.parse(finding.severity),
        confidence=Confidence.HIGH, scope=SKILL_KIND, message=message, path=display, span=span,
        location=location, snippet=snippet_of(text[span.start:span.end]), origin=ORIGIN_RUNTIME,
        runtime_visible=True, runtime_effect=_effect(finding.severity),
        extra={**_extra(text, span, index, location),
               **({"pack": rule.pack} if rule is not None else {})},
    )


def _hardened(text: str, index: LineIndex, display: str, runtime: list[Finding],
              matches: list[HardenedMatch]) -> Iterator[Finding]:
    for match in matches:
        span = Span(match.start, match.end)
        if match.decoded is None and any(
                r.span.start <= span.start and span.end <= r.span.end for r in runtime):
            continue
        location = index.location(span.start, span.end)
        yield Finding(
            rule_id=match.rule.id, severity=match.rule.severity,
            confidence=match.rule.confidence, scope=match.rule.scope,
            message=match.rule.message, path=display, span=span, location=location,
            snippet=snippet_of(text[span.start:span.end]), origin=ORIGIN_HARDENED,
            runtime_visible=True, runtime_effect=EFFECT_NONE,
            decoded=None if match.decoded is None else escape_bounded(redact(match.decoded), 160),
            extra=_extra(text, span, index, location),
        )


def _sort_key(finding: Finding) -> tuple[int, int, bool, str]:
    return (finding.span.start, finding.span.end, finding.origin != ORIGIN_RUNTIME, finding.rule_id)


def _file_result(path: Path, rel: str, display: str, findings: list[GuardFinding],
                 profile: str, rules: dict[str, Rule]) -> tuple[FileResult, FlaggedFile]:
    """The file's result, and the ids that flag it for SS010: every medium-or-worse hardened
    match, also those not shown because a guard finding covers the same text."""
    text = read_scannable_text(path)
    if text is None:
        reason = "not read by the skills guard (suffix not scanned, or not UTF-8)"
        return FileResult(display, SKILL_KIND, RuntimeSummary("skip", detail=reason)), FlaggedFile(rel, ())
    index = LineIndex.of(text)
    runtime = [_guard_finding(f, text, index, display, rules) for f in findings]
    matches = analyze(text, kind=file_kind(rel)) if profile != "runtime" else []
    hardened = list(_hardened(text, index, display, runtime, matches))
    shown = (runtime if profile != "hardened" else []) + hardened
    shown.sort(key=_sort_key)
    ids = tuple(dict.fromkeys(f.pattern_id for f in findings))
    summary = RuntimeSummary("load", ids, len(text), len(text),
                             detail="read by the skills guard line by line")
    flagged = FlaggedFile(rel, flagging_ids((m.rule.id, m.rule.severity) for m in matches))
    return FileResult(display, SKILL_KIND, summary, tuple(shown)), flagged


def _bundle_finding(text: str, index: LineIndex, display: str, flagged: FlaggedFile) -> Finding:
    rule = bundle_rule()
    span = Span(*bundle_span(text))
    location = index.location(span.start, span.end)
    label = escape_bounded(flagged.label, 200)
    extra = _extra(text, span, index, location)
    return Finding(
        rule_id=rule.id, severity=rule.severity, confidence=rule.confidence, scope=rule.scope,
        message=bundle_message(label),
        path=display, span=span, location=location,
        snippet=snippet_of(text[span.start:span.end]), origin=ORIGIN_HARDENED,
        runtime_visible=True, runtime_effect=EFFECT_NONE,
        extra={**extra, "sha256": flagged.identity(text[span.start:span.end]),
               "detail": f"bundled file {label}"},
    )


def _with_bundle(files: list[tuple[Path, FileResult, FlaggedFile]]) -> list[FileResult]:
    """SS010 on the skill's SKILL.md for every other file with a medium-or-worse hardened finding."""
    flagged = [f for _, _, f in files if f.rule_ids and f.path != SKILL_FILE]
    results = []
    for entry, result, own in files:
        rel = own.path
        text = read_scannable_text(entry) if rel == SKILL_FILE and flagged else None
        if text is not None:
            index = LineIndex.of(text)
            added = [_bundle_finding(text, index, result.path, f) for f in flagged]
            result = dataclasses.replace(
                result, findings=tuple(sorted((*result.findings, *added), key=_sort_key)))
        results.append(result)
    return results


def _structural(finding: GuardFinding, display: str) -> Finding:
    return Finding(
        rule_id=finding.pattern_id, severity=Severity.parse(finding.severity),
        confidence=Confidence.HIGH, scope=SKILL_KIND,
        message=STRUCTURAL_MESSAGES[finding.pattern_id],
        path=display if finding.file == "(directory)" else f"{display}/{finding.file}",
        span=Span(0, 0), location=Location(1, 1, 1, 1), snippet=snippet_of(finding.match),
        origin=ORIGIN_RUNTIME, runtime_visible=True, runtime_effect=_effect(finding.severity),
        extra={"structural": "true", "runtime_scanned": "true", "reaches_model": "false"},
    )


def _index_note(path: Path) -> str:
    skill_file = path / SKILL_FILE if path.is_dir() else path
    if skill_file.name != SKILL_FILE or not skill_file.is_file():
        return "index: no SKILL.md, so no index entry"
    try:
        entry = index_entry(skill_file, skill_file.parent.parent)
    except SkillIndexCrash:
        return ("index: its 'platforms' value makes the runtime's skills index build raise, "
                "so no system prompt can be built")
    note = f"index: {escape_bounded(entry.name, 120)}"
    if entry.description:
        note += f": {escape_bounded(entry.description, 80)}"
    described = skill_file.parent.parent / "DESCRIPTION.md"
    if described.is_file():
        try:
            category = category_description(described.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            category = None
        if category:
            note += f"; category description: {escape_bounded(category, 120)}"
    return note


def _skill_result(path: Path, display: str, scan: SkillScan, profile: str) -> FileResult:
    decisions = decisions_by_trust_level(scan.verdict, len(scan.findings))
    policy = ", ".join(f"{level} {d.status.lower()}" for level, d in decisions.items())
    drivers = tuple(dict.fromkeys(
        f.pattern_id for f in scan.findings if f.severity in VERDICT_DRIVERS))
    detail = (f"skills guard verdict: {scan.verdict} ({len(scan.findings)} findings); "
              f"install: {policy}; {_index_note(path)}")
    action = "load" if decisions[COMMUNITY].allowed else "block"
    structural = [_structural(f, display) for f in scan.findings if f.line == 0]
    shown = structural if profile != "hardened" else []
    return FileResult(display, SKILL_KIND, RuntimeSummary(action, drivers, detail=detail),
                      tuple(shown))


def _guard_files(path: Path) -> Iterator[tuple[Path, str]]:
    if path.is_file():
        yield path, path.name
        return
    ignore = ignore_matcher(path)
    for entry in walk_entries(path):
        rel = str(entry.relative_to(path))
        if entry.is_file() and not ignore(rel):
            yield entry, rel


def skill_report(path: Path, *, profile: str = "all", display: str | None = None,
                 max_file_bytes: int = DEFAULT_MAX_FILE_SIZE) -> ScanReport:
    """What the Hermes 0.19.0 skills guard decides about the skill at ``path``.

    A file the guard reads that is over ``max_file_bytes`` is not read: it becomes a scan
    error (the verdict may miss what it holds), never a silent pass.
    """
    shown = display or str(path)
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}")
    if not path.exists():
        return ScanReport((), (ScanError(shown, "no such skill directory or file"),))
    try:
        scan = scan_skill(path, max_file_bytes=max_file_bytes)
    except SkillScanAborted as exc:
        return ScanReport((), (ScanError(shown, f"the runtime's skills guard crashes here: {exc}"),))
    rules = _facts_by_id()
    files: list[tuple[Path, FileResult, FlaggedFile]] = []
    errors: list[ScanError] = []
    for entry, rel in _guard_files(path):
        display_file = shown if path.is_file() else f"{shown}/{rel}"
        if rel in scan.unscanned:
            errors.append(ScanError(display_file, (
                f"file is larger than {max_file_bytes:,} bytes; not scanned, so the skills "
                "guard verdict above may miss what it holds")))
            continue
        own = [f for f in scan.findings if f.file == rel and f.line > 0]
        files.append((entry, *_file_result(entry, rel, display_file, own, profile, rules)))
    results = _with_bundle(files) if path.is_dir() else [result for _, result, _ in files]
    return ScanReport((_skill_result(path, shown, scan, profile), *results), tuple(errors))


def scan_skills(paths: tuple[str, ...], *, profile: str = "all") -> ScanReport:
    """``scan --as skill``: every path is one skill (a directory, or a file scanned alone)."""
    files: list[FileResult] = []
    errors: list[ScanError] = []
    for raw in paths or (".",):
        if raw == "-":
            errors.append(ScanError("-", "a skill is a directory or a file; standard input "
                                         "cannot be scanned as one"))
            continue
        report = skill_report(Path(raw), profile=profile, display=raw.rstrip("/") or raw)
        files.extend(report.files)
        errors.extend(report.errors)
    return ScanReport(tuple(files), tuple(errors))
