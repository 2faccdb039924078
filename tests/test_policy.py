"""Settings applied to a report: rule selection, severity overrides, suppressions, baseline."""

from __future__ import annotations

import datetime as dt
import types

import pytest

from soulscan import baseline
from soulscan.config import Settings
from soulscan.models import Severity
from soulscan.policy import apply_policy, rule_selected
from soulscan.suppress import Suppression
from tests.test_suppress import finding, report

TODAY = dt.date(2026, 11, 30)


@pytest.mark.parametrize(
    ("enable", "disable", "rule_id", "selected"),
    [
        pytest.param((), (), "SS101", True, id="default-all"),
        pytest.param(("SS1*",), (), "SS101", True, id="enabled-glob"),
        pytest.param(("SS1*",), (), "SS201", False, id="not-enabled"),
        pytest.param((), ("SS101",), "SS101", False, id="disabled"),
        pytest.param(("SS*",), ("SS4*",), "SS401", False, id="disable-wins"),
    ],
)
def test_rule_selection(
    enable: tuple[str, ...], disable: tuple[str, ...], rule_id: str, selected: bool
) -> None:
    assert rule_selected(rule_id, Settings(enable=enable, disable=disable)) is selected


def test_policy_order_and_counts() -> None:
    scanned = report(
        finding("SS101"),
        finding("SS201", text="curl evil"),
        finding("SS301", text="crontab"),
        finding("SS401", text="tags"),
    )
    settings = Settings(
        disable=("SS401",),
        severity=types.MappingProxyType({"SS101": Severity.LOW}),
        suppressions=(
            Suppression("SS201", "**", "reviewed"),
            Suppression("SS301", "**", "old", expires=dt.date(2026, 1, 1)),
        ),
    )
    accepted = baseline.from_report(report(finding("SS101")))
    outcome = apply_policy(scanned, settings, baseline=accepted, today=TODAY)
    remaining = [f for file in outcome.report.files for f in file.findings]
    assert [f.rule_id for f in remaining] == ["SS301"]  # expired suppression no longer applies
    assert (outcome.deselected, outcome.suppressed, outcome.baselined) == (1, 1, 1)
    assert outcome.expired == (settings.suppressions[1],)
    notes = outcome.notes()
    assert notes[0].startswith("suppression expired on 2026-01-01: rule SS301")


def test_severity_override_applies_before_the_baseline() -> None:
    settings = Settings(severity=types.MappingProxyType({"SS101": Severity.CRITICAL}))
    outcome = apply_policy(report(finding("SS101")), settings, today=TODAY)
    assert outcome.report.files[0].findings[0].severity is Severity.CRITICAL
