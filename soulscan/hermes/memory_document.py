"""Memory files (MEMORY.md / USER.md) split into the entries Hermes 0.19.0 scans.

Facts (hermes-agent 0.19.0, `tools/memory_tool.py`): at load each entry is scanned
at ``strict`` scope and a poisoned one is shown as a fixed placeholder; an entry
that starts with ``[BLOCKED:`` is passed through unscanned; duplicates are
dropped (first kept) before scanning. Parsing itself lives in `memory_format`;
this module only adds where each entry sits in the decoded file.
"""

from __future__ import annotations

from typing import Any

from soulscan.hermes.memory_format import (
    BLOCKED_PREFIX,
    DEFAULT_CHAR_LIMITS,
    ENTRY_DELIMITER,
    blocked_entry_placeholder,
    parse_entries,
    render_memory_block,
)
from soulscan.hermes.scanner import MAX_SCAN_CHARS, scan_for_threats
from soulscan.hermes.spans import Region
from soulscan.hermes.truncation import HomePath, read_hermes_config
from soulscan.models import EFFECT_BLOCKS_ENTRY, EFFECT_NONE, Span

_LIMIT_KEYS = {"memory": "memory_char_limit", "user": "user_char_limit"}


def entry_offsets(text: str) -> list[tuple[int, str]]:
    """Every stripped, non-empty entry with its offset, duplicates included."""
    found: list[tuple[int, str]] = []
    position = 0
    for piece in text.split(ENTRY_DELIMITER):
        entry = piece.strip()
        if entry:
            found.append((position + len(piece) - len(piece.lstrip()), entry))
        position += len(piece) + len(ENTRY_DELIMITER)
    return found


def memory_char_limit(target: str, hermes_home: HomePath) -> int:
    """The limit shown in the block header: config `memory.<target>_char_limit` or the default."""
    section: Any = read_hermes_config(hermes_home).get("memory")
    value = section.get(_LIMIT_KEYS[target]) if isinstance(section, dict) else None
    return int(value) if isinstance(value, int) else DEFAULT_CHAR_LIMITS[target]


def _entry_region(offset: int, entry: str, filename: str) -> tuple[Region, str]:
    span = Span(offset, offset + len(entry))
    if entry.startswith(BLOCKED_PREFIX):
        return Region(entry, offset, "strict", (), EFFECT_NONE, None, (span,)), entry
    ids = tuple(scan_for_threats(entry, "strict"))
    scanned = Span(offset, offset + min(len(entry), MAX_SCAN_CHARS))
    if ids:
        region = Region(entry, offset, "strict", ids, EFFECT_BLOCKS_ENTRY, scanned, ())
        return region, blocked_entry_placeholder(filename, ids)
    return Region(entry, offset, "strict", (), EFFECT_NONE, scanned, (span,)), entry


def memory_regions(
    text: str, target: str, filename: str, *, hermes_home: HomePath
) -> tuple[tuple[Region, ...], str]:
    """One region per entry in file order, and the block the file adds to the prompt.

    A repeated entry gets a region that is neither scanned nor visible: the
    runtime drops it before scanning.
    """
    regions: list[Region] = []
    shown: list[str] = []
    unique: list[str] = []
    seen: set[str] = set()
    for offset, entry in entry_offsets(text):
        if entry in seen:
            regions.append(Region(entry, offset, "strict", (), EFFECT_NONE, None, ()))
            continue
        seen.add(entry)
        unique.append(entry)
        region, prompt_text = _entry_region(offset, entry, filename)
        regions.append(region)
        shown.append(prompt_text)
    # memory_format owns the parsing rules; the offsets must describe the same entries.
    assert unique == parse_entries(text), "entry offsets disagree with memory_format"
    limit = memory_char_limit(target, hermes_home)
    return tuple(regions), render_memory_block(target, shown, limit)
