"""The skill-code pack (SS001-SS007): a skill's scripts read as code, and nothing else is."""

from __future__ import annotations

import pytest

from soulscan.engine.rulepack import Rule, builtin_packs
from soulscan.hardened.analyze import analyze
from soulscan.hardened.skill_bundle import SCRIPT_KIND, file_kind

PACK_ID = "soulscan-hardened-skill-code"


def _code_rules() -> list[Rule]:
    pack = next(p for p in builtin_packs() if p.id == PACK_ID)
    return [rule for rule in pack.rules if rule.kinds == frozenset({SCRIPT_KIND})]


def _ids(text: str, kind: str) -> set[str]:
    return {m.rule.id for m in analyze(text, kind=kind)}


@pytest.mark.parametrize(("rel_path", "kind"), [
    pytest.param("process.py", "skill-script", id="python"),
    pytest.param("scripts/install.SH", "skill-script", id="shell-upper-case"),
    pytest.param("lib/index.mjs", "skill-script", id="module-js"),
    pytest.param("SKILL.md", "skill", id="skill-md"),
    pytest.param("nested/SKILL.md", "skill", id="nested-skill-md"),
    pytest.param("config.yaml", "skill", id="config"),
    pytest.param("references/guide.md", "skill", id="markdown"),
])
def test_file_kind(rel_path: str, kind: str) -> None:
    assert file_kind(rel_path) == kind


def test_every_rule_of_the_pack_reads_scripts_only_or_is_the_bundle_rule() -> None:
    pack = next(p for p in builtin_packs() if p.id == PACK_ID)
    assert {r.id for r in pack.rules} - {r.id for r in _code_rules()} == {"SS010"}


@pytest.mark.parametrize("rule", [pytest.param(r, id=r.id) for r in _code_rules()])
def test_a_script_is_judged_as_code_and_prose_is_not(rule: Rule) -> None:
    """Each match example fires in a skill script; the same text in SKILL.md or a context
    file is an example in prose, which these rules never judge."""
    for text in rule.examples.match:
        assert rule.id in _ids(text, SCRIPT_KIND), text
        for kind in ("skill", "agents", "cursorrules", "soul", "payload"):
            assert rule.id not in _ids(text, kind), (kind, text)


def _first(text: str, rule_id: str) -> str:
    match = next(m for m in analyze(text, kind=SCRIPT_KIND) if m.rule.id == rule_id)
    return text[match.start:match.end]


def test_unbounded_loop_points_at_the_loop_line() -> None:
    text = "def spin(data):\n    while True:\n        work(data)\n\nprint('ready')\n"
    assert _first(text, "SS004") == "    while True:"


def test_path_traversal_spans_the_function_from_def_to_open() -> None:
    text = "def read(name):\n    p = os.path.join(BASE, name)\n    return open(p).read()\n"
    assert _first(text, "SS003") == text[: text.index("open(") + len("open(")]


# A careful skill script: API key in a header, parameterised SQL, a contained path, a bounded
# loop, a base64-encoded image upload. None of it is a skill-code finding.
CAREFUL_SCRIPT = '''\
import base64
import os
import sqlite3
from pathlib import Path

import requests

BASE = Path("~/documents").expanduser().resolve()


def search(conn: sqlite3.Connection, term: str) -> list[tuple[str]]:
    return conn.execute("SELECT name FROM users WHERE name LIKE ?", (f"%{term}%",)).fetchall()


def read_note(name: str) -> str:
    path = (BASE / name).resolve()
    if not path.is_relative_to(BASE):
        raise ValueError(name)
    return path.read_text()


def describe(image: bytes) -> str:
    encoded = base64.b64encode(image).decode()
    headers = {"Authorization": f"Bearer {os.environ['VISION_API_KEY']}"}
    body = {"image": encoded, "environment": "production"}
    return requests.post("https://vision.example.com/v1", json=body, headers=headers).text


def poll(job: str) -> str:
    for _ in range(30):
        status = requests.get(f"https://vision.example.com/v1/{job}").json()["status"]
        if status == "done":
            return status
    return "timeout"


def chart(rows: list[int]) -> list[int]:
    return [0] * 1024 + rows
'''


def test_a_careful_script_has_no_skill_code_finding() -> None:
    assert {i for i in _ids(CAREFUL_SCRIPT, SCRIPT_KIND) if i.startswith("SS0")} == set()
