"""Paths on the command line → the files Hermes would read, each with its kind.

A kind names the runtime role a file plays and therefore how it is loaded and scanned:

=============  ============================================================
``soul``       ``SOUL.md`` (the identity slot, context scope)
``hermes``     ``.hermes.md`` / ``HERMES.md`` (frontmatter stripped)
``agents``     ``AGENTS.md`` / ``agents.md``
``claude``     ``CLAUDE.md`` / ``claude.md``
``cursorrules`` ``.cursorrules``
``mdc``        ``.cursor/rules/*.mdc`` (non-recursive, case-sensitive suffix)
``memory``     ``memories/MEMORY.md`` (strict scope, per entry)
``user``       ``memories/USER.md`` (strict scope, per entry)
=============  ============================================================

For a directory named on the command line, the `.hermes.md` / `HERMES.md` that Hermes
would find above it (walking up to the git root) is scanned too.

Walking skips ``.git``, ``.venv``, ``node_modules`` and any virtual environment (a
directory holding ``pyvenv.cfg``). It never follows symbolic links (Hermes does follow
them, so the skipped links are listed in a note), never opens anything, and turns every
problem (an unreadable directory, a FIFO or device with a context file's name, a
dangling link or link loop named on the command line) into a recorded ``ScanError``
instead of failing the run. Files come out in a stable order: arguments in the order
given; in each directory its files, then its subdirectories, each sorted by code point.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from soulscan.hermes.sources import find_hermes_md
from soulscan.models import ScanError
from soulscan.report.escape import escape_text

KINDS = ("soul", "hermes", "agents", "claude", "cursorrules", "mdc", "memory", "user")
STDIN = "-"
SKIPPED_DIRECTORIES = frozenset({".git", ".venv", "node_modules"})

_KIND_BY_NAME = {
    "SOUL.md": "soul",
    ".hermes.md": "hermes",
    "HERMES.md": "hermes",
    "AGENTS.md": "agents",
    "agents.md": "agents",
    "CLAUDE.md": "claude",
    "claude.md": "claude",
    ".cursorrules": "cursorrules",
}
_MEMORY_KIND_BY_NAME = {"MEMORY.md": "memory", "USER.md": "user"}


@dataclass(frozen=True)
class Target:
    """One file to scan. ``path`` is None for standard input."""

    path: Path | None
    display: str  # as the user will see it, not yet escaped
    kind: str


@dataclass(frozen=True)
class Discovery:
    """The files a scan will read, and the paths it could not use."""
    targets: tuple[Target, ...]
    errors: tuple[ScanError, ...] = ()
    notes: tuple[str, ...] = ()


def kind_of(path: Path) -> str | None:
    """The kind Hermes gives a file, judged by its name and place, or None."""
    name = path.name
    if name in _KIND_BY_NAME:
        return _KIND_BY_NAME[name]
    if name in _MEMORY_KIND_BY_NAME and path.parent.name == "memories":
        return _MEMORY_KIND_BY_NAME[name]
    if name.endswith(".mdc") and path.parent.name == "rules" and path.parent.parent.name == ".cursor":
        return "mdc"
    return None


def hermes_home_paths(home: Path) -> tuple[Path, ...]:
    """The files of a Hermes home the runtime loads into every prompt."""
    return (home / "SOUL.md", home / "memories" / "MEMORY.md", home / "memories" / "USER.md")


def discover(
    paths: Sequence[str],
    *,
    forced_kind: str | None = None,
    hermes_home: Path | None = None,
    exclude: Sequence[str] = (),
    follow_symlinks: bool = False,
    on_target: Callable[[Target], None] | None = None,
) -> Discovery:
    """Expand command-line ``paths`` (``-`` is stdin) into scan targets.

    With ``forced_kind`` every regular file found gets that kind; otherwise only files
    named as Hermes names them are taken from directories, and a file named explicitly
    with an unknown name is an error that suggests ``--as``. ``on_target`` is told of each
    target as soon as it is found, in the final order (so scanning can start early).
    """
    walker = _Walker(forced_kind, tuple(exclude), follow_symlinks, on_target)
    if hermes_home is not None:
        walker.add_hermes_home(hermes_home)
    for argument in paths:
        walker.add_argument(argument)
    notes = list(walker.notes)
    if walker.skipped_links:
        shown = ", ".join(escape_text(link) for link in walker.skipped_links[:3])
        more = f" and {len(walker.skipped_links) - 3} more" if len(walker.skipped_links) > 3 else ""
        notes.append(
            f"skipped {len(walker.skipped_links)} symbolic link(s) inside directories "
            "(not followed; pass --follow-symlinks, or name a link on the command line, "
            f"to scan them): {shown}{more}"
        )
    return Discovery(tuple(walker.targets), tuple(walker.errors), tuple(notes))


class _Walker:
    def __init__(
        self,
        forced_kind: str | None,
        exclude: tuple[str, ...],
        follow: bool,
        on_target: Callable[[Target], None] | None = None,
    ) -> None:
        self.forced_kind = forced_kind
        self.on_target = on_target
        self.exclude = exclude
        self.follow = follow
        self._seen_directories: set[tuple[int, int]] = set()
        self.targets: list[Target] = []
        self.errors: list[ScanError] = []
        self.notes: list[str] = []
        self.skipped_links: list[str] = []
        self._seen_files: set[tuple[int, int]] = set()
        self._stdin_taken = False

    def add_hermes_home(self, home: Path) -> None:
        soul, memory, user = hermes_home_paths(home)
        if not _present(soul):
            self.notes.append(
                f"{escape_text(str(soul))} does not exist: Hermes 0.19.0 would write its "
                "default SOUL.md there on first start (soulscan never writes into a home)"
            )
        for path, kind in ((soul, "soul"), (memory, "memory"), (user, "user")):
            if _present(path):
                self._add_file(path, str(path), kind)

    def add_argument(self, argument: str) -> None:
        if argument == STDIN:
            if self._stdin_taken:
                self.errors.append(ScanError(STDIN, "standard input named more than once"))
                return
            self._stdin_taken = True
            self._append(Target(None, "<stdin>", self.forced_kind or "agents"))
            return
        path = Path(argument)
        try:
            info = path.stat()  # an explicit argument is followed even if it is a link
        except OSError as exc:
            self.errors.append(ScanError(argument, describe_os_error(exc, path)))
            return
        if stat.S_ISDIR(info.st_mode):
            if self.forced_kind is None:
                self._add_parent_hermes_md(path, argument)
            self._walk(path)
            return
        kind = self.forced_kind or kind_of(path)
        if kind is None:
            self.errors.append(
                ScanError(
                    argument,
                    "not a file Hermes reads by this name; pass --as KIND "
                    f"({'|'.join(KINDS)}) to scan it as one",
                )
            )
            return
        self._add_file(path, argument, kind)

    def _add_parent_hermes_md(self, directory: Path, argument: str) -> None:
        """The `.hermes.md` above ``directory`` that Hermes started there would load.

        Hermes looks for `.hermes.md`/`HERMES.md` from its working directory up to the git
        root; one in the directory itself is found by the walk, one above it is not.
        """
        try:
            found = find_hermes_md(directory)
            if found is None or found.parent == directory.resolve():
                return
            relative = os.path.relpath(found, directory.resolve())
        except (OSError, ValueError):
            return
        self._add_file(found, os.path.normpath(os.path.join(argument, relative)), "hermes")

    def _add_file(
        self, path: Path, display: str, kind: str, info: os.stat_result | None = None
    ) -> None:
        if info is None:
            try:
                info = path.stat()
            except OSError as exc:
                self.errors.append(ScanError(display, describe_os_error(exc, path)))
                return
        if not stat.S_ISREG(info.st_mode):
            self.errors.append(ScanError(display, f"not a regular file ({_file_type(info.st_mode)})"))
            return
        identity = (info.st_dev, info.st_ino)
        if identity in self._seen_files:
            return
        self._seen_files.add(identity)
        self._append(Target(path, display, kind))

    def _append(self, target: Target) -> None:
        self.targets.append(target)
        if self.on_target is not None:
            self.on_target(target)

    def _walk(self, root: Path) -> None:
        pending = [root]
        while pending:
            directory = pending.pop()
            if not self._first_visit(directory):
                continue
            entries = self._list(directory)
            subdirectories = []
            for entry in entries:
                if self.exclude and self._excluded(root, Path(entry.path)):
                    continue
                if entry.is_symlink() and not self.follow:
                    self.skipped_links.append(entry.path)
                    continue
                try:
                    info = entry.stat(follow_symlinks=self.follow)
                except OSError as exc:
                    self.errors.append(ScanError(entry.path, describe_os_error(exc, Path(entry.path))))
                    continue
                if stat.S_ISDIR(info.st_mode):
                    subdirectory = Path(entry.path)
                    if not _vendored(subdirectory):
                        subdirectories.append(subdirectory)
                    continue
                if self.forced_kind is None and not _may_be_context_file(entry.name):
                    continue  # most files of a tree: no Path built, nothing more asked
                entry_path = Path(entry.path)
                kind = self.forced_kind or kind_of(entry_path)
                if kind is not None:
                    # The stat just made is the one _add_file would make (a link is
                    # either skipped or followed by both).
                    self._add_file(entry_path, os.path.normpath(entry.path), kind, info)
            # Depth first, in sorted order: push in reverse so the smallest name pops first.
            pending.extend(reversed(subdirectories))

    def _first_visit(self, directory: Path) -> bool:
        """False for a directory already walked: a followed link back up would loop."""
        try:
            info = directory.stat()
        except OSError as exc:
            self.errors.append(ScanError(str(directory), describe_os_error(exc, directory)))
            return False
        identity = (info.st_dev, info.st_ino)
        if identity in self._seen_directories:
            if os.path.islink(directory):
                self.notes.append(f"{escape_text(str(directory))}: symbolic link to a directory "
                                  "already scanned (a loop or a duplicate); not walked again")
            return False
        self._seen_directories.add(identity)
        return True

    def _list(self, directory: Path) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(directory) as iterator:
                return sorted(iterator, key=lambda entry: entry.name)
        except OSError as exc:
            self.errors.append(ScanError(str(directory), describe_os_error(exc, directory)))
            return []

    def _excluded(self, root: Path, path: Path) -> bool:
        relative = path.relative_to(root).as_posix()
        return any(
            fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(path.name, pattern)
            for pattern in self.exclude
        )


def _may_be_context_file(name: str) -> bool:
    """False for a name ``kind_of`` can never give a kind, whatever its place."""
    return name in _KIND_BY_NAME or name in _MEMORY_KIND_BY_NAME or name.endswith(".mdc")


def _present(path: Path) -> bool:
    """Whether anything (a dangling link too) has this name; never raises."""
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


def _vendored(directory: Path) -> bool:
    """Version control, dependencies and virtual environments (any name): not project files."""
    if directory.name in SKIPPED_DIRECTORIES:
        return True
    try:
        return stat.S_ISREG(os.stat(os.path.join(directory, "pyvenv.cfg")).st_mode)
    except OSError:  # absent, or the directory is unreadable: walking it reports that
        return False


def _file_type(mode: int) -> str:
    checks: Iterable[tuple[bool, str]] = (
        (stat.S_ISDIR(mode), "a directory"),
        (stat.S_ISFIFO(mode), "a FIFO"),
        (stat.S_ISCHR(mode), "a character device"),
        (stat.S_ISBLK(mode), "a block device"),
        (stat.S_ISSOCK(mode), "a socket"),
    )
    return next((name for matched, name in checks if matched), "an unknown file type")


def describe_os_error(exc: OSError, path: str | Path) -> str:
    """A short, lower-case reason for a failed stat, open or read."""
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if exc.errno == errno.ENOENT:
        return "dangling symbolic link" if os.path.islink(path) else "no such file or directory"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or type(exc).__name__
