"""``soulscan bench``: soulscan vs the Hermes 0.19.0 runtime's own scanner, as ratios."""

from __future__ import annotations

from pathlib import Path

import click


def _default_corpora() -> Path | None:
    # A source checkout sits beside the shared material in CI (../shared/corpora).
    candidate = Path(__file__).resolve().parents[3] / "shared" / "corpora"
    return candidate if candidate.is_dir() else None


@click.command(name="bench")
@click.option("--quick", is_flag=True, help="Smaller inputs and single runs (about a minute).")
@click.option("--oracle-python", type=click.Path(dir_okay=False, path_type=Path),
              default=Path(".oracle/bin/python"), show_default=True,
              help="Python of a venv with hermes-agent 0.19.0 installed.")
@click.option("--corpora", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Directory of corpora (*/items.jsonl); default ../shared/corpora beside "
                   "a source checkout, else the built-in seeds.")
@click.option("--sample", type=click.IntRange(min=1), default=1, show_default=True,
              help="Use every N-th corpus item (the full corpora take minutes).")
@click.option("--input-timeout", type=click.FloatRange(min=1), default=300.0, show_default=True,
              help="Seconds before an adversarial scan is stopped and reported as a hang.")
# Small sizes are for tests; the floor leaves each input builder room for its pattern.
@click.option("--adversarial-size", type=click.IntRange(min=1_000), metavar="N",
              help="Bytes (UTF-8) of each adversarial input (default 1,000,000; 256,000 with --quick).")
# Names checked by soulscan.bench (an unknown one is a one-line error, not a usage screen);
# listed here so that --help does not import the benchmark.
@click.option("--section", "only", multiple=True, metavar="NAME",
              help="Run only this section; repeat for more: corpora, cold-start, tree, "
                   "adversarial (default: all, in that order).")
def command(quick: bool, oracle_python: Path, corpora: Path | None, sample: int,
            input_timeout: float, adversarial_size: int | None, only: tuple[str, ...]) -> int:
    """Measure throughput, cold start, parallel speed-up and adversarial inputs against
    the runtime's own scanner in one run; prints ratios, never a pass/fail on seconds."""
    from soulscan.bench import BenchOptions, run_sections, sections

    options = BenchOptions(oracle_python, corpora or _default_corpora(), quick, sample,
                           input_timeout, adversarial_size, only)
    for line in run_sections(sections(options)):
        click.echo(line)
    return 0
