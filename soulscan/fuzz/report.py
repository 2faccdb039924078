"""Tally unit results per mutation family, render the table, write evasions as a corpus."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from soulscan.fuzz.runner import Evasion, UnitResult
from soulscan.report.escape import escape_text


@dataclass
class FamilyTally:
    family: str
    variants: int = 0
    # Variants of seeds the runtime (resp. hardened) verdict catches, and how many of
    # them it still catches: the catch rate is only meaningful against caught seeds.
    runtime_base: int = 0
    runtime_caught: int = 0
    hardened_base: int = 0
    hardened_caught: int = 0
    hardened_evasions: int = 0
    skipped_units: int = 0

    @property
    def runtime_rate(self) -> float | None:
        return self.runtime_caught / self.runtime_base if self.runtime_base else None

    @property
    def hardened_rate(self) -> float | None:
        return self.hardened_caught / self.hardened_base if self.hardened_base else None


@dataclass
class FuzzSummary:
    families: dict[str, FamilyTally] = field(default_factory=dict)
    seeds_uncaught: set[str] = field(default_factory=set)
    evasions: list[Evasion] = field(default_factory=list)

    @property
    def total(self) -> FamilyTally:
        total = FamilyTally("total")
        for tally in self.families.values():
            for name in (
                "variants", "runtime_base", "runtime_caught", "hardened_base",
                "hardened_caught", "hardened_evasions", "skipped_units",
            ):
                setattr(total, name, getattr(total, name) + getattr(tally, name))
        return total


def summarise(results: Iterable[UnitResult], families: Sequence[str]) -> FuzzSummary:
    summary = FuzzSummary({name: FamilyTally(name) for name in families})
    for result in results:
        tally = summary.families[result.family]
        if result.skipped:
            tally.skipped_units += 1
            continue
        if not result.seed_verdict.hardened:
            summary.seeds_uncaught.add(result.seed_id)
        tally.variants += result.variants
        if result.seed_verdict.runtime:
            tally.runtime_base += result.variants
            tally.runtime_caught += result.runtime_caught
        if result.seed_verdict.hardened:
            tally.hardened_base += result.variants
            tally.hardened_caught += result.hardened_caught
            tally.hardened_evasions += result.variants - result.hardened_caught
        summary.evasions.extend(result.evasions)
    return summary


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:5.1f}%"


def render_text(summary: FuzzSummary) -> str:
    header = f"{'family':<12} {'variants':>8} {'runtime':>8} {'hardened':>9} {'evasions':>9}"
    lines = [header, "-" * len(header)]
    for tally in [*summary.families.values(), summary.total]:
        if tally.family == "total":
            lines.append("-" * len(header))
        lines.append(
            f"{tally.family:<12} {tally.variants:>8} {_percent(tally.runtime_rate):>8} "
            f"{_percent(tally.hardened_rate):>9} {tally.hardened_evasions:>9}"
        )
    lines.append(
        "runtime/hardened: share of variants still caught, among variants of seeds that "
        "verdict catches unmutated; evasions: variants past the hardened verdict."
    )
    if summary.seeds_uncaught:
        lines.append(
            f"seeds the hardened verdict misses even unmutated ({len(summary.seeds_uncaught)}): "
            + ", ".join(escape_text(s) for s in sorted(summary.seeds_uncaught))
        )
    skipped = summary.total.skipped_units
    if skipped:
        lines.append(f"stopped by --max-time: {skipped} seed x family units not run")
    return "\n".join(lines)


def render_json(summary: FuzzSummary) -> str:
    def row(tally: FamilyTally) -> dict[str, object]:
        return {
            "family": tally.family, "variants": tally.variants,
            "runtime_base": tally.runtime_base, "runtime_caught": tally.runtime_caught,
            "runtime_rate": tally.runtime_rate, "hardened_base": tally.hardened_base,
            "hardened_caught": tally.hardened_caught, "hardened_rate": tally.hardened_rate,
            "skipped_units": tally.skipped_units,
        }

    document = {
        "families": [row(t) for t in summary.families.values()],
        "total": row(summary.total),
        "seeds_uncaught": sorted(summary.seeds_uncaught),
        "evasions": len(summary.evasions),
    }
    return json.dumps(document, indent=2, ensure_ascii=True)


def write_corpus(evasions: Sequence[Evasion], path: Path, fuzz_seed: int) -> None:
    """Write evasions in the shared corpora item format (ASCII-only JSONL)."""
    lines = []
    for number, evasion in enumerate(evasions):
        item = evasion.seed.item
        lines.append(json.dumps({
            "id": f"fuzz-{number:06d}",
            "text": evasion.text,
            "label": "injection",
            "kind": item.get("kind", "payload"),
            "source_path": evasion.seed.id,
            "repo": item.get("repo", "unknown"),
            "commit": item.get("commit", "unknown"),
            "license": item.get("license", "NOASSERTION"),
            "category": evasion.family,
            "evades": evasion.evades,
            "fuzz_seed": fuzz_seed,
        }, ensure_ascii=True))
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
