"""Baselines: accept the findings a project already has, report only new ones.

The identity of a finding is rule id + path + sha256 of the matched text, never a line
number, so edits elsewhere in a file do not churn the baseline, while any change to the
matched text (a new payload) is a new finding. The baseline is a separate JSON file that
belongs to the project's config, not to any scanned file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from soulscan.errors import ConfigError
from soulscan.fix import write_atomically
from soulscan.models import Finding, ScanReport
from soulscan.suppress import match_digest

BASELINE_SCHEMA = 1


@dataclass(frozen=True, order=True)
class BaselineEntry:
    rule_id: str
    path: str
    sha256: str


@dataclass(frozen=True)
class Baseline:
    entries: frozenset[BaselineEntry]

    def __contains__(self, finding: object) -> bool:
        return isinstance(finding, Finding) and entry_for(finding) in self.entries

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(entry.path for entry in self.entries)


@dataclass(frozen=True)
class BaselineChange:
    baseline: Baseline
    added: tuple[BaselineEntry, ...]
    removed: tuple[BaselineEntry, ...]


def normalise_path(path: str) -> str:
    """The form a path is stored and compared in: "/"-separated, no leading "./"."""
    posix = PurePosixPath(path.replace("\\", "/")).as_posix()
    while posix.startswith("./"):
        posix = posix[2:]
    return posix


def entry_for(finding: Finding) -> BaselineEntry:
    return BaselineEntry(finding.rule_id, normalise_path(finding.path), match_digest(finding))


def from_report(report: ScanReport) -> Baseline:
    return Baseline(
        frozenset(entry_for(finding) for file in report.files for finding in file.findings)
    )


def update(old: Baseline, report: ScanReport) -> BaselineChange:
    """A baseline of ``report``'s findings, keeping old entries for files not scanned now.

    Entries of a scanned file that no longer match are dropped (the finding was fixed);
    new findings are added. Files outside this scan keep their entries untouched.
    """
    scanned = {normalise_path(file.path) for file in report.files}
    current = from_report(report).entries
    kept = {entry for entry in old.entries if entry.path not in scanned}
    new = Baseline(frozenset(kept | current))
    return BaselineChange(
        baseline=new,
        added=tuple(sorted(new.entries - old.entries)),
        removed=tuple(sorted(old.entries - new.entries)),
    )


def filter_report(report: ScanReport, baseline: Baseline) -> tuple[ScanReport, int]:
    """``report`` without the findings the baseline accepts, and how many were dropped."""
    dropped = 0
    files = []
    for file in report.files:
        kept = tuple(f for f in file.findings if f not in baseline)
        dropped += len(file.findings) - len(kept)
        files.append(replace(file, findings=kept))
    return replace(report, files=tuple(files)), dropped


def dumps(baseline: Baseline) -> str:
    """Stable JSON: sorted entries, so a baseline diff in review shows only real changes."""
    document = {
        "schema": BASELINE_SCHEMA,
        "tool": "soulscan",
        "identity": "rule_id + path + sha256 of the matched text",
        "findings": [
            {"rule_id": e.rule_id, "path": e.path, "sha256": e.sha256}
            for e in sorted(baseline.entries)
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


def loads(text: str, source: str) -> Baseline:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{source}: not a soulscan baseline: invalid JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("schema") != BASELINE_SCHEMA:
        raise ConfigError(f'{source}: not a soulscan baseline (expected "schema": 1)')
    findings = document.get("findings")
    if not isinstance(findings, list):
        raise ConfigError(f"{source}: baseline 'findings' must be a list")
    entries = (_entry(item, f"{source}: findings[{i}]") for i, item in enumerate(findings))
    return Baseline(frozenset(entries))


def _entry(item: Any, where: str) -> BaselineEntry:
    if not isinstance(item, dict) or set(item) != {"rule_id", "path", "sha256"}:
        raise ConfigError(f"{where}: expected exactly the keys rule_id, path, sha256")
    values = [item["rule_id"], item["path"], item["sha256"]]
    if not all(isinstance(v, str) and v for v in values):
        raise ConfigError(f"{where}: rule_id, path and sha256 must be non-empty strings")
    return BaselineEntry(values[0], normalise_path(values[1]), values[2])


def load(path: Path) -> Baseline:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: baseline file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read baseline: {exc}") from None
    return loads(text, str(path))


def save(path: Path, baseline: Baseline) -> None:
    try:
        write_atomically(path, dumps(baseline).encode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write: {exc.strerror or exc}") from None
