"""``soulscan hermes`` on a fixture installation: every planted payload is reported with its
location and the runtime's verdict, a clean twin reports nothing, no file of the home
changes, and every output format carries the verdicts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from support.hermes_home import SECRET_VALUE, Plant, build_home

from soulscan.cli import main
from soulscan.report.json import schema_path

SARIF_SCHEMA = Path(__file__).resolve().parents[1].parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
FORMATS = ("text", "json", "sarif", "github")


@pytest.fixture(scope="module")
def poisoned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Plant]]:
    root = tmp_path_factory.mktemp("poisoned") / ".hermes"
    return root, build_home(root, poisoned=True)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("clean") / ".hermes"
    build_home(root, poisoned=False)
    return root


def run(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = main(["hermes", "--hermes-home", str(home), "--no-color", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def poisoned_report(poisoned: tuple[Path, list[Plant]]) -> dict[str, Any]:
    from soulscan.audit import audit_installation
    from soulscan.pipeline import ScanOptions
    from soulscan.report.json import report_document

    root, _ = poisoned
    return report_document(audit_installation(root, ScanOptions(hermes_home=root)))




def _plants() -> list[Any]:
    # The plant table is what build_home returns; it is rebuilt here (cheaply) for ids.
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        return [pytest.param(p, id=p.name) for p in build_home(Path(scratch) / "h", poisoned=True)]


@pytest.mark.parametrize("plant", _plants())
def test_each_plant_is_reported_with_location_and_verdict(
    plant: Plant, poisoned: tuple[Path, list[Plant]], poisoned_report: dict[str, Any]
) -> None:
    root, _ = poisoned
    wanted = str(root / plant.path)
    candidates = [
        (file, finding)
        for file in poisoned_report["files"] if file["path"] == wanted
        for finding in file["findings"]
        if finding["rule_id"].startswith(plant.rule) and plant.key in finding["message"]
    ]
    assert candidates, f"{plant.name}: nothing reported in {plant.path}"
    file, finding = candidates[0]
    assert file["runtime"]["action"] == plant.action
    if plant.line:
        assert finding["line"] == plant.line
    assert finding["line"] >= 1 and finding["column"] >= 1


def test_unscanned_surfaces_say_so(poisoned_report: dict[str, Any]) -> None:
    unscanned_kinds = {f["kind"] for f in poisoned_report["files"]
                       if "not scanned by Hermes" in (f["runtime"]["detail"] or "")}
    assert {"config", "env", "prefill", "webhook", "skill-index", "skills-snapshot",
            "state-db"} <= unscanned_kinds
    scanned = [f for f in poisoned_report["files"] if f["kind"] in ("cron", "pending")]
    assert scanned and all("not scanned by Hermes" not in (f["runtime"]["detail"] or "")
                           for f in scanned)


def test_every_profile_is_a_home(poisoned_report: dict[str, Any], poisoned: tuple[Path, list[Plant]]) -> None:
    root, _ = poisoned
    souls = {f["path"] for f in poisoned_report["files"] if f["kind"] == "soul"}
    assert souls == {str(root / "SOUL.md"), str(root / "profiles/coder/SOUL.md"),
                     str(root / "profiles/writer/SOUL.md")}


def test_clean_twin_reports_nothing(capsys: pytest.CaptureFixture[str], clean: Path) -> None:
    code, out, err = run(capsys, clean, "--format", "json")
    report = json.loads(out)
    assert [(f["path"], f["findings"]) for f in report["files"] if f["findings"]] == []
    assert report["errors"] == [] and err == ""
    assert all(f["runtime"]["action"] != "block" for f in report["files"])
    assert code == 0


@pytest.mark.parametrize("format_name", FORMATS)
def test_every_format_carries_findings_and_never_the_env_secret(
    capsys: pytest.CaptureFixture[str], poisoned: tuple[Path, list[Plant]], format_name: str
) -> None:
    root, _ = poisoned
    code, out, _ = run(capsys, root, "--format", format_name)
    assert code == 1
    assert SECRET_VALUE not in out
    for rule_id in ("SS901", "SS903", "SS906", "prompt_injection"):
        assert rule_id in out
    if format_name == "json":
        schema = json.loads(schema_path().read_text(encoding="utf-8"))
        jsonschema.validators.validator_for(schema)(schema).validate(json.loads(out))
    if format_name in ("text", "json", "sarif"):
        assert "not scanned by Hermes" in out
    if format_name == "github":  # unscanned text is shown to the model, and says so
        (personality,) = [line for line in out.splitlines() if "agent.personalities.pirate" in line
                          and "SS101" in line]
        assert "the model sees it" in personality
    if format_name == "sarif":
        assert "the model sees it" in out
    if format_name == "sarif":
        if not SARIF_SCHEMA.is_file():
            pytest.skip(f"SARIF schema not found at {SARIF_SCHEMA}")
        schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
        jsonschema.validators.validator_for(schema)(schema).validate(json.loads(out))


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"", os.lstat(p).st_mtime_ns)
            for p in sorted(root.rglob("*"))} | {".": (b"", os.lstat(root).st_mtime_ns)}


def test_no_file_of_the_home_is_modified(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = tmp_path / ".hermes"
    build_home(root, poisoned=True)
    before = _tree(root)
    for format_name in FORMATS:
        run(capsys, root, "--format", format_name)
    assert _tree(root) == before


@pytest.mark.parametrize(("args", "expected"), [
    pytest.param(("--fail-on", "never"), 0, id="never"),
    pytest.param(("--fail-on", "block"), 1, id="block"),
    pytest.param(("--fail-on", "critical"), 1, id="critical"),
])
def test_exit_codes(capsys: pytest.CaptureFixture[str], poisoned: tuple[Path, list[Plant]],
                    args: tuple[str, ...], expected: int) -> None:
    assert run(capsys, poisoned[0], "-q", *args)[0] == expected


def test_missing_home_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, tmp_path / "absent")
    assert code == 2 and "no such Hermes home" in err


@pytest.mark.parametrize(("profile", "origins"), [
    pytest.param("runtime", {"runtime"}, id="runtime"),
    pytest.param("hardened", {"hardened"}, id="hardened"),
])
def test_profiles_select_origins(capsys: pytest.CaptureFixture[str], poisoned: tuple[Path, list[Plant]],
                                 profile: str, origins: set[str]) -> None:
    _, out, _ = run(capsys, poisoned[0], "--format", "json", "--profile", profile)
    found = {f["origin"] for file in json.loads(out)["files"] for f in file["findings"]}
    assert found == origins


def test_default_home_is_hermes_home_variable(capsys: pytest.CaptureFixture[str], clean: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_HOME", str(clean))
    assert main(["hermes", "--format", "json"]) == 0
    assert str(clean / "SOUL.md") in capsys.readouterr().out


def test_config_suppression_and_disabled_rules_apply(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                     poisoned: tuple[Path, list[Plant]]) -> None:
    root, _ = poisoned
    config = tmp_path / ".soulscan.yaml"
    config.write_text("disable: [SS906]\nsuppressions:\n"
                      "  - {rule: SS901, path: '**/prefill.json', reason: reviewed few-shot file}\n",
                      encoding="utf-8")
    _, out, _ = run(capsys, root, "--format", "json", "--config", str(config))
    rules = {f["rule_id"] for file in json.loads(out)["files"] for f in file["findings"]}
    assert "SS901" not in rules and "SS906" not in rules and "SS903" in rules
