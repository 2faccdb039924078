"""``soulscan fuzz``: mutate attack seeds and report, per obfuscation family, how often the
runtime verdict and the hardened verdict still catch them."""

from __future__ import annotations

import time
from pathlib import Path

import click

from soulscan.errors import SoulscanError


@click.command(name="fuzz")
@click.argument(
    "seeds", required=False, type=click.Path(exists=True, path_type=Path),
)
@click.option("--seed", "fuzz_seed", type=int, default=0, show_default=True,
              help="Random seed; the same seed gives the same variants and results.")
@click.option("--max-examples", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Variants to generate in total, spread over every seed x family.")
@click.option("--max-time", type=click.FloatRange(min=0), default=None,
              help="Stop starting new seed x family units after this many seconds.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes.")
@click.option("--family", "families", multiple=True,
              help="Only these mutation families (repeatable); default all.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              help="Write the shrunk evasions here as a corpus JSONL file.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def command(
    seeds: Path | None, fuzz_seed: int, max_examples: int, max_time: float | None, jobs: int,
    families: tuple[str, ...], out: Path | None, output_format: str,
) -> int:
    """Fuzz SEEDS (a corpus JSONL file or directory; default: the built-in seeds).

    Exit 0 when the hardened verdict catches every variant of every seed it catches,
    1 when evasions were found, 2 on bad input.
    """
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        raise SoulscanError(
            "soulscan fuzz needs hypothesis: pip install 'hermes-soulscan[test]'"
        ) from None
    from soulscan.fuzz import report, runner
    from soulscan.fuzz.seeds import load_seeds
    from soulscan.fuzz.strategies import FAMILIES

    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        raise SoulscanError(
            f"unknown mutation family {', '.join(unknown)} (known: {', '.join(FAMILIES)})"
        )
    chosen = [name for name in FAMILIES if not families or name in families]
    seed_items = load_seeds(seeds)
    deadline = time.time() + max_time if max_time is not None else float("inf")
    units = runner.plan(seed_items, chosen, max_examples, fuzz_seed, deadline)
    summary = report.summarise(runner.run(units, jobs), chosen)
    if out is not None:
        try:
            report.write_corpus(summary.evasions, out, fuzz_seed)
        except OSError as exc:
            raise SoulscanError(f"{out}: cannot write: {exc.strerror}") from None
    if output_format == "json":
        click.echo(report.render_json(summary))
    else:
        click.echo(report.render_text(summary))
        if out is not None:
            click.echo(f"wrote {len(summary.evasions)} shrunk evasions to {out}")
    return 1 if summary.total.hardened_evasions else 0
