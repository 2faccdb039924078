"""``soulscan baseline create|update``: record the findings a project has accepted.

A baseline entry is rule id + path + sha256 of the matched text (never a line number).
``create`` writes one from a fresh scan (refusing to overwrite without ``--force``);
``update`` rescans and keeps entries of files outside this scan, drops entries whose
finding is gone and adds new findings, printing what changed so a reviewer sees it.
Config rule selection, severities and suppressions apply first, so a suppressed
finding is not copied into the baseline.
"""

from __future__ import annotations

from pathlib import Path

import click

from soulscan import baseline as baselines
from soulscan.config import Settings, load_settings
from soulscan.discovery import discover
from soulscan.errors import SoulscanError
from soulscan.models import ScanReport
from soulscan.pipeline import ScanOptions, run_scan
from soulscan.policy import apply_policy
from soulscan.report.escape import escape_text

DEFAULT_BASELINE = Path(".soulscan-baseline.json")


def _scan(paths: tuple[str, ...], settings: Settings) -> ScanReport:
    options = ScanOptions(
        profile=settings.profile or "all",
        hermes_home=settings.hermes_home,
        context_length=settings.context_length,
        rule_packs=tuple(str(path) for path in settings.rule_packs),
    )
    targets = paths or settings.paths or (() if settings.hermes_home is not None else (".",))
    discovery = discover(targets, hermes_home=settings.hermes_home, exclude=settings.exclude)
    report = run_scan(discovery, options)
    for error in report.errors:
        click.echo(
            f"soulscan: error: {escape_text(error.path)}: {escape_text(error.message)}", err=True
        )
    if report.errors:
        raise SoulscanError("some files could not be scanned; the baseline was not written")
    return apply_policy(report, settings).report


def _target(option: Path | None, settings: Settings) -> Path:
    return option or settings.baseline or DEFAULT_BASELINE


@click.group(name="baseline")
def command() -> None:
    """Create or update a baseline of accepted findings."""


_paths = click.argument("paths", nargs=-1, type=str)
_config = click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Config file (default: .soulscan.yaml or pyproject.toml, searched upwards).",
)
_file = click.option(
    "-b",
    "--baseline",
    "baseline_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"Baseline file (default: the config's baseline, else {DEFAULT_BASELINE}).",
)


@command.command(name="create")
@_paths
@_config
@_file
@click.option("--force", is_flag=True, help="Overwrite an existing baseline.")
def create(
    paths: tuple[str, ...], config: Path | None, baseline_path: Path | None, force: bool
) -> int:
    """Write a baseline of every current finding in PATHS."""
    settings = load_settings(config)
    target = _target(baseline_path, settings)
    if target.exists() and not force:
        raise SoulscanError(
            f"{escape_text(str(target))} exists; use `soulscan baseline update` or --force"
        )
    created = baselines.from_report(_scan(paths, settings))
    baselines.save(target, created)
    click.echo(f"wrote {escape_text(str(target))}: {len(created.entries)} accepted finding(s)")
    return 0


@command.command(name="update")
@_paths
@_config
@_file
def update(paths: tuple[str, ...], config: Path | None, baseline_path: Path | None) -> int:
    """Rescan PATHS: add new findings, drop fixed ones, keep files not scanned now."""
    settings = load_settings(config)
    target = _target(baseline_path, settings)
    change = baselines.update(baselines.load(target), _scan(paths, settings))
    baselines.save(target, change.baseline)
    for sign, entries in (("+", change.added), ("-", change.removed)):
        for entry in entries:
            click.echo(f"{sign} {entry.rule_id}  {escape_text(entry.path)}  {entry.sha256[:12]}")
    click.echo(
        f"updated {escape_text(str(target))}: {len(change.added)} added, "
        f"{len(change.removed)} removed, {len(change.baseline.entries)} in total"
    )
    return 0
