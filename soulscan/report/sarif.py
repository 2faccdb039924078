"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run; the driver lists every rule that fired. Regions use 1-based code-point columns
(``columnKind: unicodeCodePoints``) with an exclusive end column, exactly the finding's
location. Lines count CR, LF and CRLF as breaks, the way the runtime reads files
(universal newlines), so the run states ``newlineSequences`` to say so; SARIF's default
would not count a lone CR.

``partialFingerprints`` hash rule + path + the matched text + the occurrence index among
equal matches in that file, so an alert keeps its identity when lines move, and two
identical payloads in one file stay two alerts. The runtime verdict (what Hermes 0.19.0
does with the file, whether it sees the span) is in each result's properties.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from soulscan import __version__
from soulscan.models import Confidence, FileResult, Finding, ScanReport, Severity
from soulscan.report import RenderOptions
from soulscan.report.escape import escape_text
from soulscan.report.rules_index import RuleInfo, lookup
from soulscan.suppress import match_digest

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "soulscan/v1"
INFORMATION_URI = "https://pypi.org/project/hermes-soulscan/"
RUNTIME = "hermes-agent 0.19.0"

LEVELS = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
    Severity.INFO: "note",
}
# GitHub buckets security-severity: >= 9.0 critical, 7.0-8.9 high, 4.0-6.9 medium, else low.
SECURITY_SEVERITY = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "2.0",
    Severity.INFO: "0.0",
}
PRECISION = {Confidence.HIGH: "high", Confidence.MEDIUM: "medium", Confidence.LOW: "low"}


def render(report: ScanReport, options: RenderOptions | None = None) -> str:
    return dumps(sarif_log(report))


def dumps(log: Mapping[str, Any]) -> str:
    # ensure_ascii: every non-ASCII character is a \u escape, so no raw bidi or
    # invisible character can reach a consumer even if a string escaped nothing.
    return json.dumps(log, indent=2, ensure_ascii=True) + "\n"


def sarif_log(
    report: ScanReport,
    *,
    rules: Mapping[str, RuleInfo] | None = None,
    tool_version: str = __version__,
) -> dict[str, Any]:
    infos: dict[str, RuleInfo] = {}
    for file in report.files:
        for finding in file.findings:
            infos.setdefault(finding.rule_id, lookup(finding, rules))
    order = sorted(infos)
    rule_index = {rule_id: i for i, rule_id in enumerate(order)}
    results = [
        _result(file, finding, rule_index[finding.rule_id], occurrence)
        for file in report.files
        for finding, occurrence in _with_occurrences(file)
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "soulscan",
                "version": tool_version,
                "semanticVersion": tool_version,
                "informationUri": INFORMATION_URI,
                "rules": [_descriptor(infos[rule_id]) for rule_id in order],
            }
        },
        "invocations": [_invocation(report)],
        "artifacts": [_artifact(file) for file in report.files],
        "results": results,
        "columnKind": "unicodeCodePoints",
        "newlineSequences": ["\r\n", "\n", "\r"],
        "properties": {"runtime": RUNTIME},
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def artifact_uri(path: str) -> str:
    """A URI for a report path: "/" separators, percent-encoded, relative when it was."""
    posix = path.replace("\\", "/")
    while posix.startswith("./"):
        posix = posix[2:]
    encoded = quote(posix, safe="/", errors="surrogateescape")
    # An absolute path becomes a file URI; a relative one stays relative to the checkout.
    return "file://" + encoded if posix.startswith("/") else encoded


def fingerprint(finding: Finding, occurrence: int) -> str:
    identity = "\0".join(
        (finding.rule_id, artifact_uri(finding.path), match_digest(finding), str(occurrence))
    )
    return hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()


def _with_occurrences(file: FileResult) -> list[tuple[Finding, int]]:
    seen: Counter[tuple[str, str]] = Counter()
    numbered = []
    for finding in file.findings:
        key = (finding.rule_id, match_digest(finding))
        numbered.append((finding, seen[key]))
        seen[key] += 1
    return numbered


def _descriptor(info: RuleInfo) -> dict[str, Any]:
    what = info.docs.get("what") or info.docs.get("why") or info.message
    descriptor: dict[str, Any] = {
        "id": info.id,
        "name": info.name,
        "shortDescription": {"text": info.message},
        "fullDescription": {"text": what},
        "help": {"text": _help_text(info), "markdown": _help_markdown(info)},
        "defaultConfiguration": {"level": LEVELS[info.severity]},
        "properties": {
            "tags": ["security", *info.tags],
            "precision": PRECISION[info.confidence],
            "security-severity": SECURITY_SEVERITY[info.severity],
            "severity": str(info.severity),
            "origin": info.origin,
        },
    }
    if info.pack:
        descriptor["properties"]["pack"] = info.pack
    uri = info.help_uri
    if uri is not None:
        descriptor["helpUri"] = uri
    return descriptor


_HELP_SECTIONS = (
    ("what", "What it does"),
    ("why", "Why it matters"),
    ("example", "Example"),
    ("fix", "How to fix"),
    ("runtime", "Runtime behaviour"),
    ("references", "References"),
)


def _help_text(info: RuleInfo) -> str:
    parts = [f"{info.id} ({info.name}): {info.message}"]
    parts += [f"{title}: {info.docs[key]}" for key, title in _HELP_SECTIONS if key in info.docs]
    return "\n\n".join(parts)


def _help_markdown(info: RuleInfo) -> str:
    parts = [f"**{info.id}** `{info.name}`: {info.message}"]
    parts += [f"### {title}\n{info.docs[key]}" for key, title in _HELP_SECTIONS if key in info.docs]
    return "\n\n".join(parts)


def _result(file: FileResult, finding: Finding, rule_index: int, occurrence: int) -> dict[str, Any]:
    location = finding.location
    verdict = verdict_text(file, finding)
    # Snippets arrive escaped; escaping again is a no-op that guards hand-made findings.
    snippet = escape_text(finding.snippet)
    text = f"{escape_text(finding.message)} Matched: {snippet}. {verdict}"
    properties: dict[str, Any] = {
        "severity": str(finding.severity),
        "confidence": str(finding.confidence),
        "origin": finding.origin,
        "scope": finding.scope,
        "snippet": snippet,
        "runtime": {
            "action": file.runtime.action,
            "ids": list(file.runtime.ids),
            "effect": finding.runtime_effect,
            "visible": finding.runtime_visible,
        },
    }
    if finding.decoded is not None:
        properties["decoded"] = escape_text(finding.decoded)
    return {
        "ruleId": finding.rule_id,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(finding.path)},
                    "region": {
                        "startLine": location.line,
                        "startColumn": location.column,
                        "endLine": location.end_line,
                        "endColumn": location.end_column,
                    },
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(finding, occurrence)},
        "properties": properties,
    }


def verdict_text(file: FileResult, finding: Finding) -> str:
    """One sentence: what Hermes 0.19.0 does about this finding."""
    if finding.runtime_effect == "blocks-file":
        return f"Hermes 0.19.0 blocks this file ({', '.join(file.runtime.ids)})."
    if finding.runtime_effect == "blocks-entry":
        return "Hermes 0.19.0 blocks this memory entry."
    # reaches_model also covers text the runtime never scans (past its scan window, or a
    # surface it injects unscanned: config prompts, prefill, the skills index).
    if finding.runtime_visible or finding.extra.get("reaches_model") == "true":
        return "Hermes 0.19.0 does not catch this; the model sees it."
    return "Hermes 0.19.0 does not show this span to the model."


def _artifact(file: FileResult) -> dict[str, Any]:
    runtime = file.runtime
    summary: dict[str, Any] = {
        "action": runtime.action,
        "ids": list(runtime.ids),
        "chars_total": runtime.chars_total,
        "chars_loaded": runtime.chars_loaded,
    }
    if runtime.detail:
        summary["detail"] = escape_text(runtime.detail)
    return {
        "location": {"uri": artifact_uri(file.path)},
        "properties": {"kind": file.kind, "runtime": summary},
    }


def _invocation(report: ScanReport) -> dict[str, Any]:
    notifications = [
        {
            "level": "error",
            "message": {"text": f"{escape_text(error.path)}: {escape_text(error.message)}"},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": artifact_uri(error.path)}}}
            ],
        }
        for error in report.errors
    ]
    return {"executionSuccessful": not report.errors, "toolExecutionNotifications": notifications}
