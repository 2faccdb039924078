"""Structural checks and the whole-skill scan of the Hermes 0.19.0 skills guard.

Facts (hermes-agent 0.19.0, `tools/skills_guard.py` on Python 3.11):

* Entries are visited in ``Path.rglob("*")`` order: each directory's ``scandir``
  order, directories pre-order, never descending into a symlinked directory, dot
  files included. Regular files and symlinks (not directories, FIFOs, sockets) not
  excluded by `.skillignore` count towards ``too_many_files`` (more than 50).
* A symlink whose resolved target is outside the resolved skill directory is
  ``symlink_escape`` (critical); a symlink whose resolution raises ``OSError`` is
  ``broken_symlink``; a dangling link resolves without error and is no finding. A
  symbolic-link loop makes ``Path.resolve`` raise ``RuntimeError``, which aborts the
  runtime's whole scan: soulscan reports that as ``SkillScanAborted``.
* For other entries: more than 256 KiB is ``oversized_file``, a suffix from
  ``SUSPICIOUS_BINARY_EXTENSIONS`` is ``binary_file`` (critical), an executable bit
  on anything but .sh/.bash/.py/.rb/.pl is ``unexpected_executable``; all sizes
  summed over 1 MiB is ``oversized_skill`` (high).
* Then every entry that ``is_file()`` (symlinks followed) and is not ignored gets
  the per-line pattern scan, under its relative path.
* A path that is a file is scanned alone, with no structural checks or ignore file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from soulscan.hermes.skill_ignore import IgnoreMatcher, ignore_matcher
from soulscan.hermes.skills_guard import GuardFinding, is_scannable, scan_file, verdict_of

MAX_FILE_COUNT = 50
MAX_TOTAL_BYTES = 1024 * 1024
MAX_SINGLE_FILE_BYTES = 256 * 1024
SUSPICIOUS_BINARY_EXTENSIONS = frozenset({
    ".exe", ".dll", ".so", ".dylib", ".bin", ".dat", ".com", ".msi", ".dmg", ".app", ".deb",
    ".rpm",
})
SCRIPT_EXTENSIONS = frozenset({".sh", ".bash", ".py", ".rb", ".pl"})
DIRECTORY_LABEL = "(directory)"


class SkillScanAborted(Exception):
    """The runtime's scan would raise instead of returning a verdict (a symlink loop)."""


@dataclass(frozen=True)
class SkillScan:
    skill_name: str
    findings: tuple[GuardFinding, ...]
    # Files over ``scan_skill``'s ``max_file_bytes``: the runtime would scan them, soulscan
    # did not, so the verdict is incomplete (relative paths).
    unscanned: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        return verdict_of(self.findings)


def _directories(root: Path) -> Iterator[Path]:
    yield root
    try:
        with os.scandir(root) as scan:
            entries = list(scan)
    except PermissionError:
        return
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if is_dir:
            yield from _directories(root / entry.name)


def walk_entries(root: Path) -> Iterator[Path]:
    """Every entry below ``root`` in the order Python 3.11's ``rglob("*")`` yields it."""
    for directory in _directories(root):
        try:
            with os.scandir(directory) as scan:
                names = [entry.name for entry in scan]
        except PermissionError:
            continue
        for name in names:
            yield directory / name


def _structural(kind: str, severity: str, rel: str, match: str) -> GuardFinding:
    category = "traversal" if kind in ("symlink_escape", "broken_symlink") else "structural"
    return GuardFinding(kind, severity, category, rel, 0, match)


def _symlink_finding(entry: Path, rel: str, root_resolved: Path) -> GuardFinding | None:
    try:
        resolved = entry.resolve()
    except OSError:
        return _structural("broken_symlink", "medium", rel, "broken symlink")
    except RuntimeError as exc:  # Python 3.11 reports a symlink loop this way
        raise SkillScanAborted(f"symlink loop at {rel}") from exc
    if resolved.is_relative_to(root_resolved):
        return None
    return _structural("symlink_escape", "critical", rel, f"symlink -> {resolved}")


def _file_findings(entry: Path, rel: str, size: int) -> list[GuardFinding]:
    findings: list[GuardFinding] = []
    if size > MAX_SINGLE_FILE_BYTES:
        findings.append(_structural("oversized_file", "medium", rel, f"{size // 1024}KB"))
    suffix = entry.suffix.lower()
    if suffix in SUSPICIOUS_BINARY_EXTENSIONS:
        findings.append(_structural("binary_file", "critical", rel, f"binary: {suffix}"))
    if suffix not in SCRIPT_EXTENSIONS and entry.stat().st_mode & 0o111:
        findings.append(_structural("unexpected_executable", "medium", rel, "executable bit set"))
    return findings


def check_structure(root: Path, ignore: IgnoreMatcher) -> list[GuardFinding]:
    findings: list[GuardFinding] = []
    root_resolved = root.resolve()
    count = total = 0
    for entry in walk_entries(root):
        if not entry.is_file() and not entry.is_symlink():
            continue
        rel = str(entry.relative_to(root))
        if ignore(rel):
            continue
        count += 1
        if entry.is_symlink():
            finding = _symlink_finding(entry, rel, root_resolved)
            if finding is not None:
                findings.append(finding)
            continue
        try:
            size = entry.stat().st_size
        except OSError:
            continue
        total += size
        findings.extend(_file_findings(entry, rel, size))
    if count > MAX_FILE_COUNT:
        findings.append(_structural("too_many_files", "medium", DIRECTORY_LABEL, f"{count} files"))
    if total > MAX_TOTAL_BYTES:
        findings.append(_structural(
            "oversized_skill", "high", DIRECTORY_LABEL, f"{total // 1024}KB total"))
    return findings


def _too_big(path: Path, limit: int | None) -> bool:
    if limit is None:
        return False
    try:
        return path.stat().st_size > limit
    except OSError:
        return False


def scan_skill(path: Path, *, max_file_bytes: int | None = None) -> SkillScan:
    """The guard's findings for a skill directory, or for one file given alone.

    ``max_file_bytes`` keeps soulscan from reading huge files a hostile skill may carry;
    those are listed in ``unscanned`` (the runtime itself has no such limit).
    """
    findings: list[GuardFinding] = []
    unscanned: list[str] = []
    files: list[tuple[Path, str]] = []
    if path.is_dir():
        ignore = ignore_matcher(path)
        findings.extend(check_structure(path, ignore))
        for entry in walk_entries(path):
            rel = str(entry.relative_to(path))
            if entry.is_file() and not ignore(rel):
                files.append((entry, rel))
    elif path.is_file():
        files.append((path, path.name))
    for entry, rel in files:
        if _too_big(entry, max_file_bytes) and is_scannable(entry):
            unscanned.append(rel)
        else:
            findings.extend(scan_file(entry, rel))
    return SkillScan(path.name, tuple(findings), tuple(unscanned))
