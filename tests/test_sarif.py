"""SARIF 2.1.0: golden file, schema validity, GitHub's accepted subset, stable fingerprints."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.cli import main
from soulscan.models import FileResult, Location, RuntimeSummary, ScanError, ScanReport
from soulscan.report.sarif import artifact_uri, dumps, sarif_log
from tests.report_samples import INJECTION, make_finding, sample_report, sample_rules

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SCHEMA_PATH = SHARED / "schemas" / "sarif-schema-2.1.0.json"
GOLDEN = Path(__file__).resolve().parent / "golden" / "sarif"
UPDATE = os.environ.get("SOULSCAN_UPDATE_GOLDEN") == "1"


def check_golden(name: str, actual: str) -> None:
    golden = GOLDEN / name
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8")
    assert actual == golden.read_text(encoding="utf-8"), (
        f"rerun with SOULSCAN_UPDATE_GOLDEN=1 ({name})"
    )


def validate(log: dict[str, Any]) -> None:
    if not SCHEMA_PATH.is_file():
        pytest.skip(f"shared SARIF schema not found at {SCHEMA_PATH}")
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(log)


def check_github_subset(log: dict[str, Any]) -> None:
    """The constraints GitHub code scanning enforces on upload, beyond the schema."""
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"]
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids)) <= 25_000
    assert len(run["results"]) <= 25_000
    for rule in driver["rules"]:
        severity = float(rule["properties"]["security-severity"])
        assert 0.0 <= severity <= 10.0
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert "security" in rule["properties"]["tags"]
    for result in run["results"]:
        assert result["message"]["text"]
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert 1 <= len(result["locations"]) <= 10
        physical = result["locations"][0]["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert uri and "\\" not in uri and " " not in uri and uri.isascii()
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (
            region["startLine"],
            region["startColumn"],
        )
        assert all(len(v) == 64 for v in result["partialFingerprints"].values())


def test_golden_sample() -> None:
    log = sarif_log(sample_report(), rules=sample_rules(), tool_version="0.0.0-test")
    check_golden("sample.sarif", dumps(log))


def test_sample_is_valid_sarif_and_meets_github_subset() -> None:
    log = sarif_log(sample_report())
    validate(log)
    check_github_subset(log)


def test_invalid_log_is_rejected_by_the_schema() -> None:
    # The validator really checks: a zero start line must fail.
    log = sarif_log(sample_report())
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    with pytest.raises(jsonschema.ValidationError):
        validate(log)


def test_output_is_ascii_and_hides_nothing() -> None:
    text = dumps(sarif_log(sample_report()))
    assert text.isascii()
    decoded = json.dumps(json.loads(text), ensure_ascii=False)
    # After JSON decoding, hostile characters only survive inside percent-encoded URIs.
    assert "\u202e" not in decoded and "\U000e0069" not in decoded


def test_rules_results_and_runtime_properties() -> None:
    run = sarif_log(sample_report())["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["newlineSequences"] == ["\r\n", "\n", "\r"]
    fired = {r.rule_id for f in sample_report().files for r in f.findings}
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} == fired
    first = run["results"][0]
    assert first["properties"]["runtime"] == {
        "action": "block",
        "ids": ["prompt_injection"],
        "effect": "blocks-file",
        "visible": True,
    }
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3,
        "startColumn": 5,
        "endLine": 3,
        "endColumn": 37,
    }
    assert run["invocations"][0]["executionSuccessful"] is False
    assert run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"] == (
        "bad\\nname.md: not valid UTF-8 at byte 4"
    )


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        pytest.param("AGENTS.md", "AGENTS.md", id="plain"),
        pytest.param("./docs/AGENTS.md", "docs/AGENTS.md", id="dot-slash"),
        pytest.param("docs\\AGENTS.md", "docs/AGENTS.md", id="backslash"),
        pytest.param("a b/c,d%.md", "a%20b/c%2Cd%25.md", id="reserved"),
        pytest.param("\u00e9\u202e.md", "%C3%A9%E2%80%AE.md", id="non-ascii"),
        pytest.param("/abs/SOUL.md", "file:///abs/SOUL.md", id="absolute"),
        pytest.param("bad\udcffname", "bad%FFname", id="undecodable-byte"),
    ],
)
def test_artifact_uri(path: str, uri: str) -> None:
    assert artifact_uri(path) == uri


def _fingerprints(report: ScanReport) -> list[str]:
    return [
        r["partialFingerprints"]["soulscan/v1"] for r in sarif_log(report)["runs"][0]["results"]
    ]


def test_fingerprints_survive_edits_elsewhere_and_tell_twins_apart() -> None:
    report = sample_report()
    before = _fingerprints(report)
    assert len(set(before)) == len(before)  # the two identical payloads differ by occurrence
    agents = report.files[0]
    moved = tuple(
        dataclasses.replace(
            f, location=Location(f.location.line + 7, 1, f.location.end_line + 7, 9)
        )
        for f in agents.findings
    )
    shifted = dataclasses.replace(
        report, files=(dataclasses.replace(agents, findings=moved), *report.files[1:])
    )
    assert _fingerprints(shifted) == before
    changed = dataclasses.replace(
        report,
        files=(
            dataclasses.replace(
                agents,
                findings=(
                    make_finding(
                        "prompt_injection", "AGENTS.md", INJECTION + "!", Location(3, 5, 3, 38)
                    ),
                    *agents.findings[1:],
                ),
            ),
            *report.files[1:],
        ),
    )
    assert _fingerprints(changed)[0] != before[0]


def test_scan_command_emits_valid_sarif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "AGENTS.md").write_text(f"Rules.\n{INJECTION}\nhi\u200bthere\n", encoding="utf-8")
    (tmp_path / "SOUL.md").write_text("Be kind.\n", encoding="utf-8")
    code = main(["scan", "--format", "sarif", str(tmp_path)])
    log = json.loads(capsys.readouterr().out)
    assert code == 1
    validate(log)
    check_github_subset(log)
    regions = {
        r["ruleId"]: r["locations"][0]["physicalLocation"]["region"]
        for r in log["runs"][0]["results"]
    }
    assert regions["prompt_injection"] == {
        "startLine": 2,
        "startColumn": 1,
        "endLine": 2,
        "endColumn": 33,
    }
    assert regions["invisible_unicode_U+200B"] == {
        "startLine": 3,
        "startColumn": 3,
        "endLine": 3,
        "endColumn": 4,
    }


def _scan_sarif(target: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["scan", "--format", "sarif", "--fail-on", "never", str(target)])
    out = capsys.readouterr().out
    assert code in (0, 2), "only unreadable items may change the exit code"
    log: dict[str, Any] = json.loads(out)
    return log


def test_scan_of_corpus_validates(capsys: pytest.CaptureFixture[str]) -> None:
    log = _scan_sarif(REPO / "corpus", capsys)
    if not log["runs"][0]["artifacts"]:
        pytest.skip("corpus/ holds no context files yet")
    validate(log)
    check_github_subset(log)


SHARED_SAMPLES = {
    "trojan_source": 25,
    "payload_lists_misc": 11,
    "context_file_attacks": 20,
    "garak_probes": 60,
    "soul_md_collection": 15,
}


def test_scan_of_shared_corpora_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real attack and benign texts, each written as an AGENTS.md, give valid SARIF."""
    corpora = SHARED / "corpora"
    if not corpora.is_dir():
        pytest.skip(f"shared corpora not found at {corpora}")
    written = 0
    for corpus, limit in SHARED_SAMPLES.items():
        lines = (corpora / corpus / "items.jsonl").read_text(encoding="utf-8").splitlines()
        for line in lines[:: max(1, len(lines) // limit)][:limit]:
            item = json.loads(line)
            directory = tmp_path / item["id"]
            directory.mkdir()
            (directory / "AGENTS.md").write_text(item["text"], encoding="utf-8", newline="")
            written += 1
    log = _scan_sarif(tmp_path, capsys)
    validate(log)
    check_github_subset(log)
    run = log["runs"][0]
    assert len(run["artifacts"]) == written
    assert len(run["results"]) > 50
    fingerprints = [r["partialFingerprints"]["soulscan/v1"] for r in run["results"]]
    assert len(set(fingerprints)) == len(fingerprints)


@st.composite
def hostile_reports(draw: st.DrawFn) -> ScanReport:
    path = draw(st.text(min_size=1, max_size=20))
    matched = draw(st.text(min_size=1, max_size=20))
    line = draw(st.integers(min_value=1, max_value=10_000))
    column = draw(st.integers(min_value=1, max_value=500))
    end = draw(st.integers(min_value=column, max_value=column + 500))
    finding = make_finding(
        draw(st.sampled_from(["prompt_injection", "SS401", "invisible_unicode_U+200B"])),
        path,
        matched,
        Location(line, column, line, end),
        snippet=draw(st.text(max_size=20)),
        decoded=draw(st.none() | st.text(max_size=10)),
    )
    return ScanReport(
        (FileResult(path, "agents", RuntimeSummary("load"), (finding,)),),
        (ScanError(draw(st.text(min_size=1, max_size=10)), draw(st.text(max_size=10))),),
    )


@settings(max_examples=30, deadline=None)
@given(hostile_reports())
def test_any_report_gives_valid_ascii_sarif(report: ScanReport) -> None:
    text = dumps(sarif_log(report))
    assert text.isascii()
    log = json.loads(text)
    validate(log)
    check_github_subset(log)
