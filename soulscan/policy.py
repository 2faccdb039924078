"""Apply a project's settings to a scan report: rule selection, severities, suppressions, baseline.

Runs after the scan and before the reporters, in this order: drop rules the config
disables (or does not enable), rewrite severities the config overrides, drop findings a
live config suppression covers, drop findings the baseline accepts. None of it reads
the scanned files: what a file says about itself never changes what is reported.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from soulscan.config import Settings
from soulscan.models import Finding, ScanReport

if TYPE_CHECKING:
    from soulscan.baseline import Baseline
    from soulscan.suppress import Suppression


@dataclass(frozen=True)
class PolicyOutcome:
    """A report after the config and baseline, with counts of what they hid."""
    report: ScanReport
    deselected: int  # findings of rules the config turns off
    suppressed: int  # findings a config suppression covers
    baselined: int  # findings the baseline accepts
    expired: tuple[Suppression, ...]  # suppressions past their date: reported, not applied

    def notes(self) -> list[str]:
        """One line per thing the user should know about what was not reported."""
        lines = [
            f"suppression expired on {s.expires}: rule {s.rule} in {s.path} ({s.reason}); "
            "its findings are reported again"
            for s in self.expired
        ]
        if self.suppressed:
            lines.append(f"{self.suppressed} finding(s) suppressed by the config")
        if self.baselined:
            lines.append(f"{self.baselined} finding(s) accepted by the baseline")
        return lines


def rule_selected(rule_id: str, settings: Settings) -> bool:
    """Enabled (by default every rule) and not disabled; both take fnmatch globs."""
    enabled = not settings.enable or any(fnmatch.fnmatchcase(rule_id, g) for g in settings.enable)
    return enabled and not any(fnmatch.fnmatchcase(rule_id, g) for g in settings.disable)


def _adjusted(finding: Finding, settings: Settings) -> Finding:
    severity = settings.severity.get(finding.rule_id)
    return finding if severity is None else replace(finding, severity=severity)


def _selected(report: ScanReport, settings: Settings) -> tuple[ScanReport, int]:
    """The report without the findings of rules the config turns off, severities as the
    config sets them, and how many findings were dropped."""
    if not (settings.enable or settings.disable or settings.severity):
        return report, 0  # every rule on at its own severity: nothing to rebuild
    deselected = 0
    files = []
    for file in report.files:
        kept = tuple(
            _adjusted(f, settings) for f in file.findings if rule_selected(f.rule_id, settings)
        )
        deselected += len(file.findings) - len(kept)
        files.append(replace(file, findings=kept))
    return replace(report, files=tuple(files)), deselected


def apply_policy(
    report: ScanReport,
    settings: Settings,
    *,
    baseline: Baseline | None = None,
    today: dt.date | None = None,
) -> PolicyOutcome:
    selected, deselected = _selected(report, settings)
    result, suppressed = selected, 0
    expired: tuple[Suppression, ...] = ()
    if settings.suppressions:  # without any, a rebuild of every file would change nothing
        from soulscan.suppress import apply_suppressions  # only then: start-up cost

        outcome = apply_suppressions(
            selected, settings.suppressions, today=today if today is not None else dt.date.today()
        )
        result, suppressed, expired = outcome.report, len(outcome.suppressed), outcome.expired
    baselined = 0
    if baseline is not None:
        from soulscan.baseline import filter_report  # only with a baseline: start-up cost

        result, baselined = filter_report(result, baseline)
    return PolicyOutcome(
        report=result,
        deselected=deselected,
        suppressed=suppressed,
        baselined=baselined,
        expired=expired,
    )
