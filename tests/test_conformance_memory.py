"""Replay the shared conformance cases of areas memory, mirror and prompt through soulscan.

Every expected value was produced by Hermes 0.19.0, so each case passing means soulscan's
MemoryStore, memory tool, file-safety checks and prompt builder give the runtime's result.
The prompt cases need the runtime's own prose (default identity, guidance blocks): it is
fetched from the oracle venv, the way ``soulscan render --hermes-python`` does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any

import pytest
from support.fixtures import unavailable
from support.oracle import ORACLE_PYTHON
from support.spec import (
    Case,
    Workspace,
    conformance_path,
    expect_equal,
    load_cases,
    materialise,
    read_back,
)

from soulscan.hermes import file_safety
from soulscan.hermes.memory import MemoryStore
from soulscan.hermes.prompt import build_system_prompt_parts
from tests.support.memory_calls import apply_memory_call

AREAS = ("memory", "mirror", "prompt")
CASES: list[Case] = load_cases(AREAS) if conformance_path().is_file() else []
CONFORMANCE_DATE = dt.datetime(2026, 1, 2, 12, 0, 0)


def _require_shared() -> None:
    if not CASES:
        pytest.skip(f"shared conformance file absent: {conformance_path()}")


# --------------------------------------------------------------------------- memory




def replay_memory(case: Case, ws: Workspace) -> dict[str, Any]:
    limits = case.input.get("limits") or {}
    store = MemoryStore(ws.hermes_home, limits.get("memory", 2200), limits.get("user", 1375))
    load_error = None
    try:
        store.load_from_disk()
    except Exception as exc:  # noqa: BLE001 - the runtime's failure is part of the answer
        load_error = {"type": type(exc).__name__, "message": str(exc)}
    results = [apply_memory_call(store, op) for op in case.input.get("ops", [])]
    memories = ws.hermes_home / "memories"
    actual: dict[str, Any] = {
        "results": results,
        "load_error": load_error,
        "live": {"memory": store.memory_entries, "user": store.user_entries},
        "snapshot": store.snapshot,
        "files_after": {name: read_back(memories / name) for name in ("MEMORY.md", "USER.md")},
        "backups": sorted(p.name for p in memories.glob("*.bak.*")) if memories.is_dir() else [],
    }
    snapshot_text = "\n".join(v for v in store.snapshot.values() if v)
    probes = case.input.get("probe_substrings") or []
    actual["snapshot_contains"] = {probe: probe in snapshot_text for probe in probes}
    return {key: actual[key] for key in case.expected}


# --------------------------------------------------------------------------- mirror


def replay_mirror(case: Case, ws: Workspace) -> dict[str, Any]:
    path = ws.fill(case.input["path"])
    home = str(ws.home)
    if case.kind == "container_mirror":
        prefix = ws.fill(case.input.get("mirror_prefix"))
        return {
            "result": file_safety.classify_container_mirror_target(path, prefix, home=home),
            "warning": file_safety.get_container_mirror_warning(path, prefix, home=home),
        }
    if case.kind == "sandbox_mirror":
        return {
            "result": file_safety.classify_sandbox_mirror_target(path, home=home),
            "warning": file_safety.get_sandbox_mirror_warning(path, home=home),
        }
    if case.kind == "write_denied":
        error = file_safety.get_write_denied_error(path, home=home, hermes_home=str(ws.hermes_home))
        return {"denied": error is not None, "error": error}
    if case.kind == "read_blocked":
        return {
            "error": file_safety.get_read_block_error(
                path, hermes_home=str(ws.hermes_home), home=home
            )
        }
    raise AssertionError(f"unknown mirror kind {case.kind!r}")


# --------------------------------------------------------------------------- prompt


def replay_prompt(case: Case, ws: Workspace) -> dict[str, Any]:
    if not ORACLE_PYTHON.exists():
        unavailable("prompt cases need the runtime's prose from the oracle venv (.oracle)")
    agent = case.input.get("agent") or {}
    parts = build_system_prompt_parts(
        hermes_home=ws.hermes_home,
        cwd=ws.cwd(case.input.get("cwd")),
        system_message=case.input.get("system_message"),
        context_length=agent.get("context_length"),
        skip_context_files=agent.get("skip_context_files", False),
        load_soul_identity=agent.get("load_soul_identity", False),
        memory_enabled=agent.get("memory_enabled", True),
        user_profile_enabled=agent.get("user_profile_enabled", True),
        model=agent.get("model", ""),
        provider=agent.get("provider", ""),
        now=CONFORMANCE_DATE,
        hermes_python=str(ORACLE_PYTHON),
    )
    assert parts.runtime.error is None, parts.runtime.error
    full = parts.full_prompt
    actual = {
        **parts.as_dict(),
        "stable_prefix": parts.stable[: len(case.expected.get("stable_prefix", ""))],
        "identity_is_default": parts.identity_is_default,
        "full_prompt_sha256": hashlib.sha256(ws.unfill(full).encode("utf-8")).hexdigest(),
    }
    return {key: actual[key] for key in case.expected}


REPLAY = {"memory": replay_memory, "mirror": replay_mirror, "prompt": replay_prompt}


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_soulscan_reproduces_case(case: Case, tmp_path: Path) -> None:
    _require_shared()
    ws = materialise(case.input, tmp_path)
    actual = ws.unfill(REPLAY[case.area](case, ws))
    expect_equal(actual, case.expected, case)


def test_all_three_areas_present() -> None:
    _require_shared()
    assert {case.area for case in CASES} == set(AREAS)
