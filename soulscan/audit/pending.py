"""Staged writes under ``pending/``: text that enters memory or a skill once approved.

Mirrored (hermes-agent 0.19.0 ``tools/write_approval.py``): with
``memory.write_approval`` or ``skills.write_approval`` on, a write is stored raw, before
any scan, as ``pending/{memory,skills}/<id>.json`` (``payload`` holds the tool's
arguments; ``summary`` repeats the content). On approval the memory write runs through
the memory tool, whose strict scan blocks it (``soulscan.hermes.scanner``, scope
``strict``); a skill write runs ``skill_manage``, which scans only when
``skills.guard_agent_created`` is on (``tools/skill_manager_tool.
_guard_agent_created_enabled``), with the guard's agent-created policy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from soulscan.audit.files import read_text
from soulscan.audit.homes import Home, config_section
from soulscan.audit.report import AuditItem, Facts, Hit
from soulscan.audit.source import Marks
from soulscan.findings import invisible_facts
from soulscan.hermes.scanner import runtime_matches, scan_for_threats
from soulscan.hermes.skill_install import AGENT_CREATED, install_decision
from soulscan.hermes.skills_guard import scan_text, verdict_of
from soulscan.models import EFFECT_BLOCKS_ENTRY, ORIGIN_RUNTIME, RuntimeSummary

KIND = "pending"
TRUTHY_STRINGS = frozenset({"1", "true", "yes", "on"})  # 0.19.0 utils.TRUTHY_STRINGS
MEMORY_SCOPE = "strict"


def is_truthy(value: Any) -> bool:
    """0.19.0 ``utils.is_truthy_value``: booleans as they are, strings from a fixed set."""
    if isinstance(value, str):
        return value.strip().lower() in TRUTHY_STRINGS
    return bool(value)


def _records(directory: Path) -> list[tuple[Path, str, Any]]:
    found = []
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else ():
        try:
            text = read_text(path)
            found.append((path, text, json.loads(text)))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue
    return found


def _memory_item(path: Path, marks: Marks, content: str, target: str) -> AuditItem:
    ids = scan_for_threats(content, MEMORY_SCOPE)
    hits = []
    for match in runtime_matches(content, MEMORY_SCOPE):
        if match.rule_id not in ids:
            continue
        facts = (Facts.of(match.rule) if match.rule is not None
                 else invisible_facts(match.rule_id, content[match.start], MEMORY_SCOPE))
        hits.append(Hit(facts, ORIGIN_RUNTIME, match.start, match.end, EFFECT_BLOCKS_ENTRY))
    where = f"staged for {target or 'memory'}; enters every prompt's memory block once approved"
    runtime = (RuntimeSummary("block", tuple(ids), len(content), 0,
                              detail=f"approval runs the memory tool's strict scan, which refuses it; {where}")
               if ids else RuntimeSummary("load", (), len(content), len(content),
                                          detail=f"passes the strict scan on approval; {where}"))
    return AuditItem(str(path), KIND, "payload.content", marks.source(("payload", "content"), content),
                     runtime, analyze_kind="memory", hits=tuple(hits), scanned=True,
                     reaches_model=not ids)


def _skill_item(home: Home, path: Path, marks: Marks, content: str, key: str) -> AuditItem:
    guarded = is_truthy(config_section(home, "skills", "guard_agent_created"))
    where = "written into the skills tree once approved (index entry and body reach the model)"
    if guarded:
        findings = scan_text(content, "SKILL.md")
        verdict = verdict_of(findings)
        decision = install_decision(AGENT_CREATED, verdict, len(findings))
        action = "load" if decision.allowed else "block"
        runtime = RuntimeSummary(action, (), len(content), len(content) if decision.allowed else 0,
                                 detail=f"skills guard on approval: {verdict}, agent-created "
                                        f"{decision.status.lower()}; {where}")
    else:
        runtime = RuntimeSummary("load", (), len(content), len(content), detail=(
            "not scanned by Hermes (skills.guard_agent_created is off); " + where))
    return AuditItem(str(path), KIND, f"payload.{key}", marks.source(("payload", key), content),
                     runtime, analyze_kind="skill", scanned=guarded)


def pending_items(home: Home) -> list[AuditItem]:
    items = []
    for path, text, record in _records(home.path / "pending" / "memory"):
        payload = record.get("payload") if isinstance(record, dict) else None
        if not isinstance(payload, dict):
            continue
        content = payload.get("content")
        if isinstance(content, str) and content.strip():
            items.append(_memory_item(path, Marks(text), content, str(payload.get("target") or "")))
    for path, text, record in _records(home.path / "pending" / "skills"):
        payload = record.get("payload") if isinstance(record, dict) else None
        for key in ("content", "file_content"):
            content = payload.get(key) if isinstance(payload, dict) else None
            if isinstance(content, str) and content.strip():
                items.append(_skill_item(home, path, Marks(text), content, key))
    return items
