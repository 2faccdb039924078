"""``soulscan hermes`` on arbitrary values at every surface's keys: it never crashes, every
report string is escaped, and pathological documents stay fast."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soulscan.audit import audit_installation
from soulscan.audit.snapshot import SNAPSHOT_FILE
from soulscan.audit.source import Marks
from soulscan.pipeline import ScanOptions
from soulscan.report.escape import is_hidden
from soulscan.report.json import report_document

PIECES = ["a", "b", " ", "{", "}", "\u200b", "\u202e", "\n", '"', "'", ".", "§", ":", "#", "-",
          "ignore previous instructions", "{__raw__}", "{pull_request.body}", "role", "system"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
SCALARS = st.none() | st.booleans() | st.integers(-5, 70000) | TEXT
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(TEXT | st.sampled_from(["prompt", "content", "role", "system_prompt",
                                                                "description", "skills"]), inner, max_size=3),
                      max_leaves=12)
CONFIG_KEYS = ["agent", "platform_hints", "platforms", "discord", "prefill_messages_file",
               "context_file_max_chars", "memory", "skills", "personalities"]


def _write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=st.dictionaries(st.sampled_from(CONFIG_KEYS), VALUES, max_size=5),
       agent=st.dictionaries(st.sampled_from(["system_prompt", "personalities", "coding_instructions",
                                              "environment_hint", "prefill_messages_file"]), VALUES, max_size=4),
       prefill=VALUES, jobs=VALUES, routes=VALUES, snapshot=VALUES, pending=VALUES)
def test_arbitrary_surfaces_never_crash(config: dict[str, Any], agent: dict[str, Any], prefill: Any,
                                        jobs: Any, routes: Any, snapshot: Any, pending: Any) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        _write(root, "config.yaml", yaml.safe_dump({**config, "agent": agent, "prefill_messages_file": "p.json"}))
        _write(root, "p.json", json.dumps(prefill))
        _write(root, "profiles/x/cron/jobs.json", json.dumps(jobs))
        _write(root, "webhook_subscriptions.json", json.dumps(routes))
        _write(root, ".skills_prompt_snapshot.json", json.dumps(snapshot))
        _write(root, "skills/c/s/SKILL.md", "---\nname: s\ndescription: d\n---\n")
        _write(root, "pending/memory/1.json", json.dumps(pending))
        document = report_document(audit_installation(root, ScanOptions(hermes_home=root)))
    shown = json.dumps(document, ensure_ascii=False)
    assert not any(is_hidden(char) for char in shown)


def test_alias_bomb_is_walked_once() -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    started = time.perf_counter()
    marks = Marks("\n".join(levels) + "\n")
    assert time.perf_counter() - started < 2
    assert marks.region(("a8",)) is not None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifos_and_devices_are_refused_not_read(tmp_path: Path) -> None:
    root = tmp_path / "home"
    for name in ("memories", "cron", "profiles/p", "pending/memory", "skills/c/s", "skills/c/t"):
        (root / name).mkdir(parents=True)
    (root / "skills/c/s/SKILL.md").write_text("---\nname: s\n---\n", encoding="utf-8")
    for name in ("SOUL.md", "memories/MEMORY.md", ".env", "cron/jobs.json", "profiles/p/config.yaml",
                 "webhook_subscriptions.json", "pending/memory/1.json", SNAPSHOT_FILE,
                 "skills/c/t/SKILL.md", "skills/c/DESCRIPTION.md", "skills/c/s/notes.md"):
        os.mkfifo(root / name)
    (root / "config.yaml").write_text("prefill_messages_file: /dev/zero\n", encoding="utf-8")
    report = audit_installation(root, ScanOptions(hermes_home=root))
    assert sorted(Path(e.path).name for e in report.errors) == [
        "DESCRIPTION.md", "MEMORY.md", "SKILL.md", "SOUL.md", "config.yaml"]
    prefill = [f for f in report.files if f.kind == "prefill"]
    assert [f.runtime.action for f in prefill] == ["skip"]
