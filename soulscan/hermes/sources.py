"""Reading and locating context files the way Hermes 0.19.0 does.

Facts (hermes-agent 0.19.0, `agent/prompt_builder.py`): files are read with
``Path.read_text(encoding="utf-8")`` — strict UTF-8, universal newlines (CRLF and a
lone CR become LF), a BOM kept as U+FEFF; any read error makes the loader skip the
candidate. `.hermes.md`/`HERMES.md` is searched from cwd up to the nearest
directory holding a `.git` entry (a file counts), or in cwd alone outside a
repository. `.cursor/rules/*.mdc` is a non-recursive, case-sensitive glob that
includes dot-files, sorted by code point.

Every function takes its directory explicitly: nothing here looks at the process
cwd or at ``HERMES_HOME``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

HERMES_MD_NAMES = (".hermes.md", "HERMES.md")
AGENTS_MD_NAMES = ("AGENTS.md", "agents.md")
CLAUDE_MD_NAMES = ("CLAUDE.md", "claude.md")
CURSORRULES_NAME = ".cursorrules"
CURSOR_RULES_DIR = (".cursor", "rules")
MDC_SUFFIX = ".mdc"

# What the runtime's `except Exception` around a read turns into "skip this file".
READ_ERRORS = (OSError, UnicodeDecodeError, ValueError)


def decode_runtime_text(data: bytes) -> str:
    """Decode like ``read_text(encoding="utf-8")``: strict, universal newlines."""
    text = data.decode("utf-8")
    # Most files hold no CR: one C-speed look at the bytes (byte 0x0D is only ever U+000D
    # in UTF-8) spares two whole-text passes over the decoded text.
    if b"\r" not in data:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


class NotRegularFileError(OSError):
    """A FIFO, socket or device: the runtime would block or read forever on it."""


def read_runtime_bytes(path: Path) -> bytes:
    """The file's bytes; raises ``OSError`` for anything but a regular file.

    NOTE: the runtime would hang on a FIFO or a device; refusing them up front is
    the one place soulscan does not follow it (the candidate is skipped instead).
    """
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{path} is a directory")
    if not stat.S_ISREG(mode):
        raise NotRegularFileError(f"{path} is not a regular file")
    return path.read_bytes()


def read_runtime_text(path: Path) -> str:
    """The file's text as the runtime reads it; raises one of ``READ_ERRORS``."""
    return decode_runtime_text(read_runtime_bytes(path))


def find_git_root(directory: Path) -> Path | None:
    """The nearest of ``directory`` and its ancestors holding a `.git` entry."""
    current = directory.resolve()
    for candidate in (current, *current.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def find_hermes_md(cwd: Path) -> Path | None:
    """The first `.hermes.md`/`HERMES.md` regular file on the walk to the git root."""
    git_root = find_git_root(cwd)
    current = cwd.resolve()
    search = (current, *current.parents) if git_root else (current,)
    for directory in search:
        for name in HERMES_MD_NAMES:
            candidate = directory / name
            if candidate.is_file():
                return candidate
        if directory == git_root:
            break
    return None


def cursor_rule_files(cwd: Path) -> list[Path]:
    """`<cwd>/.cursor/rules/*.mdc` in the runtime's order (code point of the name).

    Directories and dangling links whose name matches are listed too, as the
    runtime's glob lists them; reading them then fails and they are skipped.
    """
    rules_dir = cwd.joinpath(*CURSOR_RULES_DIR)
    if not (rules_dir.exists() and rules_dir.is_dir()):
        return []
    try:
        with os.scandir(rules_dir) as entries:
            names = [entry.name for entry in entries if entry.name.endswith(MDC_SUFFIX)]
    except OSError:  # the runtime's glob yields nothing for an unreadable directory
        return []
    return [rules_dir / name for name in sorted(names)]
