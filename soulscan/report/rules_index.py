"""Rule metadata for reporters: the rule behind a finding's id, and a stand-in when none.

Several built-in packs reuse the runtime's ids (the cron packs carry ``prompt_injection``
too), so the lookup prefers the context-file runtime pack, then the other packs in their
load order. Findings whose id no pack declares (the runtime's per-character
``invisible_unicode_U+XXXX`` ids) get a descriptor built from the finding itself.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from soulscan.engine.rulepack import Rule, RulePack, builtin_packs, runtime_pack
from soulscan.models import Confidence, Finding, Severity

RUNTIME_REFERENCE = "https://pypi.org/project/hermes-agent/0.19.0/"
_URL = re.compile(r"https?://[^\s)>\]\"']+")


@dataclass(frozen=True)
class RuleInfo:
    """What a report says about a rule, whether or not a pack declares it."""

    id: str
    name: str
    pack: str
    severity: Severity
    confidence: Confidence
    message: str
    docs: Mapping[str, str]
    tags: tuple[str, ...]
    origin: str

    @property
    def help_uri(self) -> str | None:
        """The first reference URL of the rule's docs; the runtime's release for its rules."""
        found = _URL.search(self.docs.get("references", ""))
        if found is not None:
            return found.group()
        return RUNTIME_REFERENCE if self.origin == "runtime" else None


def info_of(rule: Rule) -> RuleInfo:
    return RuleInfo(
        id=rule.id,
        name=rule.name,
        pack=rule.pack,
        severity=rule.severity,
        confidence=rule.confidence,
        message=rule.message,
        docs=rule.docs,
        tags=rule.tags,
        origin=rule.origin,
    )


def info_from_finding(finding: Finding) -> RuleInfo:
    name = finding.rule_id.lower().replace("_", "-").replace("+", "")
    if finding.rule_id.startswith("invisible_unicode_U+"):
        name = "invisible-unicode"
    return RuleInfo(
        id=finding.rule_id,
        name=name,
        pack="",
        severity=finding.severity,
        confidence=finding.confidence,
        message=finding.message,
        docs={},
        tags=(),
        origin=finding.origin,
    )


def index_packs(packs: Iterable[RulePack]) -> dict[str, RuleInfo]:
    """id → rule info; the first pack declaring an id wins."""
    index: dict[str, RuleInfo] = {}
    for pack in packs:
        for rule in pack.rules:
            index.setdefault(rule.id, info_of(rule))
    return index


@functools.cache
def builtin_index() -> Mapping[str, RuleInfo]:
    runtime = runtime_pack()
    return index_packs([runtime, *(p for p in builtin_packs() if p.id != runtime.id)])


@functools.cache
def _builtin_by_pack() -> Mapping[tuple[str, str], RuleInfo]:
    return {(rule.pack, rule.id): info_of(rule) for pack in builtin_packs() for rule in pack.rules}


def lookup(finding: Finding, index: Mapping[str, RuleInfo] | None = None) -> RuleInfo:
    """The rule behind a finding: its own pack's when the finding names one
    (``extra["pack"]``: ids such as ``role_hijack`` live in several packs)."""
    pack = finding.extra.get("pack")
    if pack is not None and (pack, finding.rule_id) in _builtin_by_pack():
        return _builtin_by_pack()[(pack, finding.rule_id)]
    known = builtin_index() if index is None else index
    return known.get(finding.rule_id) or info_from_finding(finding)
