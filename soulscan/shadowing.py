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

import errno
import os
import stat
from collections.abc import Callable, Iterable
from typing import NamedTuple

from soulscan.hermes.sources import HERMES_MD_NAMES
from soulscan.models import FileResult
from soulscan.report.escape import escape_text

PROJECT_KINDS = ("hermes", "agents", "claude", "cursorrules", "mdc")
# The errors pathlib's exists()/is_file() read as "not there" rather than raising.
_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})
_ORDER = {"AGENTS.md": 0, "agents.md": 1, "CLAUDE.md": 0, "claude.md": 1}


class ScannedFile(NamedTuple):
    """What the notes ask of a scanned file: a ``scan -j N`` worker is sent these as plain
    tuples (``notes_on``), not the results with their findings, to work them out."""

    path: str
    kind: str
    action: str  # the runtime's: load, block, truncate or skip


def _project_directory(result: ScannedFile) -> str:
    """The directory Hermes starts in to load ``result`` (normalised by the caller)."""
    directory = os.path.dirname(result.path)
    if result.kind == "mdc":  # <directory>/.cursor/rules/<name>.mdc
        directory = os.path.dirname(os.path.dirname(directory))
    return directory


def shadowing_notes(results: Iterable[FileResult]) -> list[str]:
    """One note per scanned, loadable project file that Hermes skips for another one."""
    return notes_on([(r.path, r.kind, r.runtime.action) for r in results])


def notes_on(files: Iterable[tuple[str, str, str]]) -> list[str]:
    """``shadowing_notes`` of the files' (path, kind, runtime action), in their order."""
    results = list(map(ScannedFile._make, files))
    # Indexed by resolved path once: a lookup per directory, not a scan of every
    # .hermes.md per directory (quadratic on a tree of thousands of directories).
    realpath = RealPaths()
    hermes_files = _by_resolved_path(
        (r for r in results if r.kind == "hermes" and r.path != "<stdin>"), realpath)
    finder = _HermesFinder(realpath)
    by_directory: dict[str, list[ScannedFile]] = {}
    for result in results:
        if result.kind in PROJECT_KINDS and result.path != "<stdin>":
            directory = os.path.normpath(_project_directory(result))
            by_directory.setdefault(directory, []).append(result)
    notes: list[str] = []
    for directory, members in by_directory.items():
        for loser, winner in _losers(directory, members, hermes_files, finder, realpath):
            notes.append(
                f"{escape_text(loser.path)}: Hermes started in {escape_text(directory)} "
                f"loads {escape_text(winner)} instead"
            )
    return notes


def _by_resolved_path(
    results: Iterable[ScannedFile], realpath: Callable[[str], str]
) -> dict[str, ScannedFile]:
    index: dict[str, ScannedFile] = {}
    for result in results:
        try:
            index.setdefault(realpath(result.path), result)
        except (OSError, ValueError):
            continue
    return index


class _HermesFinder:
    """``soulscan.hermes.sources.find_hermes_md`` for many directories of one tree.

    Thousands of sibling directories share their ancestors, so whether a directory
    holds a `.git` entry, and which `.hermes.md`/`HERMES.md` it holds, is asked of the
    file system once per directory, not once per directory below it.
    """

    def __init__(self, realpath: Callable[[str], str]) -> None:
        self._realpath = realpath
        self._has_git: dict[str, bool] = {}
        self._hermes_in: dict[str, str | None] = {}

    def find(self, directory: str) -> str | None:
        """The first `.hermes.md`/`HERMES.md` regular file on the walk from ``directory``
        to its git root (``directory`` alone outside a repository), as a path."""
        current = self._realpath(directory)
        # The walk starts at ``directory`` inside a repository or not: its own file ends it
        # before the git root matters (one lookup, not the root's up the whole chain).
        found = self._hermes_file(current)
        if found is not None:
            return found
        chain = _ancestors(current)
        git_root = next((d for d in chain if self._git_entry(d)), None)
        for candidate_directory in chain if git_root is not None else chain[:1]:
            found = self._hermes_file(candidate_directory)
            if found is not None:
                return found
            if candidate_directory == git_root:
                break
        return None

    def _git_entry(self, directory: str) -> bool:
        if directory not in self._has_git:
            self._has_git[directory] = _mode(os.path.join(directory, ".git")) is not None
        return self._has_git[directory]

    def _hermes_file(self, directory: str) -> str | None:
        if directory not in self._hermes_in:
            candidates = (os.path.join(directory, name) for name in HERMES_MD_NAMES)
            self._hermes_in[directory] = next(
                (path for path in candidates if stat.S_ISREG(_mode(path) or 0)), None)
        return self._hermes_in[directory]


class RealPaths:
    """``os.path.realpath`` for many paths of one tree, each directory resolved once.

    ``realpath`` asks the file system about every part of a path (``lstat`` each), so the
    thousands of files of a tree asked their ancestors' questions again and again. Here an
    absolute, normalised path is its resolved parent joined with its name, unless that
    name is a symbolic link (then ``realpath`` itself answers); anything else (``..``, a
    leading ``//``) goes to ``realpath`` as it is. A relative path (a tree scanned as
    ``.``) is its absolute name (``getcwd`` is resolved) when no part of that is a link;
    through a link ``realpath`` answers for it as named (a loop reads differently from a
    relative name).
    """

    def __init__(self) -> None:
        self._known: dict[str, str] = {}
        self._linkless: set[str] = {"/"}  # absolute paths with no link in any part
        self._cwd: str | None = None

    def __call__(self, path: str) -> str:
        known = self._known.get(path)
        if known is not None:
            return known
        if path.startswith("/"):
            resolved = self._resolve(path)
        else:
            absolute = os.path.join(self._getcwd(), path)
            self(absolute)  # Hermes's finds name the same files absolutely: resolved once
            resolved = absolute if absolute in self._linkless else os.path.realpath(path)
        self._known[path] = resolved
        return resolved

    def _getcwd(self) -> str:
        if self._cwd is None:
            self._cwd = os.getcwd()
        return self._cwd

    def _resolve(self, path: str) -> str:
        """An absolute path's resolved name (``__call__`` sends only those here)."""
        if path.startswith("//") or os.path.normpath(path) != path:
            return os.path.realpath(path)
        # Up to the nearest ancestor known, then down from it, a loop and not a recursion:
        # a tree may be deeper than Python's recursion limit.
        unknown: list[str] = []
        while path not in self._known:
            parent, name = os.path.split(path)
            if not name:  # the root
                self._known[path] = os.path.realpath(path)
                break
            unknown.append(path)
            path = parent
        for path in reversed(unknown):
            parent, name = os.path.split(path)
            candidate = os.path.join(self._known[parent], name)
            try:
                is_link = stat.S_ISLNK(os.lstat(candidate).st_mode)
            except OSError:  # as realpath reads it (strict=False): not a link, kept as named
                is_link = False
            if is_link:
                self._known[path] = os.path.realpath(path)
            else:
                self._known[path] = candidate
                if parent in self._linkless:
                    self._linkless.add(path)
        return self._known[path]


def _mode(path: str) -> int | None:
    """The mode of ``path``, links followed; None where pathlib's ``exists()`` and
    ``is_file()`` say "not there" (absent, a dangling link, a loop). Any other failure
    (a parent that cannot be searched) raises, as it does for them."""
    try:
        return os.stat(path).st_mode
    except OSError as exc:
        if exc.errno in _ABSENT:
            return None
        raise


def _ancestors(directory: str) -> list[str]:
    """``directory`` (absolute, normalised) and each of its parents up to the root."""
    chain = [directory]
    while (parent := os.path.dirname(chain[-1])) != chain[-1]:
        chain.append(parent)
    return chain


def _losers(
    directory: str,
    members: list[ScannedFile],
    hermes_files: dict[str, ScannedFile],
    finder: _HermesFinder,
    realpath: Callable[[str], str],
) -> list[tuple[ScannedFile, str]]:
    loadable = [m for m in members if m.action != "skip"]
    try:
        found = finder.find(directory)
    except (OSError, ValueError):  # an unreadable parent directory: no claim either way
        return []
    if found is not None:
        # It may sit in a parent directory (Hermes walks up to the git root).
        try:
            scanned = hermes_files.get(realpath(found))
        except (OSError, ValueError):
            scanned = None
        if scanned is None:
            # Found by Hermes but not scanned here: its verdict is unknown, so say nothing.
            return []
        if scanned.action != "skip":
            return [(m, scanned.path) for m in loadable if m is not scanned]
    # The hermes step yields nothing: any other `.hermes.md`/`HERMES.md` is never read.
    winner = None
    for kind in ("agents", "claude"):
        candidates = sorted(
            (m for m in loadable if m.kind == kind), key=lambda m: _ORDER.get(os.path.basename(m.path), 2)
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
