"""``soulscan fix``: strip hidden characters from context files, atomically.

Without ``--diff`` each changed file is rewritten in place (atomically) and one line per
file says what was removed. With ``--diff`` nothing is written: a unified diff with the
removed characters made visible is printed, and the exit code is 1 when a file would
change, like ``ruff --diff``. A file that cannot be read as UTF-8 is left alone and
reported; the exit code is then 2.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator
from pathlib import Path

import click

from soulscan.fix import Fix, FixError, fix_file, write_atomically
from soulscan.report.escape import escape_text

# The files Hermes and the other agent runtimes read, by name, when a directory is given.
CONTEXT_FILE_NAMES = frozenset(
    {
        "SOUL.md",
        "AGENTS.md",
        "agents.md",
        "CLAUDE.md",
        "claude.md",
        ".hermes.md",
        "HERMES.md",
        ".cursorrules",
        "MEMORY.md",
        "USER.md",
    }
)
_SKIPPED_DIRECTORIES = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules"})


def context_files(root: Path) -> Iterator[Path]:
    """Context files under ``root``, sorted, without following directory symlinks."""
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d not in _SKIPPED_DIRECTORIES)
        here = Path(directory)
        in_cursor_rules = here.name == "rules" and here.parent.name == ".cursor"
        for name in sorted(files):
            if name in CONTEXT_FILE_NAMES or (in_cursor_rules and name.endswith(".mdc")):
                yield here / name


def _targets(paths: tuple[Path, ...]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from context_files(path)
        else:
            yield path


def render_diff(path: str, fix: Fix) -> str:
    """A unified diff of escaped lines, so the removed characters show as ``\\u{200B}``."""
    before = [escape_text(line.rstrip("\n")) + "\n" for line in fix.original.splitlines(True)]
    after = [escape_text(line.rstrip("\n")) + "\n" for line in fix.fixed.splitlines(True)]
    shown = escape_text(path)
    return "".join(difflib.unified_diff(before, after, f"a/{shown}", f"b/{shown}"))


@click.command(name="fix")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--diff", "show_diff", is_flag=True, help="Print a diff instead of writing.")
def command(paths: tuple[Path, ...], show_diff: bool) -> int:
    """Remove invisible, bidi and smuggled tag/selector characters from context files.

    Emoji sequences (ZWJ sequences, a variation selector after its base, subdivision
    flags) are kept; nothing else in the file changes. PATHS default to ".".
    """
    failed = False
    changed = False
    for path in _targets(paths or (Path("."),)):
        shown = escape_text(str(path))
        try:
            fix = fix_file(path)
        except FixError as exc:
            click.echo(f"soulscan: {shown}: {exc}", err=True)
            failed = True
            continue
        if not fix.changed:
            continue
        changed = True
        if show_diff:
            click.echo(render_diff(str(path), fix), nl=False)
            continue
        try:
            write_atomically(path, fix.fixed.encode("utf-8"))
        except OSError as exc:
            click.echo(f"soulscan: {shown}: cannot write: {exc.strerror or exc}", err=True)
            failed = True
            continue
        click.echo(f"fixed {shown}: {fix.summary()}")
    if failed:
        return 2
    return 1 if show_diff and changed else 0
