"""Facts of the Hermes 0.19.0 runtime that decide which parts of a file it loads without scanning.

Used by the `beyond-scan-window` and `beyond-hint-cut` views (rules SS701, SS705) and to mark
hardened findings that fall where the runtime never looks.
"""

from __future__ import annotations

from soulscan.hermes.scanner import MAX_SCAN_CHARS

# agent/subdirectory_hints.py of hermes-agent 0.19.0 keeps the first 8,000 characters of a hint.
HINT_MAX_CHARS = 8_000
CONTEXT_KINDS = frozenset(
    {"soul", "hermes", "agents", "claude", "cursorrules", "mdc", "memory", "user"}
)


def beyond_scan_window(text: str) -> str:
    """What the runtime never scans: everything after the first MAX_SCAN_CHARS code points."""
    return text[MAX_SCAN_CHARS:]


def beyond_hint_cut(text: str) -> str:
    """What a subdirectory hint drops: everything after the first HINT_MAX_CHARS code points."""
    return text[HINT_MAX_CHARS:]


def unscanned_start(kind: str) -> int | None:
    """Offset from which the runtime does not scan a file of this kind, or None if it scans all of it.

    Memory files are scanned per entry (each entry has its own window), so a single offset
    applies only to the context-file kinds.
    """
    if kind in CONTEXT_KINDS - {"memory", "user"}:
        return MAX_SCAN_CHARS
    return None
