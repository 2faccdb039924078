"""Reporters describe a finding with the rule of its own pack when ids are shared."""

from __future__ import annotations

from dataclasses import replace

from soulscan.engine.rulepack import builtin_packs, runtime_pack
from soulscan.models import Confidence, Finding, Location, Severity, Span
from soulscan.report.rules_index import lookup

FINDING = Finding(
    rule_id="role_hijack", severity=Severity.HIGH, confidence=Confidence.HIGH, scope="skill",
    message="m", path="SKILL.md", span=Span(0, 1), location=Location(1, 1, 1, 2), snippet="x",
)


def test_shared_id_resolves_to_the_pack_the_finding_names() -> None:
    guard = next(p for p in builtin_packs() if p.id == "hermes-0.19-skills-guard")
    info = lookup(replace(FINDING, extra={"pack": guard.id}))
    assert (info.pack, info.name) == (guard.id, guard.rule("role_hijack").name)


def test_without_a_pack_the_context_runtime_pack_wins() -> None:
    assert lookup(FINDING).pack == runtime_pack().id
