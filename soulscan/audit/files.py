"""Reading a home's files safely: regular files only, bounded, never blocking.

A path from config.yaml (``prefill_messages_file``) can name anything — a FIFO, a
device such as ``/dev/zero`` — and a home can hold odd files. Every file the audit reads
itself goes through ``read_text``: opened non-blocking, refused unless it is a regular
file, refused above ``MAX_SURFACE_BYTES``. Refusals are ``OSError``s, which every caller
already treats as "cannot read".
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# No prompt surface is anywhere near this; state.db is read by sqlite, not here.
MAX_SURFACE_BYTES = 16 * 1024 * 1024


class UnreadableFile(OSError):
    """Not a regular file, or larger than the audit reads."""


def read_bytes(path: Path, limit: int = MAX_SURFACE_BYTES) -> bytes:
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{path}: not a regular file")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise UnreadableFile(f"{path}: larger than {limit:,} bytes")
    return data


def read_text(path: Path, *, encoding: str = "utf-8", errors: str = "strict") -> str:
    """The file decoded as ``encoding``; ``OSError`` or ``UnicodeDecodeError`` when not."""
    return read_bytes(path).decode(encoding, errors)


def is_unreadable_special(path: Path) -> bool:
    """An existing path that is not a regular file (a FIFO would block a plain open)."""
    try:
        return path.exists() and not path.is_file()
    except OSError:
        return True
