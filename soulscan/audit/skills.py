"""The skills tree of a home: the guard's verdict per skill and the always-present index.

* Each skill directory gets the Hermes 0.19.0 skills guard's verdict and install
  decision (``soulscan.skill_report``, the runtime's ``tools/skills_guard.scan_skill``);
  a skill already on disk is not rescanned when it is loaded.
* ``skills.external_dirs`` (``agent/skill_utils.get_external_skills_dirs``: ``~`` and
  ``$VAR`` expanded, relative to the home, resolved, existing directories other than the
  home's own ``skills/``, each once) are read directly, never cached in the snapshot and
  never scanned by the guard; a skill whose name the home's own skills already use is
  left out of the index, and a category description the home already has wins.
* The skills index (``agent/prompt_builder.build_skills_system_prompt``) puts every
  skill's name (uncut) and description (cut to 57 characters plus ``...``) and every
  category's DESCRIPTION.md description (uncut) into the stable system prompt, unscanned.
  When the snapshot is served (``soulscan.audit.snapshot``) its text is what the model
  sees, so the index items are read from it; otherwise from the files.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from soulscan.audit.files import is_unreadable_special, read_bytes
from soulscan.audit.homes import Home, config_section
from soulscan.audit.report import AuditItem, unscanned
from soulscan.audit.snapshot import Snapshot, read_snapshot, snapshot_entries, snapshot_item
from soulscan.audit.source import SourceText
from soulscan.hermes.skills_index import (
    CATEGORY_FILE,
    SKILL_FILE,
    SkillIndexCrash,
    SkillIndexEntry,
    category_description,
    category_of,
    index_entry,
    iter_index_files,
)
from soulscan.hermes.sources import decode_runtime_text
from soulscan.models import FileResult, ScanError
from soulscan.skill_report import skill_report

INDEX_KIND = "skill-index"
INDEX = "the skills index of the stable system prompt"
INSTALLED = "installed: Hermes never rescans it when loading; as a community install: "
EXTERNAL = "external skills directory: Hermes never scans it; as a community install: "


def _read(path: Path) -> str:
    try:
        return decode_runtime_text(read_bytes(path))
    except (OSError, UnicodeDecodeError):
        return ""


def _disk_index(skills_dir: Path) -> tuple[list[SkillIndexEntry], dict[str, str], list[ScanError]]:
    entries, errors = [], []
    for skill_file in iter_index_files(skills_dir, SKILL_FILE):
        if is_unreadable_special(skill_file):
            errors.append(ScanError(str(skill_file), "not a regular file; not read (reading it "
                                                     "would block the runtime too)"))
            continue
        try:
            entries.append(index_entry(skill_file, skills_dir))
        except SkillIndexCrash as exc:
            errors.append(ScanError(str(skill_file), f"the runtime's skills index build crashes: {exc}"))
    categories = {}
    for description_file in iter_index_files(skills_dir, CATEGORY_FILE):
        text = _read(description_file)
        described = category_description(text) if text else None
        if described:
            categories[category_of(description_file, skills_dir)] = described
    return entries, categories, errors


def _item(path: Path | str, key: str, text: str, source: SourceText, where: str) -> AuditItem:
    return AuditItem(str(path), INDEX_KIND, key, source, unscanned(where, len(text)))


def external_skill_dirs(home: Home) -> list[Path]:
    raw = config_section(home, "skills", "external_dirs")
    listed = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    local = (home.path / "skills").resolve()
    found: list[Path] = []
    for entry in listed:
        text = str(entry).strip()
        if not text:
            continue
        path = Path(os.path.expanduser(os.path.expandvars(text)))
        path = (path if path.is_absolute() else home.path / path).resolve()
        if path != local and path not in found and path.is_dir():
            found.append(path)
    return found


def _disk_items(skills_dir: Path, entries: list[SkillIndexEntry], categories: dict[str, str],
                skip_names: frozenset[str] = frozenset()) -> list[AuditItem]:
    items = []
    for entry in entries:
        if not entry.platform_ok or entry.name in skip_names:
            continue
        skill_file = skills_dir / entry.path
        raw = _read(skill_file)
        for key, text in (("name", entry.name), ("description", entry.description)):
            if text:
                items.append(_item(skill_file, key, text, SourceText(text, raw, 0, len(raw)),
                                   f"{INDEX} ({entry.category}/{entry.skill_name})"))
    for category, text in categories.items():
        described = skills_dir / category / CATEGORY_FILE if category != "general" \
            else skills_dir / CATEGORY_FILE
        raw = _read(described)
        items.append(_item(described, "description", text, SourceText(text, raw, 0, len(raw)),
                           f"{INDEX} (category {category})"))
    return items


def _snapshot_items(snapshot: Snapshot) -> list[AuditItem]:
    items = []
    for index, entry in snapshot_entries(snapshot):
        label = f"{entry.get('category') or 'general'}/{entry.get('skill_name') or ''}"
        name = str(entry.get("frontmatter_name") or entry.get("skill_name") or "")
        description = str(entry.get("description") or "")
        for field, text in (("frontmatter_name", name), ("description", description)):
            if text:
                items.append(_item(snapshot.path, f"skills[{index}].{field}", text,
                                   snapshot.marks.source(("skills", index, field), text),
                                   f"{INDEX} ({label}), served from the snapshot"))
    stored = snapshot.data.get("category_descriptions")
    for category, text in (stored.items() if isinstance(stored, dict) else ()):
        items.append(_item(snapshot.path, f"category_descriptions.{category}", str(text),
                           snapshot.marks.source(("category_descriptions", str(category)), str(text)),
                           f"{INDEX} (category {category}), served from the snapshot"))
    return items


def _guard_results(entries: list[SkillIndexEntry], skills_dir: Path, profile: str, prefix: str,
                   errors: list[ScanError]) -> list[FileResult]:
    results: list[FileResult] = []
    for entry in entries:
        skill_dir = (skills_dir / entry.path).parent
        category_file = skill_dir.parent / CATEGORY_FILE
        if is_unreadable_special(category_file):  # the guard's index note would block on it
            errors.append(ScanError(str(category_file), "not a regular file; the skills guard "
                                                        f"is not run for {skill_dir.name}"))
            continue
        report = skill_report(skill_dir, profile=profile, display=str(skill_dir))
        errors.extend(report.errors)
        for number, result in enumerate(report.files):
            if number == 0:  # the skill itself: say that a skill on disk is not rescanned
                runtime = dataclasses.replace(result.runtime, detail=prefix + (result.runtime.detail or ""))
                result = dataclasses.replace(result, runtime=runtime)
            results.append(result)
    return results


def skill_results(home: Home, profile: str) -> tuple[list[FileResult], list[AuditItem], list[ScanError]]:
    """Guard results per skill, index and snapshot items, and index-build errors."""
    skills_dir = home.path / "skills"
    results: list[FileResult] = []
    items: list[AuditItem] = []
    errors: list[ScanError] = []
    names: set[str] = set()
    known_categories: set[str] = set()
    if skills_dir.is_dir():
        entries, categories, errors = _disk_index(skills_dir)
        results += _guard_results(entries, skills_dir, profile, INSTALLED, errors)
        snapshot = read_snapshot(home.path)
        if snapshot is not None:
            items.append(snapshot_item(snapshot, entries, categories))
        if snapshot is not None and snapshot.served:
            items.extend(_snapshot_items(snapshot))
        else:
            items.extend(_disk_items(skills_dir, entries, categories))
        names = {e.name for e in entries if e.platform_ok}
        known_categories = set(categories)
    for external in external_skill_dirs(home):
        entries, categories, external_errors = _disk_index(external)
        errors += external_errors
        results += _guard_results(entries, external, profile, EXTERNAL, errors)
        fresh = {c: t for c, t in categories.items() if c not in known_categories}
        items.extend(_disk_items(external, entries, fresh, frozenset(names)))
        names |= {e.name for e in entries if e.platform_ok}
        known_categories |= set(fresh)
    return results, items, errors
