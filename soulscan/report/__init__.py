"""Reporters: a ``ScanReport`` in, text out. Only the CLI prints and picks the exit code.

Each format is one module defining ``render(report: ScanReport, options: RenderOptions)
-> str``. To add a format, add one line to ``FORMATS``; modules are imported only when
their format is asked for.

Every string a scanned file contributed (paths, snippets, lines, decoded payloads) is
passed through ``soulscan.report.escape.escape_text`` by the reporter, or was escaped
already in the finding, so no reporter ever emits a raw control, bidi or invisible
character.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from soulscan.errors import SoulscanError
from soulscan.models import ScanReport

FORMATS: dict[str, str] = {
    "text": "soulscan.report.text",
    "json": "soulscan.report.json",
    "sarif": "soulscan.report.sarif",
    "github": "soulscan.report.github",
    "summary": "soulscan.report.summary",
}


@dataclass(frozen=True)
class RenderOptions:
    """How a report is rendered: colour, width and quietness."""
    color: bool = False  # emit ANSI styles (the CLI decides: a terminal, no NO_COLOR)
    width: int = 100  # terminal width for the text format
    quiet: bool = False  # text format: only files with something to report


Renderer = Callable[[ScanReport, RenderOptions], str]


def renderer(format_name: str) -> Renderer:
    module_name = FORMATS.get(format_name)
    if module_name is None:
        raise SoulscanError(
            f"unknown output format {format_name!r}; use one of {', '.join(sorted(FORMATS))}"
        )
    render: Renderer = importlib.import_module(module_name).render
    return render


def render(report: ScanReport, format_name: str, options: RenderOptions | None = None) -> str:
    return renderer(format_name)(report, options or RenderOptions())
