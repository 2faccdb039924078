"""``soulscan rules``: every rule of the built-in (and extra) packs, as a table.

Sorted by pack, then scope, then severity (worst first), then id, so the rules that
guard the same surface sit together.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import click

from soulscan.engine.rulepack import Rule, builtin_packs, load_pack
from soulscan.report.escape import escape_text

COLUMNS = ("PACK", "SCOPE", "SEVERITY", "CONFIDENCE", "ID", "NAME")


def rule_rows(rules: Iterable[Rule]) -> list[tuple[str, ...]]:
    ordered = sorted(rules, key=lambda r: (r.pack, r.scope, -int(r.severity), r.id))
    return [(r.pack, r.scope, str(r.severity), str(r.confidence), r.id, r.name) for r in ordered]


def render_table(rows: Sequence[tuple[str, ...]]) -> str:
    cells = [COLUMNS, *((escape_text(cell) for cell in row) for row in rows)]
    table = [tuple(row) for row in cells]
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        + "\n"
        for row in table
    )


@click.command(name="rules")
@click.option(
    "--pack", "pack_ids", multiple=True, metavar="ID", help="Only this pack (repeatable)."
)
@click.option(
    "--rule-pack",
    "rule_packs",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Also list the rules of this pack file (repeatable).",
)
def command(pack_ids: tuple[str, ...], rule_packs: tuple[Path, ...]) -> int:
    """List the rules by pack, scope and severity."""
    packs = [*builtin_packs(), *(load_pack(path) for path in rule_packs)]
    if pack_ids:
        unknown = sorted(set(pack_ids) - {p.id for p in packs})
        if unknown:
            known = ", ".join(sorted(p.id for p in packs))
            raise click.BadParameter(f"unknown pack {unknown[0]!r} (packs: {known})")
        packs = [p for p in packs if p.id in pack_ids]
    rows = rule_rows(rule for pack in packs for rule in pack.rules)
    click.echo(render_table(rows), nl=False)
    click.echo(f"{len(rows)} rules in {len(packs)} packs")
    return 0
