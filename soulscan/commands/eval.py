"""``soulscan eval CORPUS.jsonl...``: measure rule packs on labelled corpora.

Prints recall on `injection` items and the false-positive rate on `benign` items, per corpus
and per category, with the Hermes 0.19.0 runtime's own figure on the same items beside it.
Exit code 0 (a measurement, not a verdict).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from soulscan.hardened.evaluation import Row, Verdict, read_items, score
from soulscan.hardened.skill_bundle import BUNDLE_RULE_ID
from soulscan.report.escape import escape_text


def _pct(part: int, total: int) -> str:
    return f"{100.0 * part / total:.1f}%" if total else "-"


def _bundle_notes(rows: list[Row]) -> list[str]:
    """Per corpus: how many flagged items are SKILL.md files flagged only through their skill."""
    notes = []
    for row in rows:
        if row.category == "*" and row.via_bundle:
            alone = row.hardened - row.via_bundle
            notes.append(
                f"{escape_text(row.corpus)}: {row.via_bundle} of the {row.hardened} flagged "
                f"{row.label} items are SKILL.md files flagged only because their skill ships a "
                f"flagged file ({BUNDLE_RULE_ID}); each file judged by its own text alone: "
                f"{_pct(alone, row.total)} ({alone}/{row.total})."
            )
    return notes


def _text_table(rows: list[Row], profile: str) -> str:
    header = f"{'corpus':<24} {'category':<44} {'metric':<8} {'items':>6} "
    header += f"{'runtime':>9}" if profile == "runtime" else f"{'hardened':>9} {'runtime':>9}"
    lines = [header, "-" * len(header)]
    for row in rows:
        line = f"{escape_text(row.corpus)[:24]:<24} {escape_text(row.category)[:44]:<44} {row.metric:<8} {row.total:>6} "
        if profile == "runtime":
            line += f"{_pct(row.runtime, row.total):>9}"
        else:
            line += f"{_pct(row.hardened, row.total):>9} {_pct(row.runtime, row.total):>9}"
        lines.append(line)
    lines.append("")
    lines.append(
        "recall = share of injection items flagged; fp_rate = share of benign items flagged;"
    )
    lines.append(
        "hardened flags = any hardened finding of severity medium or above; runtime = Hermes 0.19.0 blocks."
    )
    notes = _bundle_notes(rows)
    if notes:
        lines.append("")
        lines.extend(notes)
    return "\n".join(lines)


def _json(rows: list[Row], verdicts: list[Verdict], profile: str, show_items: bool) -> str:
    data: dict[str, object] = {
        "profile": profile,
        "rows": [
            {
                "corpus": r.corpus,
                "category": r.category,
                "label": r.label,
                "metric": r.metric,
                "items": r.total,
                "runtime": r.runtime,
                "runtime_rate": r.runtime / r.total if r.total else None,
                **(
                    {}
                    if profile == "runtime"
                    else {
                        "hardened": r.hardened,
                        "hardened_rate": r.hardened / r.total if r.total else None,
                        # SKILL.md items flagged only through a flagged file of their skill
                        "hardened_via_bundle": r.via_bundle,
                    }
                ),
            }
            for r in rows
        ],
    }
    if show_items:
        data["items"] = [
            {
                "id": v.item.id,
                "label": v.item.label,
                "hardened": v.hardened,
                "runtime": v.runtime,
                "rules": list(v.rule_ids),
                "via_bundle": v.via_bundle,
            }
            for v in verdicts
        ]
    return json.dumps(data, indent=2, ensure_ascii=True)


@click.command("eval")
@click.argument("corpora", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--profile",
    type=click.Choice(["hardened", "runtime"]),
    default="hardened",
    show_default=True,
    help="hardened: hardened findings beside the runtime's; runtime: the runtime's verdict only.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--items",
    "show_items",
    is_flag=True,
    help="With --format json: add every item's verdict and rule ids.",
)
def command(corpora: tuple[Path, ...], profile: str, fmt: str, show_items: bool) -> int:
    """Score CORPORA (JSONL: id, text, label injection|benign, kind, category)."""
    items = [item for path in corpora for item in read_items(path)]
    rows, verdicts = score(items, profile)
    click.echo(
        _json(rows, verdicts, profile, show_items) if fmt == "json" else _text_table(rows, profile)
    )
    return 0
