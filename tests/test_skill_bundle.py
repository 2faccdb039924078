"""A skill judged as a bundle: SKILL.md answers for its flagged files (SS010), on disk and in eval."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from soulscan.cli import main
from soulscan.models import FileResult, Finding, ScanReport
from soulscan.skill_report import skill_report

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from skills_cron_oracle import write_tree

SKILL = "---\nname: data-processor\ndescription: Process and validate data inputs\n---\nRun it.\n"
EVAL_SCRIPT = 'def run(data):\n    return eval("1 + 1")\n'
SQL_SCRIPT = 'def find(db, name):\n    return db.execute(f"SELECT * FROM users WHERE name = \'{name}\'")\n'
CLEAN_SCRIPT = "def run(data):\n    return sorted(data)\n"


def _file(report: ScanReport, suffix: str) -> FileResult:
    return next(f for f in report.files if f.path.endswith(suffix))


def _bundle(report: ScanReport) -> list[Finding]:
    return [f for f in _file(report, "SKILL.md").findings if f.rule_id == "SS010"]


def test_skill_md_answers_for_each_flagged_file(tmp_path: Path) -> None:
    write_tree(tmp_path, {"s/SKILL.md": SKILL, "s/scripts/find.py": SQL_SCRIPT,
                          "s/config.yaml": "base_url: https://a1b2c3.ngrok-free.dev/cb\n",
                          "s/clean.py": CLEAN_SCRIPT})
    report = skill_report(tmp_path / "s", display="s", profile="hardened")
    bundle = _bundle(report)
    assert [f.message for f in bundle] == [
        "The skill bundles a flagged file: config.yaml (SS210).",
        "The skill bundles a flagged file: scripts/find.py (SS002).",
    ]
    assert {(f.location.line, f.snippet, f.origin, str(f.severity)) for f in bundle} == {
        (2, "name: data-processor", "hardened", "medium")}
    # One baseline identity per flagged file, though both sit on the same name line.
    assert len({f.extra["sha256"] for f in bundle}) == 2
    assert [f.rule_id for f in _file(report, "find.py").findings] == ["SS002"]


def test_a_hardened_hit_the_guard_also_reports_still_flags_the_skill(tmp_path: Path) -> None:
    """run.py shows the guard's own eval finding (the hardened one on the same text is not
    repeated), and the skill is still judged by the hardened analysis of every file."""
    write_tree(tmp_path, {"s/SKILL.md": SKILL, "s/run.py": EVAL_SCRIPT})
    report = skill_report(tmp_path / "s")
    assert [f.rule_id for f in _file(report, "run.py").findings] == ["eval_string"]
    assert [f.message for f in _bundle(report)] == [
        "The skill bundles a flagged file: run.py (SS001)."]


@pytest.mark.parametrize(("tree", "profile"), [
    pytest.param({"s/SKILL.md": SKILL, "s/run.py": CLEAN_SCRIPT}, "all", id="clean-script"),
    pytest.param({"s/SKILL.md": SKILL, "s/run.py": EVAL_SCRIPT}, "runtime", id="runtime-profile"),
    pytest.param({"s/SKILL.md": SKILL, "s/notes.md": EVAL_SCRIPT}, "all",
                 id="code-in-markdown-is-prose"),
])
def test_no_bundle_finding(tmp_path: Path, tree: dict[str, str], profile: str) -> None:
    write_tree(tmp_path, tree)
    assert _bundle(skill_report(tmp_path / "s", profile=profile)) == []


def test_without_frontmatter_the_finding_sits_at_the_start(tmp_path: Path) -> None:
    write_tree(tmp_path, {"s/SKILL.md": "# Data processor\n\nRun run.py.\n", "s/run.py": EVAL_SCRIPT})
    (finding,) = _bundle(skill_report(tmp_path / "s"))
    assert (finding.location.line, finding.location.column, finding.snippet) == (1, 1, "")


def test_a_flagged_file_name_is_escaped(tmp_path: Path) -> None:
    write_tree(tmp_path, {"s/SKILL.md": SKILL, "s/ru\u202en.py": EVAL_SCRIPT})
    (finding,) = _bundle(skill_report(tmp_path / "s"))
    assert "\u202e" not in finding.message and "\u202e" not in finding.extra["detail"]
    assert "ru\\u{202E}n.py (SS001)" in finding.message


def test_a_skill_md_scanned_alone_has_no_bundle(tmp_path: Path) -> None:
    write_tree(tmp_path, {"s/SKILL.md": SKILL, "s/run.py": EVAL_SCRIPT})
    report = skill_report(tmp_path / "s" / "SKILL.md")
    assert all(f.rule_id != "SS010" for r in report.files for f in r.findings)


def test_scan_as_skill_json_carries_the_bundle_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"s/SKILL.md": SKILL, "s/run.py": EVAL_SCRIPT})
    main(["scan", "--as", "skill", str(tmp_path / "s"), "--format", "json", "--fail-on", "never"])
    files = json.loads(capsys.readouterr().out)["files"]
    skill_md = next(f for f in files if f["path"].endswith("SKILL.md"))
    assert [(x["rule_id"], x["detail"]) for x in skill_md["findings"]] == [
        ("SS010", "bundled file run.py (SS001)")]


# --- soulscan eval: corpus items grouped into skills ----------------------------------------

REPO = "example/skills"


def _item(n: int, path: str, text: str, label: str = "injection", **extra: str) -> dict[str, str]:
    kind = "skill_md" if path.endswith("SKILL.md") else "skill_asset"
    return {"id": f"demo-{n}", "text": text, "label": label, "kind": kind, "repo": REPO,
            "source_path": path, **extra}


ITEMS = [
    _item(1, "a/SKILL.md", SKILL),
    _item(2, "a/scripts/run.py", EVAL_SCRIPT),  # nested: still skill a's file
    _item(3, "b/SKILL.md", SKILL),
    _item(4, "b/run.py", CLEAN_SCRIPT),
    _item(5, "a/SKILL.md", SKILL, repo="other/repo"),  # same path, another repository
    {"id": "demo-6", "text": SKILL, "label": "injection", "kind": "skill_md"},  # no path: alone
    _item(7, "c/SKILL.md", SKILL, label="benign"),
    _item(8, "c/run.py", EVAL_SCRIPT, label="benign"),
]


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    return path


def test_eval_flags_a_skill_md_through_its_skill_and_says_so(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(corpus), "--format", "json", "--items"]) == 0
    data = json.loads(capsys.readouterr().out)
    items = {i["id"]: (i["hardened"], i["via_bundle"], i["rules"]) for i in data["items"]}
    assert items == {
        "demo-1": (True, True, ["SS010"]),
        "demo-2": (True, False, ["SS001"]),
        "demo-3": (False, False, []),
        "demo-4": (False, False, []),
        "demo-5": (False, False, []),
        "demo-6": (False, False, []),
        "demo-7": (True, True, ["SS010"]),  # a benign skill shipping a flagged file: counted
        "demo-8": (True, False, ["SS001"]),
    }
    rows = {(r["label"]): (r["hardened"], r["hardened_via_bundle"]) for r in data["rows"]}
    assert rows == {"injection": (2, 1), "benign": (2, 1)}


def test_eval_text_names_the_bundle_hits_apart(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(corpus)]) == 0
    out = capsys.readouterr().out
    assert ("demo: 1 of the 2 flagged injection items are SKILL.md files flagged only because "
            "their skill ships a flagged file (SS010); each file judged by its own text alone: "
            "16.7% (1/6).") in out


def test_eval_runtime_profile_has_no_bundle(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(corpus), "--profile", "runtime", "--format", "json", "--items"]) == 0
    assert not any(i["via_bundle"] for i in json.loads(capsys.readouterr().out)["items"])


def test_hermes_audit_judges_installed_skills_as_bundles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"skills/tools/proc/SKILL.md": SKILL, "skills/tools/proc/find.py": SQL_SCRIPT})
    main(["hermes", "--hermes-home", str(tmp_path), "--profile", "hardened", "--format", "json",
          "--fail-on", "never"])
    files = json.loads(capsys.readouterr().out)["files"]
    found = {(Path(f["path"]).name, f["kind"], x["rule_id"]) for f in files for x in f["findings"]}
    assert {("SKILL.md", "skill", "SS010"), ("find.py", "skill", "SS002")} <= found
