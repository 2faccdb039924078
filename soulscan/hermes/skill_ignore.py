"""`.skillignore` / `.clawhubignore` matching as the Hermes 0.19.0 skills guard does it.

Facts (hermes-agent 0.19.0, `tools/skills_guard.py`): both files are read (strict
UTF-8, a failing one is skipped); blank lines and ``#`` lines are dropped; a leading
``/`` anchors a pattern, a trailing ``/`` makes it a directory pattern; globs are
``fnmatch`` (case-sensitive on POSIX) against the whole relative path and, when not
anchored, against the base name, every path segment and a leading directory prefix.
A `SKILL.md` anywhere is never ignored; the ignore files themselves always are.
The excluded paths skip both the structural checks and the pattern scan.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from pathlib import Path, PurePath

IGNORE_FILE_NAMES = (".skillignore", ".clawhubignore")
NEVER_IGNORED = "SKILL.md"

IgnoreMatcher = Callable[[str], bool]


def read_ignore_patterns(skill_dir: Path) -> tuple[str, ...]:
    patterns: list[str] = []
    for name in IGNORE_FILE_NAMES:
        candidate = skill_dir / name
        try:
            if not candidate.is_file():
                continue
            # Universal newlines then splitlines(), as the runtime's read_text().splitlines().
            text = candidate.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for raw in text.splitlines():
            line = raw.strip()
            if line and not line.startswith("#"):
                patterns.append(line)
    return tuple(patterns)


def _directory_pattern_hits(rel: str, pattern: str, anchored: bool) -> bool:
    if rel == pattern or rel.startswith(pattern + "/"):
        return True
    return not anchored and f"/{pattern}/" in f"/{rel}/"


def _glob_pattern_hits(rel: str, base: str, pattern: str, anchored: bool) -> bool:
    if fnmatch.fnmatch(rel, pattern):
        return True
    if anchored:
        return False
    if fnmatch.fnmatch(base, pattern):
        return True
    if "/" not in pattern and any(fnmatch.fnmatch(seg, pattern) for seg in rel.split("/")):
        return True
    return rel.startswith(pattern + "/")


def is_ignored(rel_path: str, patterns: tuple[str, ...]) -> bool:
    rel = PurePath(rel_path).as_posix()
    base = rel.split("/")[-1]
    if base == NEVER_IGNORED:
        return False
    if base in IGNORE_FILE_NAMES:
        return True
    for raw in patterns:
        anchored = raw.startswith("/")
        pattern = raw.lstrip("/")
        directory = pattern.endswith("/")
        pattern = pattern.rstrip("/")
        if not pattern:
            continue
        if directory:
            if _directory_pattern_hits(rel, pattern, anchored):
                return True
        elif _glob_pattern_hits(rel, base, pattern, anchored):
            return True
    return False


def ignore_matcher(skill_dir: Path) -> IgnoreMatcher:
    patterns = read_ignore_patterns(skill_dir)
    return lambda rel_path: is_ignored(rel_path, patterns)
