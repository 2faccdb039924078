"""``.skills_prompt_snapshot.json``: the cached skills index, and whether Hermes would serve it.

Mirrored (hermes-agent 0.19.0 ``agent/prompt_builder.py``): ``_build_skills_manifest``
walks the skills directory (``os.walk`` following links, pruning the excluded and, next
to a SKILL.md, the support directories) and records ``[st_mtime_ns, st_size]`` of every
SKILL.md and DESCRIPTION.md by relative path; ``_load_skills_snapshot`` serves the
snapshot when it is a JSON object of version 1 whose manifest equals that record —
there is no content check. A snapshot that is served but whose entries differ from
what the runtime would build from the files (``_build_snapshot_entry``: name and the
already-cut description; category descriptions) is forged (SS903); one that is not
served is stale (SS904) and will be rewritten.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from soulscan.audit.files import read_text
from soulscan.audit.report import AuditItem, Facts, Hit, surface_rule
from soulscan.audit.source import Marks, SourceText
from soulscan.hermes.skills_index import (
    EXCLUDED_SKILL_DIRS,
    SKILL_FILE,
    SKILL_SUPPORT_DIRS,
    SkillIndexEntry,
)
from soulscan.models import ORIGIN_HARDENED, RuntimeSummary

SNAPSHOT_FILE = ".skills_prompt_snapshot.json"
SNAPSHOT_VERSION = 1
INDEXED_FILES = (SKILL_FILE, "DESCRIPTION.md")
KIND = "skills-snapshot"


def disk_manifest(skills_dir: Path) -> dict[str, list[int]]:
    manifest: dict[str, list[int]] = {}
    base = os.path.join(str(skills_dir), "")
    for root, dirs, files in os.walk(str(skills_dir), followlinks=True):
        has_skill = SKILL_FILE in files
        dirs[:] = [d for d in dirs if d not in EXCLUDED_SKILL_DIRS
                   and not (has_skill and d in SKILL_SUPPORT_DIRS)]
        for name in INDEXED_FILES:
            if name in files:
                path = os.path.join(root, name)
                try:
                    info = os.stat(path)
                except OSError:
                    continue
                manifest[path[len(base):]] = [info.st_mtime_ns, info.st_size]
    return manifest


@dataclass(frozen=True)
class Snapshot:
    path: Path
    text: str
    data: dict[str, Any]
    marks: Marks
    served: bool  # the runtime uses it instead of reading the skills


def read_snapshot(home_path: Path) -> Snapshot | None:
    path = home_path / SNAPSHOT_FILE
    try:
        text = read_text(path)
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None if not path.exists() else Snapshot(path, "", {}, Marks(""), False)
    if not isinstance(data, dict):
        return Snapshot(path, text, {}, Marks(text), False)
    served = (data.get("version") == SNAPSHOT_VERSION
              and data.get("manifest") == disk_manifest(home_path / "skills"))
    return Snapshot(path, text, data, Marks(text), served)


def snapshot_entries(snapshot: Snapshot) -> list[tuple[int, dict[str, Any]]]:
    skills = snapshot.data.get("skills")
    return [(i, e) for i, e in enumerate(skills) if isinstance(e, dict)] \
        if isinstance(skills, list) else []


def _forged_hits(snapshot: Snapshot, disk: list[SkillIndexEntry],
                 categories: dict[str, str]) -> list[Hit]:
    rule = Facts.of(surface_rule("SS903"))
    on_disk = {(e.skill_name, e.category): e for e in disk}
    hits = []

    def hit(path: tuple[str | int, ...], detail: str) -> None:
        region = snapshot.marks.region(path) or (0, 0)
        hits.append(Hit(rule, ORIGIN_HARDENED, 0, 0, detail=detail, file_span=region))

    listed = set()
    for index, entry in snapshot_entries(snapshot):
        key = (str(entry.get("skill_name") or ""), str(entry.get("category") or "general"))
        listed.add(key)
        real = on_disk.get(key)
        if real is None:
            hit(("skills", index), f"no skill {key[1]}/{key[0]} on disk")
            continue
        name = str(entry.get("frontmatter_name") or key[0])
        if name != real.name:
            hit(("skills", index, "frontmatter_name"), "name differs from SKILL.md")
        if str(entry.get("description", "")) != real.description:
            hit(("skills", index, "description"), "description differs from SKILL.md")
    for key in on_disk.keys() - listed:
        hit(("skills",), f"skill {key[1]}/{key[0]} is missing from the snapshot")
    stored = snapshot.data.get("category_descriptions") or {}
    stored = {str(k): str(v) for k, v in stored.items()} if isinstance(stored, dict) else {}
    for category in sorted(stored.keys() | categories.keys()):
        if stored.get(category) != categories.get(category):
            hit(("category_descriptions", category) if category in stored
                else ("category_descriptions",), f"category {category} differs from DESCRIPTION.md")
    return hits


def snapshot_item(snapshot: Snapshot, disk: list[SkillIndexEntry],
                  categories: dict[str, str]) -> AuditItem:
    shown = str(snapshot.path)
    source = SourceText(snapshot.text, snapshot.text, 0, len(snapshot.text))
    if not snapshot.served:
        region = snapshot.marks.region(("manifest",)) or (0, 0)
        stale = Hit(Facts.of(surface_rule("SS904")), ORIGIN_HARDENED, 0, 0, file_span=region)
        runtime = RuntimeSummary("skip", detail="stale: Hermes ignores it and rebuilds the index "
                                                "from the skills on disk")
        return AuditItem(shown, KIND, "", source, runtime, analyze_kind=None, hits=(stale,),
                         reaches_model=False)
    hits = tuple(_forged_hits(snapshot, disk, categories))
    runtime = RuntimeSummary("load", (), len(snapshot.text), len(snapshot.text), detail=(
        "served as the skills index: its manifest matches the skills on disk and Hermes "
        "checks nothing else; not scanned by Hermes"))
    return AuditItem(shown, KIND, "", source, runtime, analyze_kind=None, hits=hits)
