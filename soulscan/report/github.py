"""GitHub Actions workflow commands: findings as inline pull-request annotations.

``::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`` per finding,
no upload needed. GitHub parses a command only at the start of a line, and the runner
unescapes ``%25``, ``%0D`` and ``%0A`` (plus ``%3A`` and ``%2C`` in properties), so every
value is escaped that way: a newline in a snippet or file name can never start a forged
command of its own. Text from scanned files is also passed through ``escape_text``
first, so no hidden character reaches the annotation.

The runner accepts ``col``/``endColumn`` only for single-line annotations and rejects an
``endColumn`` before ``col``; ``endColumn`` is exclusive like the finding's own end column
(github/docs#40038 records that reading), so it is passed through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from soulscan.models import FileResult, Finding, ScanReport, Severity
from soulscan.report import RenderOptions
from soulscan.report.escape import escape_text
from soulscan.report.rules_index import RuleInfo, lookup
from soulscan.report.sarif import verdict_text

COMMANDS = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "notice",
    Severity.INFO: "notice",
}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command_line(name: str, properties: dict[str, str | int], message: str) -> str:
    rendered = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{name} {rendered}::{escape_data(message)}"


def render(
    report: ScanReport,
    options: RenderOptions | None = None,
    *,
    rules: Mapping[str, RuleInfo] | None = None,
) -> str:
    lines = [
        _annotation(file, finding, lookup(finding, rules))
        for file in report.files
        for finding in file.findings
    ]
    lines += [
        command_line(
            "error",
            {"file": escape_text(error.path), "title": "soulscan could not scan this file"},
            escape_text(error.message),
        )
        for error in report.errors
    ]
    return "".join(line + "\n" for line in lines)


def _annotation(file: FileResult, finding: Finding, info: RuleInfo) -> str:
    location = finding.location
    properties: dict[str, str | int] = {
        "file": escape_text(finding.path),
        "line": location.line,
    }
    single_line = location.end_line == location.line
    if single_line:
        properties["col"] = location.column
    properties["endLine"] = location.end_line
    if single_line:
        properties["endColumn"] = max(location.column, location.end_column)
    properties["title"] = f"soulscan {finding.rule_id} ({info.name})"
    message = (
        f"{escape_text(finding.message)} Matched: {escape_text(finding.snippet)}. "
        f"Runtime: {verdict_text(file, finding)}"
    )
    if finding.decoded is not None:
        message += f" Decoded: {escape_text(finding.decoded)}"
    return command_line(COMMANDS[finding.severity], properties, message)
