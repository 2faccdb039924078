"""The on-disk and in-prompt shape of Hermes memory files (MEMORY.md / USER.md).

Facts from hermes-agent 0.19.0 (`tools/memory_tool.py`): entries are joined with
``"\\n§\\n"``; on read each piece is stripped, empty pieces are dropped and
duplicates are removed keeping the first; an entry that trips the strict scan at
load time is shown in the prompt as a fixed ``[BLOCKED: …]`` placeholder; a
block is a 46-wide ``═`` rule, a header with the usage, another rule, then the
entries joined with the delimiter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Literal

ENTRY_DELIMITER: Final = "\n§\n"

MemoryTarget = Literal["memory", "user"]

TARGET_FILENAMES: Final[dict[str, str]] = {"memory": "MEMORY.md", "user": "USER.md"}
DEFAULT_CHAR_LIMITS: Final[dict[str, int]] = {"memory": 2200, "user": 1375}
BLOCK_HEADERS: Final[dict[str, str]] = {
    "memory": "MEMORY (your personal notes)",
    "user": "USER PROFILE (who the user is)",
}
BLOCK_RULE: Final = "═" * 46

# Entries already carrying this prefix are passed through unscanned at load
# (runtime weakness W11); exported so the linter can flag such entries.
BLOCKED_PREFIX: Final = "[BLOCKED:"


def split_entries(text: str) -> list[str]:
    """Split on the delimiter, strip each piece and drop empty ones (no dedupe)."""
    if not text.strip():
        return []
    return [piece.strip() for piece in text.split(ENTRY_DELIMITER) if piece.strip()]


def dedupe(entries: Iterable[str]) -> list[str]:
    """Drop repeated entries, keeping the first occurrence and the order."""
    return list(dict.fromkeys(entries))


def parse_entries(text: str) -> list[str]:
    """Entries exactly as the runtime's store holds them after reading ``text``.

    ``text`` must already be decoded with universal newlines (CRLF → LF), as
    ``Path.read_text`` does; a leading BOM is kept as part of the first entry.
    """
    return dedupe(split_entries(text))


def serialise_entries(entries: Sequence[str]) -> str:
    """The file content the runtime writes for ``entries`` (empty list → "")."""
    return ENTRY_DELIMITER.join(entries)


def joined_length(entries: Sequence[str]) -> int:
    """Characters the entries occupy once joined: what every budget counts."""
    return len(ENTRY_DELIMITER.join(entries)) if entries else 0


def usage_percent(current: int, limit: int) -> int:
    """Floor percentage capped at 100 (0 when the limit is not positive)."""
    return min(100, int((current / limit) * 100)) if limit > 0 else 0


def usage_text(current: int, limit: int) -> str:
    """``"87% — 1,914/2,200 chars"``: the usage string of results and headers."""
    return f"{usage_percent(current, limit)}% — {current:,}/{limit:,} chars"


def blocked_entry_placeholder(filename: str, ids: Sequence[str]) -> str:
    """The text the runtime puts in the prompt instead of a poisoned entry."""
    return (
        f"[BLOCKED: {filename} entry contained threat pattern(s): {', '.join(ids)}. "
        "Removed from system prompt; use memory(action=remove) to delete the original.]"
    )


def render_memory_block(target: str, entries: Sequence[str], limit: int) -> str:
    """The system-prompt block for already-sanitised ``entries`` ("" when empty).

    ``target`` is ``"memory"`` or ``"user"``; anything else renders with the
    memory header, as the runtime does.
    """
    if not entries:
        return ""
    content = ENTRY_DELIMITER.join(entries)
    header_name = BLOCK_HEADERS["user"] if target == "user" else BLOCK_HEADERS["memory"]
    header = f"{header_name} [{usage_text(len(content), limit)}]"
    return f"{BLOCK_RULE}\n{header}\n{BLOCK_RULE}\n{content}"
