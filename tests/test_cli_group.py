"""The program's entry: subcommands found by name and imported only when run; the
start-up caches the program installs and a caller of ``main`` does not."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from soulscan.cli import main
from soulscan.commands import _group


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("nosuch", id="unknown"),
        pytest.param("check_write", id="underscore-spelling"),
        pytest.param("_group", id="private-module"),
        pytest.param("../cli", id="not-an-identifier"),
    ],
)
def test_a_name_that_is_no_subcommand_is_a_usage_error(name: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert _group._command(name) is None
    assert main([name]) == 2
    assert "No such command" in capsys.readouterr().err


def test_a_subcommand_is_found_by_its_dashed_name() -> None:
    command = _group._command("check-write")
    assert isinstance(command, click.Command) and command.name == "check-write"


def test_a_subcommand_whose_own_import_fails_is_not_called_unknown(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing dependency of a real subcommand is a crash to report, not a typo."""
    def import_without_its_dependency(name: str) -> None:
        raise ModuleNotFoundError("No module named 'some_dependency'", name="some_dependency")

    monkeypatch.setattr(_group.importlib, "import_module", import_without_its_dependency)
    with pytest.raises(ModuleNotFoundError, match="some_dependency"):
        _group._command("rules")
    assert main(["rules"]) == 3  # the last line of defence: an internal error


def test_every_listed_subcommand_resolves() -> None:
    listed = _group.LazyGroup().list_commands(click.Context(_group.cli))
    assert "scan" in listed and "check-write" in listed
    assert all(_group._command(name) is not None for name in listed)


def test_a_caller_of_main_keeps_re_as_it_was(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "AGENTS.md").write_text("Use tabs.\n", encoding="utf-8")
    compile_program = re._compiler.compile  # type: ignore[attr-defined]
    assert main(["scan", "AGENTS.md", "--format", "json"]) == 0
    assert re._compiler.compile is compile_program  # type: ignore[attr-defined]


def test_the_program_compiles_re_through_the_start_up_cache(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    (project / "AGENTS.md").write_text("Use tabs.\n", encoding="utf-8")
    cache_home = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOULSCAN_")}
    env["SOULSCAN_CACHE_DIR"] = str(cache_home)
    outputs = []
    for _ in range(3):
        completed = subprocess.run(
            [sys.executable, "-m", "soulscan", "scan", "AGENTS.md", "--format", "json"],
            cwd=project, env=env, capture_output=True, text=True, timeout=300, check=True)
        outputs.append(completed.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    assert list((cache_home / "sre").glob("*.bin"))  # each program kept on its own
    assert list(cache_home.glob("sre-gathered-*.bin"))  # and those a later run needed again
