"""Cron jobs: the runtime's verdict at create time and at every run, and their inputs.

Mirrored (hermes-agent 0.19.0): ``cron/jobs.load_jobs`` reads ``cron/jobs.json``
(UTF-8 with an optional BOM; ``{"jobs": [...]}`` or a bare list).
``cron/scheduler._build_job_prompt`` prepends, for each ``context_from`` job id (12
hex digits), the newest ``cron/output/<id>/*.md`` (stripped, cut at 8,000 characters)
and, for a ``script``, its output; skills are appended. The verdicts come from
``soulscan.hermes.cron_scan``: the strict scan the cron tool applies at create/update,
and the run-time choice between the strict scan and the loose one (skills or injected
data present). soulscan does not run scripts: a job with a script is judged as if its
script printed data (the runtime then takes the loose scan).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from soulscan.audit.files import read_bytes, read_text
from soulscan.audit.homes import Home
from soulscan.audit.report import AuditItem, Facts, Hit
from soulscan.audit.source import KeyPath, Marks, SourceText, key_path_text
from soulscan.engine.matcher import rule_finditer
from soulscan.engine.rulepack import Rule, builtin_packs
from soulscan.findings import invisible_facts
from soulscan.hermes.cron_scan import (
    EXFIL_PACK,
    INVISIBLE_ID,
    LOOSE_PACK,
    STRICT_PACK,
    CronVerdict,
    is_emoji_joiner,
    scan_cron_prompt,
    scan_cron_run,
)
from soulscan.hermes.cron_scan import INVISIBLE_CHARS as CRON_INVISIBLE
from soulscan.models import EFFECT_BLOCKS_FILE, ORIGIN_RUNTIME, RuntimeSummary

KIND = "cron"
CONTEXT_LIMIT = 8000
_HEX = frozenset("0123456789abcdef")
_SKILL_NAME = re.compile(r"[\w.-]{1,128}")


@functools.cache
def _rules_by_id(pack_id: str) -> dict[str, Rule]:
    return {rule.id: rule for pack in builtin_packs() if pack.id == pack_id for rule in pack.rules}


@dataclass(frozen=True)
class _Input:
    """One piece of text assembled into a run's prompt, with where it came from."""

    path: str
    key: str
    text: str
    source: SourceText
    where: str


def _load_jobs(path: Path) -> tuple[list[Any], Marks, KeyPath]:
    raw = read_bytes(path).decode("utf-8-sig")
    try:
        data = json.loads(raw)
    except ValueError:
        data = json.loads(raw, strict=False)
    if isinstance(data, dict):
        jobs = data.get("jobs", [])
        return (jobs if isinstance(jobs, list) else []), Marks(raw), ("jobs",)
    return (data if isinstance(data, list) else []), Marks(raw), ()


def _context_inputs(home: Home, job: dict[str, Any]) -> Iterator[_Input]:
    sources = job.get("context_from")
    listed = [sources] if isinstance(sources, str) else sources if isinstance(sources, list) else []
    for job_id in listed:
        if not job_id or not isinstance(job_id, str) or not set(job_id) <= _HEX:
            continue
        outputs = home.path / "cron" / "output" / job_id
        try:
            newest = max(outputs.glob("*.md"), key=lambda p: p.stat().st_mtime, default=None)
            raw = read_text(newest) if newest is not None else ""
        except (OSError, UnicodeDecodeError):
            continue
        text = raw.strip()[:CONTEXT_LIMIT]
        if newest is not None and text:
            yield _Input(str(newest), f"context_from {job_id}", text,
                         SourceText(text, raw, 0, len(raw)),
                         f"pasted into job {job.get('id') or '?'}'s prompt at every run")


def _skill_inputs(home: Home, names: list[str]) -> Iterator[_Input]:
    skills = home.path / "skills"
    for name in names:
        if not _SKILL_NAME.fullmatch(name):
            continue  # not a name the runtime could resolve to a skill directory
        for skill_file in sorted(skills.glob(f"**/{name}/SKILL.md")) if skills.is_dir() else ():
            try:
                raw = read_text(skill_file)
            except (OSError, UnicodeDecodeError):
                continue
            yield _Input(str(skill_file), f"skill {name}", raw, SourceText(raw, raw, 0, len(raw)),
                         "appended to the job's prompt at every run")
            break


def _skill_names(job: dict[str, Any]) -> list[str]:
    skills = job.get("skills")
    if skills is None:
        skills = [job["skill"]] if job.get("skill") else []
    elif isinstance(skills, str):
        skills = [skills]
    return [str(n).strip() for n in skills if str(n).strip()] if isinstance(skills, list) else []


def _assemble(prompt: str, inputs: list[_Input], names: list[str]) -> str:
    """The run's prompt in the runtime's layout (``_build_job_prompt``), in soulscan's words.

    What matters to the scanners is the layout, not the wording: each injected output is
    fenced, each skill sits under a bracketed header, and the user prompt comes last, so no
    pattern can run from one piece into the next except where the runtime's layout lets it.
    """
    assembled = prompt
    for piece in inputs:
        if piece.key.startswith("context_from"):
            assembled = (f"## Output from job '{piece.key.split()[-1]}'\nEarlier output, as context."
                         f"\n\n```\n{piece.text}\n```\n\n{assembled}")
    assembled = "[Scheduled run.]\n\n" + assembled
    if not names:
        return assembled
    parts: list[str] = []
    loaded = {piece.key.split(" ", 1)[1] for piece in inputs if piece.key.startswith("skill ")}
    for piece in inputs:
        if piece.key.startswith("skill "):
            parts += ([""] if parts else []) + [f"[Skill {piece.key[6:]} loaded below.]", "",
                                                piece.text.strip()]
    missing = [name for name in names if name not in loaded]
    if missing:
        parts.insert(0, f"[Skills not found: {', '.join(missing)}.]")
    if assembled:
        parts += ["", f"Scheduled task given with the skills: {assembled}"]
    return "\n".join(parts)


def _hits(text: str, verdict: CronVerdict, packs: tuple[str, ...]) -> tuple[Hit, ...]:
    """Where the pattern (or invisible character) that blocked occurs in ``text``."""
    if not verdict.blocked or verdict.pattern_id is None:
        return ()
    if verdict.pattern_id == INVISIBLE_ID:
        return tuple(
            Hit(invisible_facts(INVISIBLE_ID, char, KIND), ORIGIN_RUNTIME, i, i + 1, EFFECT_BLOCKS_FILE)
            for i, char in enumerate(text)
            if char in CRON_INVISIBLE and not is_emoji_joiner(text, i))
    for pack in packs:
        rule = _rules_by_id(pack).get(verdict.pattern_id)
        if rule is not None:
            return tuple(Hit(Facts.of(rule), ORIGIN_RUNTIME, a, b, EFFECT_BLOCKS_FILE)
                         for a, b in rule_finditer(rule, text))
    return ()


def _summary(text: str, verdicts: list[tuple[str, CronVerdict]], where: str) -> RuntimeSummary:
    blocked = [(when, v) for when, v in verdicts if v.blocked]
    said = "; ".join(f"{when}: {'blocked by ' + str(v.pattern_id) if v.blocked else 'passes'}"
                     for when, v in verdicts)
    ids = tuple(dict.fromkeys(str(v.pattern_id) for _, v in blocked))
    action = "block" if blocked else "load"
    return RuntimeSummary(action, ids, len(text), 0 if blocked else len(text),
                          detail=f"{said}; {where}")


def cron_items(home: Home) -> list[AuditItem]:
    path = home.path / "cron" / "jobs.json"
    try:
        jobs, marks, base = _load_jobs(path)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return []
    items: list[AuditItem] = []
    for position, job in enumerate(jobs):
        if not isinstance(job, dict):
            continue
        prompt = str(job.get("prompt") or "")
        names = _skill_names(job)
        inputs = list(_context_inputs(home, job)) + list(_skill_inputs(home, names))
        has_data = bool(job.get("script")) or any(i.key.startswith("context_from") for i in inputs)
        assembled = _assemble(prompt, inputs, names)
        run = scan_cron_run(assembled, has_skills=bool(names), has_injected_data=has_data,
                            user_prompt=prompt)
        created = scan_cron_prompt(prompt)
        run_packs = (LOOSE_PACK,) if run.scan == "loose" else (STRICT_PACK, EXFIL_PACK)
        at_run = f"each run ({run.scan} scan; a block stops the job)"
        key = (*base, position, "prompt")
        prompt_hits = _hits(prompt, created, (STRICT_PACK, EXFIL_PACK)) or _hits(prompt, run.verdict, run_packs)
        items.append(AuditItem(
            str(path), KIND, key_path_text(key), marks.source(key, prompt),
            _summary(prompt, [("create/update", created), (at_run, run.verdict)],
                     "the job's user message"),
            hits=prompt_hits, scanned=True, reaches_model=not (created.blocked or run.verdict.blocked)))
        for piece in inputs:
            items.append(AuditItem(
                piece.path, KIND, piece.key, piece.source,
                _summary(piece.text, [(at_run, run.verdict)], piece.where),
                hits=_hits(piece.text, run.verdict, run_packs), scanned=True,
                reaches_model=not run.verdict.blocked))
    return items
