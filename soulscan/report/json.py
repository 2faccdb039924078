"""``--format json``: the versioned, machine-readable report (schema 1).

Contract (schema 1). New keys may be added within a schema version; a key is never
removed or changed in meaning without bumping ``schema``::

    {
      "schema": 1,
      "tool": {"name": "soulscan", "version": "0.1.0"},
      "runtime": "hermes-agent 0.19.0",
      "summary": {"files": int, "findings": int, "blocked": int, "errors": int},
      "files": [
        {
          "path": str,                    # as given on the command line, escaped
          "kind": "soul|hermes|agents|claude|cursorrules|mdc|memory|user",
          "runtime": {                    # what Hermes 0.19.0 does with the file
            "action": "load|block|truncate|skip",
            "ids": [str],                 # the ids Hermes prints in its [BLOCKED: ...] line
            "chars_total": int,           # code points read
            "chars_loaded": int,          # code points that reach the prompt
            "detail": str | null          # why a skip; what truncation dropped
          },
          "findings": [
            {
              "rule_id": str, "severity": "info|low|medium|high|critical",
              "confidence": "low|medium|high", "scope": str,
              "origin": "runtime|hardened",   # the runtime's own rule, or one it lacks
              "message": str,
              "line": int, "column": int,     # 1-based, code points, in the file on disk
              "end_line": int, "end_column": int,  # end_column is exclusive
              "runtime_visible": bool,        # inside the scan window and reaching the model
              "runtime_scanned": bool,        # inside the runtime's 65,536-char scan window
              "reaches_model": bool,          # kept by truncation and not blocked
              "runtime_effect": "blocks-file|blocks-entry|none",
              "snippet": str,                 # the matched text, escaped, secrets redacted
              "decoded": str | null,          # a smuggled payload, decoded and escaped
              "detail": str | null,           # what the rule saw (encoding, secret kind…)
              "omitted_occurrences": int      # further occurrences of this rule in the file
            }                                 # not listed (at most 1,000 are, per rule)
          ]
        }
      ],
      "errors": [{"path": str, "message": str}]   # files that could not be scanned
    }

Every string is passed through ``escape_text``: a JSON consumer never receives a raw
control, bidi or invisible character, not even in a path. The JSON Schema of this
contract ships beside this module as ``scan-report-1.schema.json`` (``schema_path()``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from soulscan import RUNTIME, __version__
from soulscan.models import FileResult, Finding, ScanReport
from soulscan.report import RenderOptions
from soulscan.report.escape import escape_text

SCHEMA_VERSION = 1


def schema_path() -> Path:
    """The JSON Schema (draft 2020-12) that every report of this schema version satisfies."""
    return Path(__file__).with_name(f"scan-report-{SCHEMA_VERSION}.schema.json")
BLOCKING_EFFECTS = ("blocks-file", "blocks-entry")


def render(report: ScanReport, options: RenderOptions) -> str:
    return indented_json(_document(report, _FileEntries(report.files))) + "\n"


def indented_json(document: Any) -> str:
    """``json.dumps(document, ensure_ascii=False, indent=2)``, the same text, written faster:
    with ``indent`` the standard library falls back to its pure-Python encoder, which
    takes a tenth of a second or more on a tree of 10,000 files, after the scan has ended.
    Strings and numbers still go through the standard library's own encoders; anything
    but the JSON types the report holds is left to ``json.dumps``."""
    parts: list[str] = []
    try:
        _write(document, "\n", parts)
    except _Unusual:
        import json  # only then: a report's own values never need it

        return json.dumps(document, ensure_ascii=False, indent=2)
    return "".join(parts)


class _Unusual(Exception):
    """A value this writer leaves to ``json.dumps`` (a float, a non-string key, …)."""


# The string encoder json.encoder chooses (its C one when there is one), taken without
# importing the json package: a scan's report needs no other part of it.
try:
    from _json import encode_basestring as _encode_string
except ImportError:
    from json.encoder import encode_basestring as _encode_string


def _write(value: Any, newline: str, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(_encode_string(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif type(value) is int:
        parts.append(int.__repr__(value))
    elif type(value) is dict:
        if not value:
            parts.append("{}")
            return
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            if type(key) is not str:
                raise _Unusual
            parts.append(separator)
            parts.append(_encode_string(key))
            parts.append(": ")
            _write(item, inner, parts)
            separator = "," + inner
        parts.append(newline + "}")
    elif type(value) is _FileEntries:
        value.write(newline, parts)
    elif type(value) is list:
        if not value:
            parts.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            parts.append(separator)
            _write(item, inner, parts)
            separator = "," + inner
        parts.append(newline + "]")
    else:
        raise _Unusual


def report_document(report: ScanReport) -> dict[str, Any]:
    """The report as JSON values (``render`` writes the same text without building the
    files' dicts)."""
    return _document(report, [_file(result) for result in report.files])


def _document(report: ScanReport, files: Any) -> dict[str, Any]:
    """``report_document`` with ``files`` as the files' value."""
    findings = blocked = 0
    for result in report.files:  # one pass: a tree's report counts 10,000 files
        if result.findings:
            findings += len(result.findings)
            blocked += _blocked(result)
        elif result.runtime.action == "block":
            blocked += 1
    return {
        "schema": SCHEMA_VERSION,
        "tool": {"name": "soulscan", "version": __version__},
        "runtime": RUNTIME,
        "summary": {
            "files": len(report.files),
            "findings": findings,
            "blocked": blocked,
            "errors": len(report.errors),
        },
        "files": files,
        "errors": [
            {"path": escape_text(error.path), "message": escape_text(error.message)}
            for error in report.errors
        ],
    }


def _blocked(result: FileResult) -> bool:
    return result.runtime.action == "block" or any(
        finding.runtime_effect in BLOCKING_EFFECTS for finding in result.findings
    )


def _file(result: FileResult) -> dict[str, Any]:
    runtime = result.runtime
    return {
        "path": escape_text(result.path),
        "kind": result.kind,
        "runtime": {
            "action": runtime.action,
            "ids": [escape_text(runtime_id) for runtime_id in runtime.ids],
            "chars_total": runtime.chars_total,
            "chars_loaded": runtime.chars_loaded,
            "detail": None if runtime.detail is None else escape_text(runtime.detail),
        },
        "findings": [_finding(finding) for finding in result.findings],
    }


class _FileEntries:
    """The files' list, written by ``_write`` straight from the results: the same text as
    the list of ``_file``'s dicts, without building and walking those dicts, or an object
    a file (a tree of 10,000 files writes its report after the scan has ended)."""

    __slots__ = ("results",)

    def __init__(self, results: tuple[FileResult, ...]) -> None:
        self.results = results

    def write(self, newline: str, parts: list[str]) -> None:
        if not self.results:
            parts.append("[]")
            return
        inner = newline + "  "
        members = inner + "  "
        deeper = members + "  "
        separator = "[" + inner
        for result in self.results:
            parts.append(separator)
            _write_file(result, inner, members, deeper, parts)
            separator = "," + inner
        parts.append(newline + "]")


def _write_file(result: FileResult, newline: str, inner: str, deeper: str,
                parts: list[str]) -> None:
    """One file's dict, as ``_write`` writes ``_file(result)`` at ``newline`` (``inner``
    and ``deeper``: its members' and the runtime's indentation)."""
    runtime = result.runtime
    if not (type(result.kind) is str and type(runtime.action) is str
            and type(runtime.chars_total) is int and type(runtime.chars_loaded) is int):
        _write(_file(result), newline, parts)  # not the plain values a scan makes
        return
    parts.append(
        f'{{{inner}"path": {_encode_string(escape_text(result.path))},'
        f'{inner}"kind": {_encode_string(result.kind)},'
        f'{inner}"runtime": {{{deeper}"action": {_encode_string(runtime.action)},'
        f'{deeper}"ids": ')
    _write([escape_text(runtime_id) for runtime_id in runtime.ids], deeper, parts)
    detail = "null" if runtime.detail is None else _encode_string(escape_text(runtime.detail))
    parts.append(
        f',{deeper}"chars_total": {int.__repr__(runtime.chars_total)},'
        f'{deeper}"chars_loaded": {int.__repr__(runtime.chars_loaded)},'
        f'{deeper}"detail": {detail}{inner}}},{inner}"findings": ')
    _write([_finding(finding) for finding in result.findings], inner, parts)
    parts.append(newline + "}")


def _finding(finding: Finding) -> dict[str, Any]:
    location = finding.location
    return {
        "rule_id": escape_text(finding.rule_id),
        "severity": str(finding.severity),
        "confidence": str(finding.confidence),
        "scope": escape_text(finding.scope),
        "origin": finding.origin,
        "message": escape_text(finding.message),
        "line": location.line,
        "column": location.column,
        "end_line": location.end_line,
        "end_column": location.end_column,
        "runtime_visible": finding.runtime_visible,
        "runtime_scanned": finding.extra.get("runtime_scanned") == "true",
        "reaches_model": finding.extra.get("reaches_model") == "true",
        "runtime_effect": finding.runtime_effect,
        # Already escaped when the finding was built; escaping is idempotent on its output.
        "snippet": escape_text(finding.snippet),
        "decoded": None if finding.decoded is None else escape_text(finding.decoded),
        "detail": _optional(finding.extra.get("detail")),
        "omitted_occurrences": int(finding.extra.get("omitted_occurrences", "0")),
    }


def _optional(text: str | None) -> str | None:
    return None if text is None else escape_text(text)
