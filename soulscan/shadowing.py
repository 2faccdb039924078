"""Which scanned project files Hermes, started in their directory, never loads.

Hermes 0.19.0 loads one project-context source per working directory, the first step
that yields a section: the `.hermes.md`/`HERMES.md` found first walking up to the git
root (final even when empty), then `AGENTS.md`/`agents.md`, then `CLAUDE.md`/`claude.md`,
then the cursor bundle (`.cursorrules` and `.cursor/rules/*.mdc` together). A skipped
file (empty, unreadable, invalid UTF-8) yields nothing; a blocked one still wins with its
placeholder. Each file keeps its own verdict in the report (that is what Hermes does
when the file is the one loaded, e.g. as a subdirectory hint); these notes name the
files that lose to another one when Hermes starts in their directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from soulscan.hermes.sources import find_hermes_md
from soulscan.models import FileResult
from soulscan.report.escape import escape_text

PROJECT_KINDS = ("hermes", "agents", "claude", "cursorrules", "mdc")
_ORDER = {"AGENTS.md": 0, "agents.md": 1, "CLAUDE.md": 0, "claude.md": 1}


def _project_directory(result: FileResult) -> Path:
    path = Path(result.path)
    return path.parent.parent.parent if result.kind == "mdc" else path.parent


def shadowing_notes(results: Iterable[FileResult]) -> list[str]:
    """One note per scanned, loadable project file that Hermes skips for another one."""
    results = list(results)
    # Indexed by resolved path once: a lookup per directory, not a scan of every
    # .hermes.md per directory (quadratic on a tree of thousands of directories).
    hermes_files = _by_resolved_path(
        r for r in results if r.kind == "hermes" and r.path != "<stdin>")
    by_directory: dict[str, list[FileResult]] = {}
    for result in results:
        if result.kind in PROJECT_KINDS and result.path != "<stdin>":
            directory = os.path.normpath(_project_directory(result))
            by_directory.setdefault(directory, []).append(result)
    notes: list[str] = []
    for directory, members in by_directory.items():
        for loser, winner in _losers(Path(directory), members, hermes_files):
            notes.append(
                f"{escape_text(loser.path)}: Hermes started in {escape_text(directory)} "
                f"loads {escape_text(winner)} instead"
            )
    return notes


def _by_resolved_path(results: Iterable[FileResult]) -> dict[Path, FileResult]:
    index: dict[Path, FileResult] = {}
    for result in results:
        try:
            index.setdefault(Path(result.path).resolve(), result)
        except OSError:
            continue
    return index


def _losers(
    directory: Path, members: list[FileResult], hermes_files: dict[Path, FileResult]
) -> list[tuple[FileResult, str]]:
    loadable = [m for m in members if m.runtime.action != "skip"]
    try:
        found = find_hermes_md(directory)
    except OSError:  # an unreadable parent directory: no claim either way
        return []
    if found is not None:
        # It may sit in a parent directory (Hermes walks up to the git root).
        try:
            scanned = hermes_files.get(found.resolve())
        except OSError:
            scanned = None
        if scanned is None:
            # Found by Hermes but not scanned here: its verdict is unknown, so say nothing.
            return []
        if scanned.runtime.action != "skip":
            return [(m, scanned.path) for m in loadable if m is not scanned]
    # The hermes step yields nothing: any other `.hermes.md`/`HERMES.md` is never read.
    winner = None
    for kind in ("agents", "claude"):
        candidates = sorted(
            (m for m in loadable if m.kind == kind), key=lambda m: _ORDER.get(Path(m.path).name, 2)
        )
        if candidates:
            winner = candidates[0]
            break
    cursor = [m for m in loadable if m.kind in ("cursorrules", "mdc")]
    if winner is None and cursor:
        return [(m, "the cursor rules") for m in loadable if m.kind == "hermes"]
    if winner is None:
        return []
    return [(m, winner.path) for m in loadable if m is not winner]
