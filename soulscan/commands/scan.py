"""``soulscan scan [PATH]...``: what Hermes 0.19.0 does with each context file, and why.

Exit codes: 0 nothing at or above ``--fail-on``; 1 something was; 2 a usage error or a
file that could not be scanned (an unscanned file is never reported as clean).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from soulscan.discovery import KINDS, discover
from soulscan.errors import SoulscanError
from soulscan.models import ScanReport, Severity
from soulscan.pipeline import DEFAULT_MAX_FILE_SIZE, PROFILES, ScanOptions, run_scan
from soulscan.report import FORMATS, RenderOptions, render
from soulscan.report.escape import escape_text

FAIL_ON_BLOCK = "block"
FAIL_ON_NEVER = "never"
FAIL_ON_CHOICES = (FAIL_ON_BLOCK, FAIL_ON_NEVER, *(str(s) for s in Severity))
BLOCKING_EFFECTS = ("blocks-file", "blocks-entry")
PROGRESS_THRESHOLD = 50
_SIZE_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1024**2, "MB": 1024**2,
               "MIB": 1024**2, "G": 1024**3, "GB": 1024**3, "GIB": 1024**3}


def parse_size(text: str) -> int:
    """``65536``, ``64K``, ``64MiB``, ``1G`` → bytes (binary units)."""
    stripped = text.strip().upper()
    digits = stripped.rstrip("KMGIB")
    unit = stripped[len(digits):]
    if not digits.isdigit() or unit not in _SIZE_UNITS:
        raise SoulscanError(f"invalid size {text!r}: use bytes or a K/M/G (binary) suffix, e.g. 64M")
    return int(digits) * _SIZE_UNITS[unit]


def fails(report: ScanReport, fail_on: str) -> bool:
    """Whether the report has anything at or above the ``--fail-on`` threshold."""
    if fail_on == FAIL_ON_NEVER:
        return False
    if fail_on == FAIL_ON_BLOCK:
        return any(
            result.runtime.action == "block"
            or any(f.runtime_effect in BLOCKING_EFFECTS for f in result.findings)
            for result in report.files
        )
    threshold = Severity.parse(fail_on)
    return any(f.severity >= threshold for result in report.files for f in result.findings)


def use_color(no_color: bool) -> bool:
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


@click.command(name="scan")
@click.argument("paths", nargs=-1, type=str)
@click.option("--as", "forced_kind", type=click.Choice(KINDS),
              help="Scan every given file as this kind of Hermes file (default: by name).")
@click.option("--format", "format_name", type=click.Choice(sorted(FORMATS)), default="text",
              show_default=True, help="Output format.")
@click.option("--profile", type=click.Choice(PROFILES), default="all", show_default=True,
              help="runtime: only what Hermes checks; hardened: only what it misses; all: both.")
@click.option("--fail-on", type=click.Choice(FAIL_ON_CHOICES), default=FAIL_ON_BLOCK,
              show_default=True,
              help="Exit 1 on anything that makes Hermes block a file or entry (block), on a "
                   "finding of at least this severity, or never.")
@click.option("--hermes-home", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A Hermes home: scan its SOUL.md and memories, read its config.yaml.")
@click.option("--context-length", type=click.IntRange(min=1),
              help="Model context window in tokens (sets the runtime's truncation cap).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Scan files in this many processes.")
@click.option("--max-file-size", default="4M", show_default=True,
              help="Refuse (as an error) files larger than this.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Skip paths matching this glob inside scanned directories (repeatable).")
@click.option("--follow-symlinks", is_flag=True,
              help="Follow symbolic links inside directories (loops are detected).")
@click.option("-q", "--quiet", is_flag=True, help="Only report files with something to say.")
@click.option("--no-color", is_flag=True, help="No colours (also when NO_COLOR is set).")
def command(
    paths: tuple[str, ...],
    forced_kind: str | None,
    format_name: str,
    profile: str,
    fail_on: str,
    hermes_home: Path | None,
    context_length: int | None,
    jobs: int,
    max_file_size: str,
    exclude: tuple[str, ...],
    follow_symlinks: bool,
    quiet: bool,
    no_color: bool,
) -> int:
    """Report what Hermes Agent 0.19.0 does with each context file in PATHS.

    PATHS are files or directories (default: the current directory, or only the Hermes
    home when --hermes-home is given); "-" reads standard input (as AGENTS.md unless
    --as says otherwise).
    """
    options = ScanOptions(
        profile=profile,
        hermes_home=hermes_home,
        context_length=context_length,
        max_file_size=parse_size(max_file_size) if max_file_size else DEFAULT_MAX_FILE_SIZE,
    )
    if not paths:
        paths = () if hermes_home is not None else (".",)
    discovery = discover(
        paths,
        forced_kind=forced_kind,
        hermes_home=hermes_home,
        exclude=exclude,
        follow_symlinks=follow_symlinks,
    )
    if not quiet:
        for note in discovery.notes:
            click.echo(f"soulscan: note: {note}", err=True)
    with _progress(len(discovery.targets), enabled=not quiet) as advance:
        report = run_scan(discovery, options, jobs=jobs, on_progress=advance)
    width = shutil.get_terminal_size((100, 24)).columns if sys.stdout.isatty() else 100
    output = render(report, format_name, RenderOptions(color=use_color(no_color), width=width,
                                                       quiet=quiet))
    click.echo(output, nl=False)
    for error in report.errors:
        click.echo(f"soulscan: error: {escape_text(error.path)}: {escape_text(error.message)}",
                   err=True)
    if report.errors:
        return 2
    return 1 if fails(report, fail_on) else 0


@contextmanager
def _progress(total: int, *, enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on standard error for big scans, only on a terminal."""
    if not enabled or total < PROGRESS_THRESHOLD or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("scanning", total=total)
        yield lambda done: progress.advance(task, done)
