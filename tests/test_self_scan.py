"""soulscan's own repository passes its own scan: the attack samples are excluded by config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soulscan.cli import main

REPO = Path(__file__).resolve().parents[1]


def test_repository_self_scan_is_clean(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(REPO)
    assert main(["scan", "--format", "json", "."]) == 0
    report = json.loads(capsys.readouterr().out)
    scanned = [f["path"] for f in report["files"]]
    assert not [p for p in scanned if p.startswith(("corpus/", "tests/", "rules/"))]


def test_without_the_config_the_samples_would_trip_it(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / ".soulscan.yaml"
    empty.write_text("{}\n", encoding="utf-8")
    monkeypatch.chdir(REPO)
    assert main(["scan", "--config", str(empty), "--format", "json", "--fail-on", "medium",
                 "corpus/examples"]) == 1
    capsys.readouterr()
