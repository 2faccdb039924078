"""``soulscan hermes``: audit every prompt surface of a Hermes 0.19.0 home and its profiles.

SOUL.md and the memories of the default home and of every ``profiles/<name>/``, the
config.yaml settings that change loading, the config prompts (system prompt,
personalities, platform hints, environment hint, coding instructions, channel prompts),
the prefill file, the prompt variables of ``.env``, webhook templates, skills and their
index snapshot, cron jobs, pending writes and the system prompts stored in ``state.db``.
Each gets the runtime's verdict (scanned or not, blocked or loaded) and the hardened
findings. Nothing in the home is written.

Exit codes: 0 nothing at or above ``--fail-on``; 1 something was; 2 a usage error or a
surface that could not be read. The default threshold is ``high``, not ``block`` as in
``soulscan scan``: most of these surfaces are never scanned by the runtime, so nothing
there ever "blocks".
"""

from __future__ import annotations

from pathlib import Path

import click

from soulscan.audit import audit_installation
from soulscan.commands._hermes_options import hermes_home_option, resolve_home
from soulscan.commands.scan import FAIL_ON_CHOICES, emit, load_baseline
from soulscan.config import load_settings
from soulscan.errors import InputError
from soulscan.pipeline import PROFILES, ScanOptions
from soulscan.policy import apply_policy
from soulscan.report import FORMATS
from soulscan.report.escape import escape_text

DEFAULT_FAIL_ON = "high"


@click.command(name="hermes")
@hermes_home_option
@click.option("--profile", type=click.Choice(PROFILES), default=None,
              help="runtime: only the runtime's verdicts and ids; hardened: only what it "
                   "misses; all: both (default: the config's, else all).")
@click.option("--format", "format_name", type=click.Choice(sorted(FORMATS)), default="text",
              show_default=True, help="Output format.")
@click.option("--fail-on", type=click.Choice(FAIL_ON_CHOICES), default=None,
              help=f"Exit 1 on a finding of at least this severity (default: {DEFAULT_FAIL_ON}), "
                   "on anything that makes Hermes block (block), or never.")
@click.option("--context-length", type=click.IntRange(min=1),
              help="Model context window in tokens (sets the runtime's truncation cap).")
@click.option("--config", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="soulscan config file (default: searched upwards from the current directory).")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Baseline of accepted findings (default: the config's, else none).")
@click.option("-q", "--quiet", is_flag=True, help="Only report items with something to say.")
@click.option("--no-color", is_flag=True, help="No colours (also when NO_COLOR is set).")
def command(
    hermes_home: Path | None,
    profile: str | None,
    format_name: str,
    fail_on: str | None,
    context_length: int | None,
    config: Path | None,
    baseline_path: Path | None,
    quiet: bool,
    no_color: bool,
) -> int:
    """Audit every prompt surface of a Hermes home (default: $HERMES_HOME, else ~/.hermes)."""
    settings = load_settings(config)
    home = resolve_home(hermes_home or settings.hermes_home)
    if not home.is_dir():
        raise InputError(f"{escape_text(str(home))}: no such Hermes home (a directory)")
    options = ScanOptions(profile=profile or settings.profile or "all", hermes_home=home,
                          context_length=context_length or settings.context_length)
    scanned = audit_installation(home, options)
    baseline = load_baseline(baseline_path or settings.baseline)
    outcome = apply_policy(scanned, settings, baseline=baseline)
    return emit(outcome.report, scanned, format_name, outcome.notes,
                threshold=fail_on or settings.fail_on or DEFAULT_FAIL_ON, quiet=quiet,
                no_color=no_color)
