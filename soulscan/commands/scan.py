"""``soulscan scan [PATH]...``: what Hermes 0.19.0 does with each context file, and why.

Exit codes: 0 nothing at or above ``--fail-on``; 1 something was; 2 a usage error or a
file that could not be scanned (an unscanned file is never reported as clean).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from soulscan.config import load_settings
from soulscan.discovery import KINDS, Discovery, discover
from soulscan.errors import SoulscanError
from soulscan.extra_packs import extra_rules
from soulscan.models import ScanReport, Severity
from soulscan.pipeline import PROFILES, ScanOptions, discover_and_scan_aside, run_scan
from soulscan.policy import apply_policy
from soulscan.report import FORMATS, RenderOptions, render
from soulscan.report.escape import escape_text
from soulscan.shadowing import notes_on, shadowing_notes

if TYPE_CHECKING:
    from soulscan.baseline import Baseline

FAIL_ON_BLOCK = "block"
FAIL_ON_NEVER = "never"
FAIL_ON_CHOICES = (FAIL_ON_BLOCK, FAIL_ON_NEVER, *(str(s) for s in Severity))
BLOCKING_EFFECTS = ("blocks-file", "blocks-entry")
PROGRESS_THRESHOLD = 50
# soulscan.skill_report.SKILL_KIND, spelt here: that module (the skills guard, the skill
# index's YAML) is imported only for --as skill, not by every scan (a test ties the two).
SKILL_KIND = "skill"
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


def fails(report: ScanReport, fail_on: str, *, before_policy: ScanReport | None = None) -> bool:
    """Whether the report has anything at or above the ``--fail-on`` threshold.

    ``block`` fails on a finding that makes Hermes block a file or an entry. A blocked
    file whose every blocking finding was suppressed or baselined passes; one whose
    runtime id has no finding at all (``before_policy`` tells) still fails, so a block
    never goes unreported.
    """
    if fail_on == FAIL_ON_NEVER:
        return False
    if fail_on != FAIL_ON_BLOCK:
        threshold = Severity.parse(fail_on)
        return any(f.severity >= threshold for result in report.files for f in result.findings)
    original = before_policy or report
    for result, unfiltered in zip(report.files, original.files, strict=True):
        if any(f.runtime_effect in BLOCKING_EFFECTS for f in result.findings):
            return True
        located = {f.rule_id for f in unfiltered.findings if f.runtime_effect in BLOCKING_EFFECTS}
        if any(runtime_id not in located for runtime_id in result.runtime.ids):
            return True
    return False


def use_color(no_color: bool) -> bool:
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


@click.command(name="scan")
@click.argument("paths", nargs=-1, type=str)
@click.option("--as", "forced_kind", type=click.Choice((*KINDS, SKILL_KIND)),
              help="Scan every given file as this kind of Hermes file (default: by name); "
                   "skill: each PATH is one skill, judged by the runtime's skills guard.")
@click.option("--format", "format_name", type=click.Choice(sorted(FORMATS)), default="text",
              show_default=True, help="Output format.")
@click.option("--profile", type=click.Choice(PROFILES), default=None,
              help="runtime: only what Hermes checks; hardened: only what it misses; "
                   "all: both (default: the config's, else all).")
@click.option("--fail-on", type=click.Choice(FAIL_ON_CHOICES), default=None,
              help="Exit 1 on anything that makes Hermes block a file or entry (block, the "
                   "default), on a finding of at least this severity, or never.")
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
@click.option("--config", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Config file (default: .soulscan.yaml or [tool.soulscan] in pyproject.toml, "
                   "searched upwards from the current directory).")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Baseline of accepted findings (default: the config's, else none).")
@click.option("-q", "--quiet", is_flag=True, help="Only report files with something to say.")
@click.option("--no-color", is_flag=True, help="No colours (also when NO_COLOR is set).")
def command(
    paths: tuple[str, ...],
    forced_kind: str | None,
    format_name: str,
    profile: str | None,
    fail_on: str | None,
    hermes_home: Path | None,
    context_length: int | None,
    jobs: int,
    max_file_size: str,
    exclude: tuple[str, ...],
    follow_symlinks: bool,
    config: Path | None,
    baseline_path: Path | None,
    quiet: bool,
    no_color: bool,
) -> int:
    """Report what Hermes Agent 0.19.0 does with each context file in PATHS.

    PATHS are files or directories (default: the current directory, or only the Hermes
    home when --hermes-home is given); "-" reads standard input (as AGENTS.md unless
    --as says otherwise).
    """
    settings = load_settings(config)
    home = hermes_home or settings.hermes_home
    profile = profile or settings.profile or "all"
    options = ScanOptions(
        profile=profile if profile in PROFILES else "all",
        hermes_home=home,
        context_length=context_length or settings.context_length,
        max_file_size=parse_size(max_file_size),
        rule_packs=tuple(str(path) for path in settings.rule_packs),
    )
    extra_rules(options.rule_packs)  # a broken project pack stops here, with one line
    if not paths:
        paths = settings.paths or (() if home is not None else (".",))
    with ExitStack() as workers:
        shadowed: Callable[[], list[str]] | None = None
        if forced_kind == SKILL_KIND:
            from soulscan.skill_report import scan_skills

            discovery = Discovery(())
            scanned = scan_skills(paths, profile=options.profile)
        else:
            walk: dict[str, Any] = {"forced_kind": forced_kind, "hermes_home": home,
                    "exclude": (*settings.exclude, *exclude), "follow_symlinks": follow_symlinks}
            # A kind forced with --as is judged alone, never as part of a cursor bundle.
            cursor_bundles = forced_kind is None
            if jobs > 1 and not _progress_possible(quiet):
                # Workers start on the files found first while the walk goes on; once the
                # scan is done one works out the shadowing notes while this process renders
                # the report (the notes are the same after the policy: it keeps every file,
                # its path, kind and runtime verdict, and changes findings alone).
                discovery, scanned, shadowed = workers.enter_context(discover_and_scan_aside(
                    paths, options, jobs=jobs, aside=notes_on, cursor_bundles=cursor_bundles,
                    **walk))
            else:  # a progress bar needs the number of files before the scan starts
                discovery = discover(paths, **walk)
                with _progress(len(discovery.targets), enabled=not quiet) as advance:
                    scanned = run_scan(discovery, options, jobs=jobs, on_progress=advance,
                                       cursor_bundles=cursor_bundles)
        shadowing = shadowed or partial(shadowing_notes, scanned.files)
        baseline = load_baseline(baseline_path or settings.baseline)
        outcome = apply_policy(scanned, settings, baseline=baseline)
        return emit(
            outcome.report, scanned, format_name,
            lambda: (*discovery.notes, *shadowing(), *outcome.notes()),
            threshold=fail_on or settings.fail_on or FAIL_ON_BLOCK, quiet=quiet, no_color=no_color,
        )


def emit(report: ScanReport, scanned: ScanReport, format_name: str,
         notes: Callable[[], Iterable[str]], *, threshold: str, quiet: bool,
         no_color: bool) -> int:
    """Print the report (standard output), its notes and errors (standard error), and
    return the exit code: 2 on an error, else 1 when the report fails ``threshold``.
    ``notes`` are worked out only when they are shown (not with ``quiet``)."""
    width = _terminal_width() if sys.stdout.isatty() else 100
    output = render(report, format_name, RenderOptions(color=use_color(no_color), width=width,
                                                       quiet=quiet))
    click.echo(output, nl=False)
    if not quiet:  # one write: a tree of thousands of directories has thousands of notes
        click.echo("".join(f"soulscan: note: {note}\n" for note in notes()), err=True, nl=False)
    for error in report.errors:
        click.echo(f"soulscan: error: {escape_text(error.path)}: {escape_text(error.message)}",
                   err=True)
    if report.errors:
        return 2
    return 1 if fails(report, threshold, before_policy=scanned) else 0


def _terminal_width() -> int:
    import shutil  # only on a terminal: it costs start-up

    return shutil.get_terminal_size((100, 24)).columns


def load_baseline(path: Path | None) -> Baseline | None:
    if path is None:
        return None
    from soulscan import baseline  # only when one is given: it costs start-up

    return baseline.load(path)


def _progress_possible(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


@contextmanager
def _progress(total: int, *, enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on standard error for big scans, only on a terminal."""
    if not _progress_possible(not enabled) or total < PROGRESS_THRESHOLD:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("scanning", total=total)
        yield lambda done: progress.advance(task, done)
