"""The ``soulscan`` click group: each subcommand is imported when it is run.

Apart from ``soulscan.cli`` so the program can install its start-up caches before click
and the standard library modules click imports compile their patterns.
"""

from __future__ import annotations

import importlib

import click

from soulscan import __version__


def _command_modules() -> dict[str, str]:
    import pkgutil  # only for listing (--help): it costs start-up

    import soulscan.commands as package

    return {
        info.name.replace("_", "-"): f"soulscan.commands.{info.name}"
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_")
    }


def _command(cmd_name: str) -> click.Command | None:
    """The command of one subcommand's module, found without listing them all."""
    name = cmd_name.replace("-", "_")
    if not name.isidentifier() or name.startswith("_") or "_" in cmd_name:
        return None
    module_name = f"soulscan.commands.{name}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None  # no such subcommand
        raise  # the subcommand is there, something it imports is not
    command = module.command
    assert isinstance(command, click.Command)
    return command


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_command_modules())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return _command(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="soulscan")
def cli() -> None:
    """Security linter for the files that shape an AI agent's system prompt."""
