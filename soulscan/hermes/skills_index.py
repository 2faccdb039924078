"""What of a skill enters Hermes 0.19.0's always-present skills index.

Facts (hermes-agent 0.19.0, `agent/skill_utils.py`, `agent/prompt_builder.py`):

* SKILL.md and DESCRIPTION.md files are found by ``os.walk(followlinks=True)`` under the
  skills directory, pruning ``EXCLUDED_SKILL_DIRS`` everywhere and the support
  directories (references/templates/assets/scripts) of a directory holding a SKILL.md;
  paths are sorted.
* Frontmatter: one leading U+FEFF is dropped; the text must start with ``---`` and the
  YAML ends at the first ``\\n---\\s*\\n`` after index 3. A mapping from the YAML safe
  loader (the C one when available) is the frontmatter; a YAML error falls back to
  ``key: value`` lines; anything else is no frontmatter.
* The index shows ``str(name)`` (default: the skill's directory name) **uncut**, and the
  description stripped of whitespace and then of quote characters, cut to 57 characters
  plus ``...`` only when longer than 60. A falsy description shows nothing.
* A SKILL.md that cannot be read still enters the index, under its directory name.
* ``platforms`` hides a skill on other operating systems; ``environments`` naming only
  kanban/docker/s6 hides it unless one of those is active on the runtime's machine.
* A category's DESCRIPTION.md ``description`` is shown uncut (stripped, then quotes).
* A truthy ``platforms`` value that is neither a string nor iterable (``platforms: 42``,
  ``true``, a date) makes the runtime's snapshot step raise ``TypeError``, which nothing
  catches: building the skills index, and with it the system prompt, fails. soulscan
  raises ``SkillIndexCrash`` for it.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from soulscan.hermes.sources import decode_runtime_text

SKILL_FILE = "SKILL.md"
CATEGORY_FILE = "DESCRIPTION.md"
DESCRIPTION_LIMIT = 60
DESCRIPTION_CUT = 57
DEFAULT_CATEGORY = "general"
EXCLUDED_SKILL_DIRS = frozenset({
    ".git", ".github", ".hub", ".archive", ".venv", "venv", "node_modules", "site-packages",
    "__pycache__", ".tox", ".nox", ".pytest_cache", ".mypy_cache", ".ruff_cache",
})
SKILL_SUPPORT_DIRS = frozenset({"references", "templates", "assets", "scripts"})
PLATFORM_MAP = {"macos": "darwin", "linux": "linux", "windows": "win32"}
KNOWN_ENVIRONMENTS = frozenset({"kanban", "docker", "s6"})

# The runtime's own fence pattern (Python `re`, run with Python `re`).
_CLOSING_FENCE = re.compile(r"\n---\s*\n")
_LOADER: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


class SkillIndexCrash(Exception):
    """The runtime's skills-index build raises on this SKILL.md (see the module notes)."""


@dataclass(frozen=True)
class SkillIndexEntry:
    path: str  # SKILL.md, relative to the skills directory
    skill_name: str  # the directory name
    category: str
    name: str  # what the index shows
    description: str  # what the index shows when the skill is offered (already cut)
    platform_ok: bool  # False: never offered on this operating system
    # Known environment tags of which one must be active for the skill to be offered;
    # () when it is always offered, ("",) when no tag is left after stripping.
    environments: tuple[str, ...] = ()

    def index_line(self) -> str:
        return f"    - {self.name}: {self.description}" if self.description else f"    - {self.name}"


def parse_frontmatter(content: str) -> dict[Any, Any]:
    content = content.removeprefix("\ufeff")
    if not content.startswith("---"):
        return {}
    closing = _CLOSING_FENCE.search(content[3:])
    if closing is None:
        return {}
    block = content[3:closing.start() + 3]
    try:
        parsed = yaml.load(block, Loader=_LOADER)
    except Exception:  # noqa: BLE001 - the runtime falls back on any loader failure
        fallback: dict[Any, Any] = {}
        for line in block.strip().split("\n"):
            if ":" in line:
                key, value = line.split(":", 1)
                fallback[key.strip()] = value.strip()
        return fallback
    return parsed if isinstance(parsed, dict) else {}


def shown_description(raw: Any) -> str:
    if not raw:
        return ""
    text = str(raw).strip().strip("'\"")
    return text[:DESCRIPTION_CUT] + "..." if len(text) > DESCRIPTION_LIMIT else text


def platform_ok(frontmatter: dict[Any, Any], platform: str = sys.platform) -> bool:
    platforms = frontmatter.get("platforms")
    if not platforms:
        return True
    if not isinstance(platforms, list):
        platforms = [platforms]
    for item in platforms:
        wanted = str(item).lower().strip()
        if platform.startswith(PLATFORM_MAP.get(wanted, wanted)):
            return True
    return False


def environment_gate(frontmatter: dict[Any, Any]) -> tuple[str, ...]:
    """The known environments one of which must be active; () when the skill is always offered."""
    environments = frontmatter.get("environments")
    if not environments:
        return ()
    if not isinstance(environments, list):
        environments = [environments]
    tags = [str(env).lower().strip() for env in environments]
    tags = [tag for tag in tags if tag]
    if any(tag not in KNOWN_ENVIRONMENTS for tag in tags):
        return ()  # an unknown tag never hides a skill
    return tuple(tags) if tags else ("",)


def _place(rel: Path, skills_dir: Path) -> tuple[str, str]:
    parts = rel.parts
    if len(parts) >= 2:
        category = "/".join(parts[:-2]) if len(parts) > 2 else parts[0]
        return parts[-2], category
    return skills_dir.name, DEFAULT_CATEGORY


def index_entry(skill_file: Path, skills_dir: Path) -> SkillIndexEntry:
    rel = skill_file.relative_to(skills_dir)
    skill_name, category = _place(rel, skills_dir)
    try:
        frontmatter = parse_frontmatter(decode_runtime_text(skill_file.read_bytes()))
    except (OSError, UnicodeDecodeError):
        frontmatter = {}
    platforms = frontmatter.get("platforms") or []
    if not isinstance(platforms, str):
        try:
            iter(platforms)
        except TypeError as exc:
            raise SkillIndexCrash(
                f"{rel.as_posix()}: 'platforms' is a {type(platforms).__name__}; the runtime's "
                "skills index build raises TypeError") from exc
    return SkillIndexEntry(
        rel.as_posix(), skill_name, category, str(frontmatter.get("name", skill_name)),
        shown_description(frontmatter.get("description", "")), platform_ok(frontmatter),
        environment_gate(frontmatter))


def category_description(content: str) -> str | None:
    raw = parse_frontmatter(content).get("description")
    return str(raw).strip().strip("'\"") if raw else None


def category_of(description_file: Path, skills_dir: Path) -> str:
    parts = description_file.relative_to(skills_dir).parts
    return "/".join(parts[:-1]) if len(parts) > 1 else DEFAULT_CATEGORY


def iter_index_files(skills_dir: Path, filename: str) -> list[Path]:
    found: list[str] = []
    for root, dirs, files in os.walk(str(skills_dir), followlinks=True):
        has_skill = SKILL_FILE in files
        dirs[:] = [d for d in dirs if d not in EXCLUDED_SKILL_DIRS
                   and not (has_skill and d in SKILL_SUPPORT_DIRS)]
        if filename in files:
            found.append(os.path.join(root, filename))
    return [Path(p) for p in sorted(found)]
