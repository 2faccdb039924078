"""``soulscan explain`` and ``soulscan rules``."""

from __future__ import annotations

from pathlib import Path

import pytest

from soulscan.cli import main
from soulscan.engine.rulepack import builtin_packs

PACK = """\
pack: {id: team, name: Team rules, description: ours, dialect: regex}
rules:
- id: TEAM001
  name: no-yolo
  scope: context
  severity: low
  confidence: medium
  message: Says YOLO.
  pattern: yolo
  docs: {why: It is unprofessional., fix: Say something else.}
  examples: {match: ["yolo\\u200b"], no-match: ["polo"]}
"""


def _order(text: str, titles: list[str]) -> list[int]:
    return [text.index(title) for title in titles]


def test_explain_sections_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "prompt_injection"]) == 0
    out = capsys.readouterr().out
    titles = ["What it does", "Why it matters", "Example", "How to fix", "Runtime behaviour"]
    positions = _order(out, titles)
    assert positions == sorted(positions)
    assert out.startswith("prompt_injection (")
    assert "matches:" in out and "no match:" in out


def test_explain_escapes_examples_from_a_user_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "team.yaml"
    pack.write_text(PACK, encoding="utf-8")
    assert main(["explain", "TEAM001", "--rule-pack", str(pack)]) == 0
    out = capsys.readouterr().out
    assert "matches:   yolo\\u{200B}" in out and "\u200b" not in out
    assert "Why it matters\n  It is unprofessional." in out


@pytest.mark.parametrize(
    ("rule_id", "expected"),
    [
        pytest.param(
            "invisible_unicode_U+202E", "RIGHT-TO-LEFT OVERRIDE", id="runtime-invisible-id"
        ),
        pytest.param("invisible_unicode_U+200E", None, id="not-in-runtime-set"),
        pytest.param("prompt_injectoin", None, id="typo"),
    ],
)
def test_explain_synthetic_and_unknown_ids(
    rule_id: str, expected: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["explain", rule_id])
    captured = capsys.readouterr()
    if expected is None:
        assert code == 2
        assert len(captured.err.strip().splitlines()) == 1
    else:
        assert code == 0 and expected in captured.out


def test_typo_suggests_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "prompt_injectoin"]) == 2
    assert "did you mean prompt_injection" in capsys.readouterr().err


def test_rules_table_sorted_by_pack_scope_severity(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["PACK", "SCOPE", "SEVERITY", "CONFIDENCE", "ID", "NAME"]
    rows = [line.split() for line in lines[1:-1]]
    total = sum(len(p.rules) for p in builtin_packs())
    assert len(rows) == total and lines[-1] == f"{total} rules in {len(builtin_packs())} packs"
    order = ["critical", "high", "medium", "low", "info"]
    keys = [(r[0], r[1], order.index(r[2]), r[4]) for r in rows]
    assert keys == sorted(keys)


def test_rules_filters_and_rejects_unknown_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "team.yaml"
    pack.write_text(PACK, encoding="utf-8")
    assert main(["rules", "--rule-pack", str(pack), "--pack", "team"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["team", "context", "low", "medium", "TEAM001", "no-yolo"]
    assert main(["rules", "--pack", "nope"]) == 2
