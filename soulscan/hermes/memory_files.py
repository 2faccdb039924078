"""Reading Hermes memory files and judging their entries, without a store.

Facts from hermes-agent 0.19.0 (`tools/memory_tool.py`): the reader decodes strict
UTF-8 with universal newlines and lets ``UnicodeDecodeError`` escape; at session start
every entry is scanned at the strict scope and a hit is replaced in the prompt by the
``[BLOCKED: …]`` placeholder, except entries that already start with ``[BLOCKED:``; the
budgets come from ``memory.memory_char_limit`` / ``user_char_limit`` in config.yaml.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from soulscan.hermes.memory_format import (
    BLOCKED_PREFIX,
    DEFAULT_CHAR_LIMITS,
    blocked_entry_placeholder,
    split_entries,
)
from soulscan.hermes.scanner import scan_for_threats
from soulscan.hermes.truncation import read_hermes_config


def read_entries(path: Path) -> list[str]:
    """Entries of one memory file as the runtime reads them (no dedupe).

    Missing or unreadable → ``[]``; invalid UTF-8 raises ``UnicodeDecodeError``
    exactly as in the runtime. Anything but a regular file (a FIFO, a device) is
    unreadable here: the runtime's plain read would block on a FIFO or never end on
    ``/dev/zero``.
    """
    if not path.exists():
        return []
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        # (read as ``Path.read_text`` reads: universal newlines, the same decode errors)
        with open(descriptor, encoding="utf-8") as handle:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return []
            raw = handle.read()
    except OSError:
        return []
    return split_entries(raw)


def configured_char_limits(hermes_home: str | os.PathLike[str]) -> tuple[int, int]:
    """``memory.memory_char_limit`` / ``user_char_limit`` from config.yaml, as the runtime reads them.

    Any unreadable or non-integer value makes the runtime keep both defaults.
    """
    section = read_hermes_config(Path(hermes_home)).get("memory") or {}
    try:
        return (
            int(section.get("memory_char_limit", DEFAULT_CHAR_LIMITS["memory"])),
            int(section.get("user_char_limit", DEFAULT_CHAR_LIMITS["user"])),
        )
    except (AttributeError, TypeError, ValueError):
        return DEFAULT_CHAR_LIMITS["memory"], DEFAULT_CHAR_LIMITS["user"]


def configured_memory_switches(hermes_home: str | os.PathLike[str]) -> tuple[bool, bool]:
    """``memory.memory_enabled`` / ``user_profile_enabled`` (both default on), as truth values."""
    section = read_hermes_config(Path(hermes_home)).get("memory")
    if not isinstance(section, dict):
        return True, True
    return bool(section.get("memory_enabled", True)), bool(
        section.get("user_profile_enabled", True)
    )


def sanitise_entries(entries: Sequence[str], filename: str) -> list[str]:
    """The snapshot view: entries that trip the strict scan become placeholders.

    Entries already starting with ``[BLOCKED:`` pass unscanned (runtime weakness W11).
    """
    shown: list[str] = []
    for entry in entries:
        if not entry or entry.startswith(BLOCKED_PREFIX):
            shown.append(entry)
            continue
        ids = scan_for_threats(entry, "strict")
        shown.append(blocked_entry_placeholder(filename, ids) if ids else entry)
    return shown
