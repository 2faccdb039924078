"""Drift guard: refuse to rewrite a memory file that the tool did not shape.

Hermes 0.19.0 rewrites the whole file on replace/remove/batch, which would
silently drop anything an outside writer (a shell append, a manual edit, a
patch tool) put there. Before such a rewrite it checks that the file is a clean
``§``-delimited list — re-serialising the parsed entries gives back the file
(surrounding whitespace aside) and no entry is larger than the whole budget —
and otherwise saves ``<file>.bak.<unix-ts>`` and refuses.
"""

from __future__ import annotations

import time
from pathlib import Path

from soulscan.hermes.memory_format import serialise_entries, split_entries


def has_drift(raw: str, char_limit: int) -> bool:
    """True when ``raw`` (decoded file text) would not survive a parse/serialise cycle."""
    if not raw.strip():
        return False
    parsed = split_entries(raw)
    longest = max((len(entry) for entry in parsed), default=0)
    return raw.strip() != serialise_entries(parsed) or longest > char_limit


def backup_path_for(path: Path, timestamp: int) -> Path:
    return path.with_suffix(path.suffix + f".bak.{timestamp}")


def detect_drift(path: Path, char_limit: int) -> str | None:
    """The backup written for a drifted ``path``, or None when it is tool-shaped.

    Invalid UTF-8 raises ``UnicodeDecodeError``, as in the runtime.
    """
    if not path.exists():
        return None
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError:
        return None
    if not has_drift(raw, char_limit):
        return None
    backup = backup_path_for(path, int(time.time()))
    try:
        backup.write_text(raw, encoding="utf-8")
    except OSError:
        return f"{backup} (BACKUP FAILED — file unchanged on disk)"
    return str(backup)
