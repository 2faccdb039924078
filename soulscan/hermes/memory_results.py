"""The result dictionaries of Hermes 0.19.0's memory store, key order included.

Wording and key order are the runtime's (`tools/memory_tool.py`), because the
agent sees ``json.dumps`` of these dictionaries verbatim.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from soulscan.hermes.memory_format import joined_length, usage_text

Result = dict[str, Any]

WRITE_NOTE = "Write saved. This update is complete — do not repeat it."
PREVIEW_WIDTH = 80


def error(message: str) -> Result:
    return {"success": False, "error": message}


def success(target: str, entries: Sequence[str], limit: int, message: str) -> Result:
    return {
        "success": True,
        "done": True,
        "target": target,
        "usage": usage_text(joined_length(entries), limit),
        "entry_count": len(entries),
        "message": message,
        "note": WRITE_NOTE,
    }


def _short_usage(current: int, limit: int) -> str:
    return f"{current:,}/{limit:,}"


def consolidation_cap(failures: int) -> Result:
    return {
        "success": False,
        "done": True,
        "error": (
            f"Memory consolidation failed {failures} times this turn. Stop retrying memory calls — "
            "leave memory unchanged for now and continue with your reply to the user. "
            "The fact can be saved in a later turn."
        ),
    }


def add_over_limit(entries: Sequence[str], current: int, limit: int, content_length: int) -> Result:
    return {
        "success": False,
        "error": (
            f"Memory at {current:,}/{limit:,} chars. "
            f"Adding this entry ({content_length} chars) would exceed the limit. "
            "Consolidate now: use 'replace' to merge overlapping entries into shorter ones or "
            "'remove' stale or less important entries (see current_entries below), "
            "then retry this add — all in this turn."
        ),
        "current_entries": list(entries),
        "usage": _short_usage(current, limit),
    }


def replace_over_limit(entries: Sequence[str], new_total: int, current: int, limit: int) -> Result:
    return {
        "success": False,
        "error": (
            f"Replacement would put memory at {new_total:,}/{limit:,} chars. "
            "Shorten the new content, or 'remove' other stale or less important entries "
            "to make room (see current_entries below), then retry — all in this turn."
        ),
        "current_entries": list(entries),
        "usage": _short_usage(current, limit),
    }


def no_match(old_text: str, action: str, entries: Sequence[str]) -> Result:
    return {
        "success": False,
        "error": (
            f"No entry matched '{old_text}'. Check current_entries below and retry "
            f"with the exact text of the entry you want to {action}."
        ),
        "current_entries": list(entries),
    }


def previews(entries: Sequence[str], width: int = PREVIEW_WIDTH) -> list[str]:
    return [entry[:width] + ("..." if len(entry) > width else "") for entry in entries]


def multiple_matches(old_text: str, matched: Sequence[str]) -> Result:
    return {
        "success": False,
        "error": f"Multiple entries matched '{old_text}'. Be more specific.",
        "matches": previews(matched),
    }


def drift(filename: str, backup: str) -> Result:
    return {
        "success": False,
        "error": (
            f"Refusing to write {filename}: file on disk has content that wouldn't round-trip "
            "through the memory tool (likely added by the patch tool, a shell append, a manual "
            f"edit, or a concurrent session). A snapshot was saved to {backup}. Resolve the drift "
            "first — either rewrite the file as a clean §-delimited list of entries, or move the "
            "extra content out — then retry. This guard exists to prevent silent data loss "
            "(issue #26045)."
        ),
        "drift_backup": backup,
        "remediation": (
            "Open the .bak file, integrate the missing entries into the memory tool one at a "
            "time via memory(action=add, content=...), then remove or rewrite the original "
            "file to a clean state."
        ),
    }


def batch_abort(message: str, entries: Sequence[str], current: int, limit: int) -> Result:
    return {
        "success": False,
        "error": message + " No operations were applied (batch is all-or-nothing).",
        "current_entries": list(entries),
        "usage": _short_usage(current, limit),
    }


def batch_over_limit(
    count: int, new_total: int, entries: Sequence[str], current: int, limit: int
) -> Result:
    return {
        "success": False,
        "error": (
            f"After applying all {count} operations, memory would be at {new_total:,}/{limit:,} "
            "chars -- over the limit. Remove or shorten more entries in the same batch "
            "(see current_entries below), then retry."
        ),
        "current_entries": list(entries),
        "usage": _short_usage(current, limit),
    }
