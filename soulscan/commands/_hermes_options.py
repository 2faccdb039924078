"""Options shared by the commands that act on a Hermes home (render, memory, check-write)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from soulscan.report.escape import escape_text

F = TypeVar("F", bound=Callable[..., Any])


def default_hermes_home() -> Path:
    """``$HERMES_HOME`` when set (as the runtime reads it), else ``~/.hermes``."""
    value = os.environ.get("HERMES_HOME", "").strip()
    return Path(value) if value else Path.home() / ".hermes"


def hermes_home_option(func: F) -> F:
    return click.option(
        "--hermes-home",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="The Hermes home (default: $HERMES_HOME, else ~/.hermes).",
    )(func)


def resolve_home(value: Path | None) -> Path:
    """The Hermes home to use, made absolute so every path shown is unambiguous."""
    return (value if value is not None else default_hermes_home()).absolute()


def shown(text: str) -> str:
    """One line of file-derived text, with every hidden or dangerous character escaped."""
    return escape_text(text)


def shown_block(text: str, indent: str = "") -> str:
    """Multi-line file-derived text, escaped line by line (real newlines kept)."""
    return "\n".join(indent + escape_text(line) for line in text.split("\n"))
