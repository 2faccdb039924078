"""``--format text``: the human report, grouped by file, the runtime verdict first.

Each finding shows where it is, what it is, what the runtime does about it, and the
offending line (escaped, secrets redacted) with a caret run under the matched span.
Styles are emitted only when ``RenderOptions.color`` says so; the CLI decides that from
the terminal, ``--no-color`` and ``NO_COLOR``. Nothing from a scanned file is ever
interpreted as rich markup: every piece is a ``Text`` built from escaped strings.
"""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from soulscan.models import FileResult, Finding, ScanReport
from soulscan.report import RenderOptions
from soulscan.report.escape import escape_text

_ACTION_STYLES = {
    "load": "green",
    "block": "bold red",
    "truncate": "yellow",
    "skip": "magenta",
}
# Kinds the runtime replaces by a [BLOCKED: …] placeholder when it blocks them.
_PLACEHOLDER_KINDS = ("soul", "hermes", "agents", "claude", "cursorrules", "mdc")
_SEVERITY_STYLES = {
    "critical": "bold red",
    "high": "red",
    "medium": "yellow",
    "low": "cyan",
    "info": "dim",
}


def render(report: ScanReport, options: RenderOptions) -> str:
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=max(40, options.width),
        force_terminal=options.color,
        color_system="standard" if options.color else None,
        no_color=not options.color,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=True,
        legacy_windows=False,
    )
    for result in report.files:
        if options.quiet and _is_clean(result):
            continue
        _render_file(console, result)
    if not options.quiet or report.errors or any(not _is_clean(r) for r in report.files):
        console.print(_summary(report))
    return buffer.getvalue()


def _is_clean(result: FileResult) -> bool:
    return result.runtime.action == "load" and not result.findings


def _render_file(console: Console, result: FileResult) -> None:
    runtime = result.runtime
    header = Text()
    header.append(escape_text(result.path), style="bold")
    header.append(f"  ({result.kind})  ")
    header.append(runtime.action.upper(), style=_ACTION_STYLES.get(runtime.action, "bold"))
    header.append("  " + _verdict_detail(result))
    console.print(header)
    for finding in result.findings:
        _render_finding(console, finding)
    console.print()


def _verdict_detail(result: FileResult) -> str:
    runtime = result.runtime
    ids = ", ".join(escape_text(runtime_id) for runtime_id in runtime.ids)
    detail = f" ({escape_text(runtime.detail)})" if runtime.detail else ""
    if runtime.action == "block" and result.kind in ("memory", "user"):
        return f"Hermes blocks entries for {ids}{detail}"
    if runtime.action == "block" and result.kind not in _PLACEHOLDER_KINDS:
        # A skill, cron job or pending write is refused as a whole, with no placeholder.
        return f"Hermes blocks it, for {ids}{detail}"
    if runtime.action == "block":
        return f"Hermes loads a [BLOCKED: …] placeholder instead of the file, for {ids}"
    if runtime.action == "truncate":
        return f"Hermes keeps {runtime.chars_loaded:,} of {runtime.chars_total:,} characters{detail}"
    if runtime.action == "skip":
        return f"Hermes does not load it{detail}"
    return f"Hermes loads it whole ({_characters(runtime.chars_loaded)}){detail}"


def _characters(count: int) -> str:
    return f"{count:,} character{'s' if count != 1 else ''}"


def _render_finding(console: Console, finding: Finding) -> None:
    location = finding.location
    line = Text("  ")
    where = f"{location.line}:{location.column}"
    if location.end_line != location.line:
        where += f"-{location.end_line}:{location.end_column}"
    line.append(where, style="bold")
    line.append("  ")
    severity = str(finding.severity)
    line.append(severity, style=_SEVERITY_STYLES.get(severity, ""))
    line.append("  ")
    line.append(escape_text(finding.rule_id), style="bold")
    line.append(f"  [{finding.origin}; {_effect_note(finding)}]", style="dim")
    console.print(line)
    console.print(Text("      " + escape_text(finding.message)))
    if finding.decoded:
        console.print(Text("      decoded: " + escape_text(finding.decoded), style="italic"))
    if finding.extra.get("detail"):
        console.print(Text("      detail: " + escape_text(finding.extra["detail"]), style="dim"))
    _render_excerpt(console, finding)
    omitted = finding.extra.get("omitted_occurrences")
    if omitted:
        console.print(Text(
            f"  … and {int(omitted):,} more occurrence(s) of {escape_text(finding.rule_id)} "
            "in this file, not listed", style="dim",
        ))


def _effect_note(finding: Finding) -> str:
    reaches_model = finding.extra.get("reaches_model") == "true"
    scanned = finding.extra.get("runtime_scanned") == "true"
    if finding.runtime_effect == "blocks-file":
        return "Hermes blocks the file"
    if finding.runtime_effect == "blocks-entry":
        return "Hermes blocks the entry"
    if finding.origin == "runtime" and not scanned:
        effect = "not scanned by Hermes"
    elif finding.origin == "runtime":
        effect = "no effect in Hermes"
    else:
        effect = "not a Hermes pattern"
    return f"{effect}, {'reaches' if reaches_model else 'does not reach'} the model"


def _render_excerpt(console: Console, finding: Finding) -> None:
    before = finding.extra.get("excerpt_before", "")
    match = finding.extra.get("excerpt_match", finding.snippet)
    after = finding.extra.get("excerpt_after", "")
    gutter = f"{finding.location.line:>6} │ "
    source = Text(gutter, style="dim")
    source.append(escape_text(before))
    source.append(escape_text(match), style="bold red")
    source.append(escape_text(after))
    console.print(source)
    caret = Text(" " * 6 + " │ ", style="dim")
    caret.append(" " * cell_len(escape_text(before)))
    caret.append("^" * max(1, cell_len(escape_text(match))), style="bold red")
    console.print(caret)


def _summary(report: ScanReport) -> Text:
    files = report.files
    blocked = sum(1 for r in files if r.runtime.action == "block")
    truncated = sum(1 for r in files if r.runtime.action == "truncate")
    skipped = sum(1 for r in files if r.runtime.action == "skip")
    findings = sum(len(r.findings) for r in files)
    hardened = sum(1 for r in files for f in r.findings if f.origin == "hardened")
    parts = [f"{len(files)} file{'s' if len(files) != 1 else ''} scanned"]
    parts += [f"{count} {label}" for count, label in (
        (blocked, "blocked"), (truncated, "truncated"), (skipped, "skipped"),
    ) if count]
    parts.append(f"{findings} finding{'s' if findings != 1 else ''}")
    omitted = sum(int(f.extra.get("omitted_occurrences", "0")) for r in files for f in r.findings)
    if omitted:
        parts[-1] += f" (and {omitted:,} repeated occurrences not listed)"
    if hardened:
        parts[-1] += f" ({hardened} the runtime misses)"
    if report.errors:
        parts.append(f"{len(report.errors)} error{'s' if len(report.errors) != 1 else ''}")
    return Text(" · ".join(parts), style="bold")
