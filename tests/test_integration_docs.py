"""The examples in docs/integrations.md are real: linted, schema-checked, loaded."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from soulscan.config import parse_settings
from soulscan.models import Severity

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "integrations.md"
BIN = Path(sys.executable).parent
PINNED = "0123456789abcdef" * 2 + "01234567"  # stands in for <commit-sha>
_BLOCK = re.compile(r"<!-- checked: (?P<name>[\w-]+) -->\n```\w+\n(?P<body>.*?)\n```", re.DOTALL)


def _examples() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    return {m["name"]: m["body"].replace("<commit-sha>", PINNED) for m in _BLOCK.finditer(text)}


def test_every_checked_block_is_found() -> None:
    assert set(_examples()) == {"pre-commit-config", "workflow", "soulscan-yaml", "pyproject"}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    tool = BIN / args[0]
    if not tool.exists():
        pytest.skip(f"{args[0]} is not installed (pip install -e '.[test]')")
    return subprocess.run(
        [str(tool), *args[1:]], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_workflow_passes_zizmor_and_the_schema(tmp_path: Path) -> None:
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "soulscan.yml").write_text(_examples()["workflow"] + "\n", encoding="utf-8")
    zizmor = _run("zizmor", "--offline", str(workflows / "soulscan.yml"), cwd=tmp_path)
    assert zizmor.returncode == 0 and "No findings" in zizmor.stdout, zizmor.stdout + zizmor.stderr
    schema = _run(
        "check-jsonschema",
        "--builtin-schema",
        "vendor.github-workflows",
        str(workflows / "soulscan.yml"),
        cwd=tmp_path,
    )
    assert schema.returncode == 0, schema.stdout + schema.stderr


def test_workflow_keeps_forks_read_only() -> None:
    workflow = yaml.safe_load(_examples()["workflow"])
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert "pull_request_target" not in triggers and "pull_request" in triggers
    assert workflow["permissions"] == {}
    assert workflow["jobs"]["scan"]["permissions"] == {"contents": "read"}
    assert "security-events" in workflow["jobs"]["upload"]["permissions"]
    assert "head.repo.full_name == github.repository" in workflow["jobs"]["upload"]["if"]


def test_pre_commit_config_is_valid(tmp_path: Path) -> None:
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(_examples()["pre-commit-config"] + "\n", encoding="utf-8")
    result = _run("pre-commit", "validate-config", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    hook_ids = {h["id"] for r in yaml.safe_load(config.read_text())["repos"] for h in r["hooks"]}
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook_ids <= {hook["id"] for hook in manifest}


def test_config_examples_load(tmp_path: Path) -> None:
    examples = _examples()
    from_yaml = parse_settings(
        yaml.safe_load(examples["soulscan-yaml"]), source=tmp_path / ".soulscan.yaml"
    )
    assert from_yaml.severity["SS801"] is Severity.LOW
    assert from_yaml.suppressions[0].reason.startswith("the attack catalogue")
    table = tomllib.loads(examples["pyproject"])["tool"]["soulscan"]
    from_toml = parse_settings(table, source=tmp_path / "pyproject.toml")
    assert from_toml.fail_on == "medium" and from_toml.suppressions[0].rule == "SS1*"
