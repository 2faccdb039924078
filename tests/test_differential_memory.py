"""Differential test: soulscan's MemoryStore against Hermes 0.19.0's, step by step.

Hypothesis draws operation sequences — adds, replaces, removes, batches (malformed items
included) and raw tool calls on both targets, reloads, failure resets, and outside writers
replacing a memory file with arbitrary bytes (CRLF, BOMs, blank lines around ``§``, ``§``
inside entries, invalid UTF-8) — with small budgets so every refusal path is reached. The
same sequence runs in the real runtime (the oracle) and in soulscan, each in its own fresh
home; after every step the result (or the exception raised), both live lists, the frozen
snapshot, the bytes of both files and the backup names must be identical. The number of
sequences and steps compared is printed (``-s``); ``--slow`` runs many more.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.fixtures import oracle  # noqa: F401 (pytest fixture)
from support.oracle import Oracle
from support.spec import invisible_codepoints, sort_invisible_runs

from soulscan.hermes import memory_drift
from soulscan.hermes.memory import MemoryStore
from tests.support.memory_calls import apply_memory_call

DEFAULT_EXAMPLES = 120
SLOW_EXAMPLES = 1500
COMPARED = {"sequences": 0, "steps": 0}

# Entries share words so that substring matches, several-distinct-match refusals and
# duplicates are common; the odd texts bring the delimiter, CR, BOM and non-ASCII in.
POOL = [
    "alpha one",
    "alpha two",
    "beta one",
    "beta",
    "gamma ray",
    "CI runs on GitHub",
    "café 中文 🙂",
]
KEYS = ["alpha", "one", "two", "beta", "alpha one", "gamma", "CI", "🙂", "zzz"]
WORDS = [*POOL, "x", "§"]
RISKY = ["ignore previous instructions", "zero\u200bwidth", "cat ~/.hermes/.env", "[BLOCKED: ok]"]
GLUE = [" ", "\n", "\r\n", "\r", "\n§\n", "\t", "\ufeff", "  \n"]


def _clean_texts() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(POOL),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
    )


def _odd_texts() -> st.SearchStrategy[str]:
    piece = st.one_of(st.sampled_from(WORDS), st.sampled_from(RISKY), st.sampled_from(GLUE))
    return st.lists(piece, min_size=0, max_size=6).map("".join)


def _texts() -> st.SearchStrategy[str]:
    """Mostly plain entries built from a small vocabulary (so substrings collide), some odd."""
    return st.one_of(_clean_texts(), _clean_texts(), _clean_texts(), _odd_texts())


def _old_texts() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(KEYS), st.sampled_from(KEYS), st.sampled_from(KEYS), _texts(), st.just("  ")
    )


_targets = st.sampled_from(["memory", "memory", "memory", "user"])


def _batch_ops() -> st.SearchStrategy[list[Any]]:
    op = st.fixed_dictionaries(
        {"action": st.sampled_from(["add", "replace", "remove", "bogus", None])},
        optional={
            "content": st.one_of(_texts(), st.none()),
            "old_text": st.one_of(_old_texts(), st.none()),
        },
    )
    malformed = st.sampled_from([None, {}, "add", {"action": "add", "content": 7}])
    return st.lists(st.one_of(op, op, op, op, op, op, malformed), min_size=0, max_size=4)


def _file_bytes() -> st.SearchStrategy[bytes]:
    entries = st.lists(_texts(), min_size=0, max_size=5)
    joins = st.sampled_from(["\n§\n", "\r\n§\r\n", "\n\n§\n\n", "\n§\n\n", "§"])
    text = st.builds(
        lambda es, j, bom, tail: ("\ufeff" if bom else "") + j.join(es) + tail,
        entries,
        joins,
        st.booleans(),
        st.sampled_from(["", "\n", "\r\n", "  "]),
    )
    raw = text.map(lambda t: t.encode("utf-8"))
    invalid = st.just(b"good entry\n\xa7\nbad \xff byte")  # Latin-1 section sign: not UTF-8
    return st.one_of(*[raw] * 30, invalid)


def _steps() -> st.SearchStrategy[list[dict[str, Any]]]:
    add = st.builds(lambda t, c: {"call": "add", "target": t, "content": c}, _targets, _texts())
    write = st.builds(
        lambda n, b: {"call": "write_file", "name": n, "b64": base64.b64encode(b).decode()},
        st.sampled_from(["MEMORY.md", "USER.md"]),
        _file_bytes(),
    )
    remove = st.builds(
        lambda t, o: {"call": "remove", "target": t, "old_text": o}, _targets, _old_texts()
    )
    replace = st.builds(
        lambda t, o, c: {"call": "replace", "target": t, "old_text": o, "content": c},
        _targets,
        _old_texts(),
        _texts(),
    )
    step = st.one_of(
        add,
        add,
        add,
        add,
        write,
        remove,
        replace,
        st.builds(
            lambda t, o, c: {"call": "replace", "target": t, "old_text": o, "content": c},
            _targets,
            _old_texts(),
            _texts(),
        ),
        st.builds(
            lambda t, o: {"call": "remove", "target": t, "old_text": o}, _targets, _old_texts()
        ),
        st.builds(
            lambda t, ops: {"call": "batch", "target": t, "operations": ops}, _targets, _batch_ops()
        ),
        st.builds(
            lambda args: {"call": "tool", "args": args},
            st.fixed_dictionaries(
                {},
                optional={
                    "action": st.sampled_from(["add", "replace", "remove", "list", None]),
                    "target": st.sampled_from(["memory", "user", "notes", None]),
                    "content": st.one_of(_texts(), st.none()),
                    "old_text": st.one_of(_old_texts(), st.none()),
                    "operations": st.one_of(
                        _batch_ops(), st.none(), st.just({"action": "add"}), st.just("add")
                    ),
                },
            ),
        ),
        st.just({"call": "load"}),
        st.just({"call": "reset_failures"}),
    )
    seed = st.lists(add, min_size=1, max_size=5)  # entries for later ops to hit
    return st.builds(lambda a, b: a + b, seed, st.lists(step, min_size=1, max_size=14))


# --------------------------------------------------------------------------- soulscan side




# Both sides run each sequence with the clock standing still at this second, so that two
# drift backups in one sequence always collide as they do within one real second (a CI run
# once saw them straddle a second boundary on one side only).
CLOCK = 1_780_000_000
# A memory file an outside writer left in a shape the tool would not write back.
_DRIFTED = base64.b64encode("alpha one\n§\n\n§\nloose note".encode()).decode("ascii")


def soulscan_trace(home: Path, limits: dict[str, int], steps: list[dict[str, Any]]) -> list[Any]:
    with mock.patch.object(memory_drift, "time", SimpleNamespace(time=lambda: float(CLOCK))):
        return _soulscan_trace(home, limits, steps)


def _soulscan_trace(home: Path, limits: dict[str, int], steps: list[dict[str, Any]]) -> list[Any]:
    store = MemoryStore(home, limits["memory"], limits["user"])
    memories = home / "memories"
    trace = []
    for step in [{"call": "load"}, *steps]:
        try:
            if step["call"] == "write_file":
                memories.mkdir(parents=True, exist_ok=True)
                (memories / step["name"]).write_bytes(base64.b64decode(step["b64"]))
                outcome: Any = None
            else:
                outcome = apply_memory_call(store, step)
        except Exception as exc:  # noqa: BLE001 - compared with what the runtime raised
            outcome = {"raised": type(exc).__name__, "message": str(exc)}
        files = {
            name: base64.b64encode((memories / name).read_bytes()).decode("ascii")
            if (memories / name).is_file()
            else None
            for name in ("MEMORY.md", "USER.md")
        }
        backups = sorted(p.name for p in memories.glob("*.bak.*")) if memories.is_dir() else []
        trace.append(
            {
                "result": outcome,
                "live": {"memory": list(store.memory_entries), "user": list(store.user_entries)},
                "snapshot": store.snapshot,
                "files": files,
                "backups": backups,
            }
        )
    return trace


_TIMESTAMP = re.compile(r"\.bak\.\d+")
_NAMED_INVISIBLE = re.compile(r"invisible unicode character U\+([0-9A-F]{4,6})")


def normalised(trace: Any, home: Path, steps: list[dict[str, Any]]) -> Any:
    """Remove what legitimately differs between two runs (Hermes runtime notes §13).

    Paths become ``{HERMES_HOME}`` and backup timestamps ``{TS}``; runs of several
    ``invisible_unicode_*`` ids are sorted (the runtime orders them by string hash); and a
    ``first_threat_message`` naming an invisible character that occurs in the inputs
    becomes ``U+{ANY-PRESENT}`` (the runtime names whichever its set yields first), while
    naming one that does not occur stays visible as a difference.
    """
    text = json.dumps(trace, ensure_ascii=False, sort_keys=False)
    text = _TIMESTAMP.sub(".bak.{TS}", text.replace(str(home), "{HERMES_HOME}"))
    present = invisible_codepoints(json.dumps(steps, ensure_ascii=False))
    text = _NAMED_INVISIBLE.sub(
        lambda m: (
            "invisible unicode character U+{ANY-PRESENT}" if m.group(1) in present else m.group(0)
        ),
        text,
    )
    return sort_invisible_runs(json.loads(text))


def _examples(request: pytest.FixtureRequest) -> int:
    return SLOW_EXAMPLES if request.config.getoption("--slow") else DEFAULT_EXAMPLES


def test_memory_store_matches_runtime(
    oracle: Oracle,  # noqa: F811 (the fixture)
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> None:
    @settings(
        max_examples=_examples(request),
        deadline=None,
        derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @example(  # two drift refusals in one sequence: their backups share a name
        steps=[
            {"call": "add", "target": "memory", "content": "alpha one"},
            {"call": "write_file", "name": "MEMORY.md", "b64": _DRIFTED},
            {"call": "remove", "target": "memory", "old_text": "alpha"},
            {"call": "remove", "target": "memory", "old_text": "alpha"},
        ],
        limits={"memory": 2200, "user": 1375},
    )
    @given(
        steps=_steps(),
        limits=st.fixed_dictionaries(
            {"memory": st.sampled_from([40, 90, 2200]), "user": st.sampled_from([30, 1375])}
        ),
    )
    def check(steps: list[dict[str, Any]], limits: dict[str, int]) -> None:
        base = tmp_path_factory.mktemp("diff")
        theirs_home, ours_home = base / "oracle" / "hh", base / "soulscan" / "hh"
        theirs_home.mkdir(parents=True)
        ours_home.mkdir(parents=True)
        theirs = oracle.call(
            "memory_trace",
            hermes_home=str(theirs_home),
            home=str(base / "oracle" / "home"),
            limits=limits,
            steps=steps,
            clock=CLOCK,
        )
        ours = soulscan_trace(ours_home, limits, steps)
        expected, actual = (
            normalised(theirs, theirs_home, steps),
            normalised(ours, ours_home, steps),
        )
        for index, (want, got) in enumerate(zip(expected, actual)):
            step = ([{"call": "load"}] + steps)[index]
            assert got == want, f"step {index} {json.dumps(step, ensure_ascii=True)} differs"
        assert len(actual) == len(expected)
        COMPARED["sequences"] += 1
        COMPARED["steps"] += len(actual)

    check()
    print(
        f"\nmemory differential: {COMPARED['sequences']} sequences, {COMPARED['steps']} steps, 0 mismatches"
    )
    assert COMPARED["sequences"] >= 1
