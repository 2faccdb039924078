"""The runtime gate's necessary runs (``soulscan.engine.segments``), kept across runs as plain
data: a run read back is the run worked out afresh, and a stored description that is not
one is worked out again, never used."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from soulscan.engine import segments
from soulscan.engine.rulepack import builtin_packs

_PYTHON_RE_PATTERNS = sorted({rule.pattern for pack in builtin_packs()
                              if pack.dialect == "python-re" for rule in pack.rules})
_FLAGS = (0, re.IGNORECASE)


def _fresh(pattern: str, flags: int) -> segments.NecessaryRun | None:
    """The run as the analysis works it out, with no memo in between."""
    return segments._from_program(segments._run_program.__wrapped__(pattern, flags))  # type: ignore[attr-defined]


def _same(found: segments.NecessaryRun | None, expected: segments.NecessaryRun | None) -> bool:
    if found is None or expected is None:
        return found is expected
    # compiled patterns compare by flags and program
    return (found.pattern, found.starts, found.folded) == (
        expected.pattern, expected.starts, expected.folded)


def test_the_built_in_rules_have_runs_to_keep() -> None:
    assert sum(_fresh(pattern, re.IGNORECASE) is not None for pattern in _PYTHON_RE_PATTERNS) >= 10


_PROBE = """
    import re, sys
    from soulscan.engine import segments
    from soulscan.engine.rulepack import builtin_packs
    patterns = sorted({rule.pattern for pack in builtin_packs() if pack.dialect == "python-re"
                       for rule in pack.rules})
    same = found = 0
    for pattern in patterns:
        for flags in (0, re.IGNORECASE):
            run = segments.necessary_run(pattern, flags)
            fresh = segments._from_program(segments._run_program.__wrapped__(pattern, flags))
            found += run is not None
            same += (run is fresh is None) or (
                run is not None and fresh is not None
                and (run.pattern, run.starts, run.folded)
                == (fresh.pattern, fresh.starts, fresh.folded))
    print(len(patterns) * 2, same, found)
"""


def test_a_run_read_back_from_disk_is_the_run_worked_out_afresh(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOULSCAN_")}
    env["SOULSCAN_CACHE_DIR"] = str(tmp_path / "cache")

    def run() -> list[int]:
        completed = subprocess.run([sys.executable, "-c", textwrap.dedent(_PROBE)], check=True,
                                   capture_output=True, text=True, timeout=120, env=env)
        return [int(field) for field in completed.stdout.split()]

    first = run()  # worked out, and stored at exit
    assert list((tmp_path / "cache").glob("memo-*.bin"))
    second = run()  # read back
    assert first == second
    total, same, found = second
    assert same == total and found >= 10


def _program_of(pattern: str) -> Any:
    program = segments._run_program.__wrapped__(pattern, re.IGNORECASE)  # type: ignore[attr-defined]
    assert program is not None
    return program


_WITH_RUN = next(p for p in _PYTHON_RE_PATTERNS if _fresh(p, re.IGNORECASE) is not None)


def _damaged(change: Any) -> Any:
    (run_flags, code, groups, group_index, index_group), starts, folded = _program_of(_WITH_RUN)
    return change(run_flags, code, groups, group_index, index_group, starts, folded)


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param(("junk",), id="not-a-description"),
        pytest.param(_damaged(lambda f, c, g, gi, ig, s, fo: ((f, c[:-3] + (999, 1, 2), g, gi, ig),
                                                              s, fo)),
                     id="program-C-refuses"),
        pytest.param(_damaged(lambda f, c, g, gi, ig, s, fo: ((f, list(c), g, gi, ig), s, fo)),
                     id="code-not-a-tuple"),
        pytest.param(_damaged(lambda f, c, g, gi, ig, s, fo: ((f, c, g, gi, ig), (1, 2), fo)),
                     id="starts-not-text"),
        pytest.param(_damaged(lambda f, c, g, gi, ig, s, fo: ((f, c, g, gi, ig), s, "yes")),
                     id="folded-not-a-bool"),
        pytest.param(_damaged(lambda f, c, g, gi, ig, s, fo: ((f, c, g, {"x": 1}, ig), s, fo)),
                     id="group-index-not-a-tuple"),
    ],
)
def test_a_stored_description_that_is_not_a_run_is_worked_out_again(
        stored: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    analysis = segments._run_program.__wrapped__  # type: ignore[attr-defined]

    def from_a_damaged_memo(pattern: str, flags: int) -> Any:
        return stored

    from_a_damaged_memo.__wrapped__ = analysis  # type: ignore[attr-defined]
    monkeypatch.setattr(segments, "_run_program", from_a_damaged_memo)
    found = segments.necessary_run(_WITH_RUN, re.IGNORECASE)
    assert found is not None
    monkeypatch.undo()
    assert _same(found, _fresh(_WITH_RUN, re.IGNORECASE))
