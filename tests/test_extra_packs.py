"""Project rule packs from the config: matched on views, mapped back, validated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soulscan.cli import main
from soulscan.errors import RulePackError
from soulscan.extra_packs import extra_matches

RULE = """\
pack: {{id: team, name: Team rules, description: ours, dialect: regex}}
rules:
- id: {rule_id}
  name: no-yolo
  scope: context
  severity: low
  confidence: medium
  message: Says YOLO.
  pattern: yolo
  view: {view}
  kinds: [{kinds}]
  docs: {{why: It is unprofessional., fix: Say something else.}}
  examples: {{match: [yolo], no-match: [polo]}}
"""


def _pack(tmp_path: Path, rule_id: str = "TEAM001", view: str = "skeleton", kinds: str = "") -> str:
    path = tmp_path / f"{rule_id}-{view}.yaml"
    path.write_text(RULE.format(rule_id=rule_id, view=view, kinds=kinds), encoding="utf-8")
    return str(path)


def test_matches_map_back_to_the_original_text(tmp_path: Path) -> None:
    text = "hi \uff39\uff2f\uff2c\uff2f there yo\u200blo"
    found = [(r.id, a, b) for r, a, b in extra_matches(text, "agents", (_pack(tmp_path),))]
    assert found == [("TEAM001", 3, 7), ("TEAM001", 14, 19)]


def test_kinds_limit_where_a_rule_runs(tmp_path: Path) -> None:
    pack = _pack(tmp_path, kinds="soul")
    assert list(extra_matches("yolo", "agents", (pack,))) == []
    assert len(list(extra_matches("yolo", "soul", (pack,)))) == 1


@pytest.mark.parametrize(
    ("rule_id", "view", "message"),
    [
        pytest.param("TEAM002", "unicode", "view 'unicode' is for built-in packs", id="view"),
        pytest.param("prompt_injection", "raw", "id already used", id="builtin-id"),
    ],
)
def test_bad_project_pack(tmp_path: Path, rule_id: str, view: str, message: str) -> None:
    with pytest.raises(RulePackError, match=message):
        list(extra_matches("yolo", "agents", (_pack(tmp_path, rule_id, view),)))


def test_scan_and_baseline_run_the_config_packs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    pack = Path(_pack(tmp_path))
    (tmp_path / ".soulscan.yaml").write_text(
        f"rule-packs: [{pack.name}]\nfail-on: low\n", encoding="utf-8"
    )
    (tmp_path / "AGENTS.md").write_text("Ship it, YOLO.\n", encoding="utf-8")
    assert main(["scan", "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["files"][0]["findings"]
    assert [(f["rule_id"], f["line"], f["column"]) for f in findings] == [("TEAM001", 1, 10)]
    assert main(["baseline", "create"]) == 0
    assert main(["scan", "--format", "json", "--baseline", ".soulscan-baseline.json"]) == 0
