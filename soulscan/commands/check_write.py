"""``soulscan check-write PATH``: would Hermes 0.19.0's write guards let a file tool write PATH?

The checks run in the runtime's order (`tools/file_tools.write_file_tool`, then the file
operation itself): another profile's skills/plugins/cron/memories, a host-side sandbox
mirror, the container's bind-mounted mirror (only with ``--mirror-prefix``), then the
protected credential/system paths. Exit 0 when none objects; exit 1 printing the first
objection, worded exactly as the runtime words it, so hooks and other tools can use it
as a guard. ``HERMES_WRITE_SAFE_ROOT`` is honoured like the runtime honours it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

import click

from soulscan.commands._hermes_options import hermes_home_option, resolve_home, shown
from soulscan.hermes.file_safety import (
    default_hermes_root,
    get_container_mirror_warning,
    get_cross_profile_warning,
    get_sandbox_mirror_warning,
    get_write_denied_error,
)


def first_objection(
    path: str, *, hermes_home: str, home: str, mirror_prefix: str | None
) -> tuple[str, str] | None:
    """``(guard name, runtime message)`` of the first guard that refuses ``path``, if any."""
    root = default_hermes_root(hermes_home, home)
    safe_roots = os.environ.get("HERMES_WRITE_SAFE_ROOT", "").split(os.pathsep)
    checks: tuple[tuple[str, Callable[[], str | None]], ...] = (
        (
            "cross-profile",
            partial(
                get_cross_profile_warning,
                path,
                hermes_home=hermes_home,
                hermes_root=root,
                home=home,
            ),
        ),
        ("sandbox-mirror", partial(get_sandbox_mirror_warning, path, home=home)),
        ("container-mirror", partial(get_container_mirror_warning, path, mirror_prefix, home=home)),
        (
            "write-denied",
            partial(
                get_write_denied_error,
                path,
                home=home,
                hermes_home=hermes_home,
                hermes_root=root,
                safe_roots=safe_roots,
            ),
        ),
    )
    for name, check in checks:
        message = check()
        if message:
            return name, message
    return None


@click.command(name="check-write")
@click.argument("path")
@click.option(
    "--mirror-prefix",
    default=None,
    help="The container-side Hermes home mirror (e.g. /root/.hermes).",
)
@hermes_home_option
@click.option(
    "--home", "user_home", default=None, help="The user home used for ~ (default: yours)."
)
def command(
    path: str, mirror_prefix: str | None, hermes_home: Path | None, user_home: str | None
) -> int:
    """Exit 1 with the runtime's warning when a Hermes write to PATH would be refused."""
    home = user_home if user_home is not None else str(Path.home())
    objection = first_objection(
        path, hermes_home=str(resolve_home(hermes_home)), home=home, mirror_prefix=mirror_prefix
    )
    if objection is None:
        click.echo(f"ok: {shown(path)}: no Hermes 0.19.0 write guard objects")
        return 0
    guard, message = objection
    click.echo(f"{guard}: {shown(message)}")
    return 1
