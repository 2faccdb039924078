"""The click group: subcommands found by name, imported only when run."""

from __future__ import annotations

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
