"""Run the mutation families over the seeds and tally what each verdict catches.

The work is cut into units (one seed x one family), each with its own hypothesis seed
derived from ``--seed`` and the unit's position, so results do not depend on ``-j``.
A unit first explores (generation only, counting verdicts), then asks hypothesis to
shrink one evasion per verdict to the smallest variant that still slips through.
"""

from __future__ import annotations

import hashlib
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from random import Random
from typing import TYPE_CHECKING

from soulscan.fuzz.seeds import Seed
from soulscan.fuzz.verdicts import Verdict, hardened_catches, judge, runtime_catches

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

# Shrinking re-runs the verdict on every candidate; this budget per evasion keeps a unit
# bounded while still cutting typical variants down to a few edits. A call costs one unit
# plus one per 4,096 characters judged, so 66 k-character padding variants shrink less.
SHRINK_BUDGET = 150
# Padding variants are 16x longer than the rest and dominate the time per example; they
# get a quarter of an ordinary family's share of ``--max-examples``.
FAMILY_WEIGHTS = {"padding": 0.25}


@dataclass(frozen=True)
class Unit:
    index: int
    seed: Seed
    family: str
    examples: int
    rng_seed: int
    deadline: float  # time.time() after which the unit is skipped


@dataclass(frozen=True)
class Evasion:
    seed: Seed
    family: str
    evades: str  # "hardened": slips past both verdicts; "runtime": only past Hermes
    text: str


@dataclass(frozen=True)
class UnitResult:
    seed_id: str
    family: str
    seed_verdict: Verdict
    variants: int = 0
    runtime_caught: int = 0
    hardened_caught: int = 0
    evasions: tuple[Evasion, ...] = ()
    skipped: bool = False


def plan(
    seeds: Sequence[Seed], families: Sequence[str], max_examples: int, seed: int,
    deadline: float,
) -> list[Unit]:
    """Split ``max_examples`` over every seed x family pair by family weight (rounding
    down, leftovers to the first pairs); pairs left with no examples are dropped."""
    pairs = [(s, f) for s in seeds for f in families]
    weights = [FAMILY_WEIGHTS.get(f, 1.0) for _, f in pairs]
    total_weight = sum(weights)
    shares = [int(max_examples * w / total_weight) for w in weights] if pairs else []
    for index in range(max_examples - sum(shares)):
        shares[index % len(shares)] += 1
    units = []
    for index, ((seed_item, family), examples) in enumerate(zip(pairs, shares, strict=True)):
        if examples:
            units.append(
                Unit(index, seed_item, family, examples, _derive(seed, index), deadline)
            )
    return units


def _derive(seed: int, index: int) -> int:
    digest = hashlib.sha256(f"{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def run(units: Sequence[Unit], jobs: int) -> Iterator[UnitResult]:
    """Results in unit order, computed in ``jobs`` processes."""
    if jobs <= 1 or len(units) < 2:
        yield from map(run_unit, units)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(run_unit, units, chunksize=max(1, len(units) // (jobs * 8)))


def run_unit(unit: Unit) -> UnitResult:
    # hypothesis warns about the repr of 66 k-character padding variants; it is noise here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run_unit(unit)


def _run_unit(unit: Unit) -> UnitResult:
    seed = unit.seed
    seed_verdict = judge(seed.text, seed.kind, seed.filename)
    if time.time() > unit.deadline:
        return UnitResult(seed.id, unit.family, seed_verdict, skipped=True)
    if not (seed_verdict.runtime or seed_verdict.hardened):
        return UnitResult(seed.id, unit.family, seed_verdict)
    from soulscan.fuzz.strategies import FAMILIES

    strategy = FAMILIES[unit.family](seed.text)
    verdicts: dict[str, Verdict] = {}

    def record(text: str) -> None:
        if text != seed.text and text not in verdicts:
            verdicts[text] = judge(text, seed.kind, seed.filename)

    _explore(strategy, unit.examples, unit.rng_seed, record)
    evasions = []
    if seed_verdict.hardened and any(not v.hardened for v in verdicts.values()):
        evasions.append(_shrunk(unit, "hardened", strategy, verdicts))
    if seed_verdict.runtime and any(not v.runtime for v in verdicts.values()):
        evasions.append(_shrunk(unit, "runtime", strategy, verdicts))
    return UnitResult(
        seed.id,
        unit.family,
        seed_verdict,
        variants=len(verdicts),
        runtime_caught=sum(v.runtime for v in verdicts.values()),
        hardened_caught=sum(v.hardened for v in verdicts.values()),
        evasions=tuple(evasions),
    )


def _explore(
    strategy: SearchStrategy[str], examples: int, rng_seed: int, record: Callable[[str], None]
) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fix_seed

    # +1: hypothesis opens with the simplest example, the unmutated seed, not a variant.
    @fix_seed(rng_seed)
    @settings(
        max_examples=examples + 1, database=None, deadline=None, phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def probe(text: str) -> None:
        record(text)

    probe()


class _ShrinkBudgetSpent(BaseException):
    """Stops hypothesis mid-shrink; a BaseException so its engine lets it through."""


def _shrunk(
    unit: Unit, evades: str, strategy: SearchStrategy[str], seen: dict[str, Verdict]
) -> Evasion:
    """The smallest variant hypothesis finds within ``SHRINK_BUDGET`` that evades
    ``evades``; the first evasion of the exploration when its search runs dry."""
    from hypothesis import Phase, find, settings
    from hypothesis.errors import NoSuchExample

    seed = unit.seed
    cache = {text: (v.hardened if evades == "hardened" else v.runtime) for text, v in seen.items()}
    best = [next(text for text, caught in cache.items() if not caught)]
    spent = [0]

    def evading(text: str) -> bool:
        # The shrinker only proposes candidates smaller than its current example, so the
        # last evading text seen is the best so far; the budget counts calls and
        # characters (not time) to stay deterministic.
        spent[0] += 1 + len(text) // 4096
        if spent[0] > SHRINK_BUDGET:
            raise _ShrinkBudgetSpent
        if text not in cache:
            if evades == "hardened":
                cache[text] = runtime_catches(text, seed.kind, seed.filename) or hardened_catches(
                    text, seed.kind
                )
            else:
                cache[text] = runtime_catches(text, seed.kind, seed.filename)
        if text == seed.text or cache[text]:
            return False
        best[0] = text
        return True

    try:
        best[0] = find(
            strategy,
            evading,
            settings=settings(
                max_examples=max(unit.examples, 20), database=None, deadline=None,
                phases=[Phase.explicit, Phase.generate, Phase.shrink],
            ),
            random=Random(unit.rng_seed),
        )
    except (NoSuchExample, _ShrinkBudgetSpent):
        pass
    return Evasion(seed, unit.family, evades, best[0])
