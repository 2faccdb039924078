"""A Markdown job summary: one table row per file with its runtime verdict.

"Reach the model" counts the findings Hermes does not block that sit in text the model
is shown: what gets past the runtime.

Written for ``$GITHUB_STEP_SUMMARY``. File names and runtime details come from the
repository under review, so they are escaped twice over: ``escape_text`` makes hidden
characters visible, then every ASCII punctuation character gets a Markdown backslash
escape, so a file name cannot open a link, an image, an HTML tag or a table cell.
"""

from __future__ import annotations

from collections import Counter

from soulscan.models import FileResult, Finding, ScanReport
from soulscan.report import RenderOptions
from soulscan.report.escape import escape_text

RUNTIME = "Hermes 0.19.0"
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def markdown_text(text: str) -> str:
    """Literal text for a Markdown table cell: visible escapes, inert punctuation."""
    return "".join("\\" + c if c in _PUNCTUATION else c for c in escape_text(text))


def render(report: ScanReport, options: RenderOptions | None = None) -> str:
    findings = sum(len(file.findings) for file in report.files)
    actions = Counter(file.runtime.action for file in report.files)
    lines = [
        "## soulscan",
        "",
        f"{len(report.files)} files scanned, {findings} findings. {RUNTIME}: "
        + ", ".join(f"{actions[a]} {a}" for a in ("load", "block", "truncate", "skip")),
        "",
    ]
    if report.files:
        lines += [
            f"| File | Kind | {RUNTIME} verdict | Findings | Reach the model | Worst |",
            "| --- | --- | --- | ---: | ---: | --- |",
            *(_row(file) for file in report.files),
            "",
        ]
    if report.errors:
        lines += ["### Not scanned", ""]
        lines += [
            f"- {markdown_text(error.path)}: {markdown_text(error.message)}"
            for error in report.errors
        ]
        lines.append("")
    return "\n".join(lines)


def _row(file: FileResult) -> str:
    worst = max((f.severity for f in file.findings), default=None)
    cells = (
        markdown_text(file.path),
        markdown_text(file.kind),
        _verdict(file),
        str(len(file.findings)),
        str(sum(_reaches_model(f) and f.runtime_effect == "none" for f in file.findings)),
        "" if worst is None else str(worst),
    )
    return "| " + " | ".join(cells) + " |"


def _reaches_model(finding: Finding) -> bool:
    # Also text the runtime never scans (past its window, or an unscanned surface).
    return finding.runtime_visible or finding.extra.get("reaches_model") == "true"


def _verdict(file: FileResult) -> str:
    runtime = file.runtime
    if runtime.action == "block":
        return f"**block** ({markdown_text(', '.join(runtime.ids))})"
    if runtime.action == "truncate":
        return f"truncate ({runtime.chars_loaded:,} of {runtime.chars_total:,} chars)"
    if runtime.action == "skip":
        reason = f" ({markdown_text(runtime.detail)})" if runtime.detail else ""
        return f"skip{reason}"
    return markdown_text(runtime.action)
