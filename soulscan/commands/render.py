"""``soulscan render``: the system prompt Hermes 0.19.0 would build, part by part.

Each part is labelled with where it came from (a file, the caller, or the runtime's own
text), followed by what the runtime blocked, truncated or dropped on the way and the
character budgets. File-derived text is escaped line by line, so hidden characters show
as ``\\u{…}`` escapes instead of reaching the terminal. ``--layer`` prints one tier only;
``--format json`` gives the tiers, parts, notes and budgets as data.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click

from soulscan.commands._hermes_options import hermes_home_option, resolve_home, shown, shown_block
from soulscan.hermes.memory import MemoryStore, sanitise_entries
from soulscan.hermes.memory_files import configured_char_limits, configured_memory_switches
from soulscan.hermes.memory_format import (
    BLOCKED_PREFIX,
    TARGET_FILENAMES,
    joined_length,
    usage_percent,
)
from soulscan.hermes.prompt import TIERS, PromptParts, build_system_prompt_parts
from soulscan.hermes.scanner import scan_for_threats
from soulscan.hermes.sources import AGENTS_MD_NAMES, CLAUDE_MD_NAMES, CURSORRULES_NAME
from soulscan.hermes.truncation import context_file_max_chars

_BLOCKED_FILE = re.compile(r"\[BLOCKED: (\S+) contained potential prompt injection \(([^)]*)\)")
_PROJECT_CANDIDATES = (
    *AGENTS_MD_NAMES,
    *CLAUDE_MD_NAMES,
    CURSORRULES_NAME,
    ".hermes.md",
    "HERMES.md",
)


def _memory_budgets(store: MemoryStore | None) -> list[dict[str, Any]]:
    budgets: list[dict[str, Any]] = []
    if store is None:
        return budgets
    for target in ("memory", "user"):
        entries = store.entries_for(target)
        limit = store.char_limit(target)
        shown_entries = sanitise_entries(entries, TARGET_FILENAMES[target])
        chars = joined_length(shown_entries)
        budgets.append(
            {
                "file": str(store.path_for(target)),
                "chars": chars,
                "limit": limit,
                "percent": usage_percent(chars, limit),
                "entries": len(entries),
                "blanked": sum(1 for a, b in zip(entries, shown_entries) if a != b),
            }
        )
    return budgets


def _unscanned_memory_notes(store: MemoryStore | None) -> list[str]:
    """Entries starting with ``[BLOCKED:`` skip the load-time scan (runtime weakness W11)."""
    if store is None:
        return []
    notes = []
    for target in ("memory", "user"):
        for number, entry in enumerate(store.entries_for(target), start=1):
            if entry.startswith(BLOCKED_PREFIX):
                ids = scan_for_threats(entry, "strict")
                matched = f"; it matches {', '.join(ids)}" if ids else ""
                notes.append(
                    f"{store.path_for(target)}: entry {number} starts with [BLOCKED: and reaches "
                    f"the prompt UNSCANNED{matched}"
                )
    return notes


def findings(parts: PromptParts, cwd: Path) -> list[str]:
    """What was blocked, truncated or dropped between the files and the prompt."""
    notes = [f"{p.source}: {p.note}" for p in parts.parts if p.note]
    for p in parts.parts:
        if p.tier != "volatile":
            notes += [
                f"{name}: blocked by the runtime scan ({ids}), replaced by a [BLOCKED: …] placeholder"
                for name, ids in _BLOCKED_FILE.findall(p.text)
            ]
    notes += [f"warning: {w}" for w in parts.warnings]
    if parts.memory_load_error:
        notes.append(
            f"memory: not loaded ({parts.memory_load_error}); Hermes silently runs without memory blocks"
        )
    notes += _unscanned_memory_notes(parts.memory_store)
    for budget in _memory_budgets(parts.memory_store):
        if budget["blanked"]:
            notes.append(
                f"{budget['file']}: entries replaced by [BLOCKED: …] placeholders: {budget['blanked']}"
            )
    context = parts.context
    for name in _PROJECT_CANDIDATES:
        if (cwd / name).is_file() and f"## {name}" not in context:
            notes.append(
                f"{cwd / name}: present but not loaded (only the first project file by priority is)"
            )
    if parts.runtime.error:
        notes.append(f"runtime text: {parts.runtime.error}")
    return notes


def budgets(parts: PromptParts, hermes_home: Path, context_length: int | None) -> dict[str, Any]:
    return {
        "context_file_max_chars": context_file_max_chars(
            hermes_home=hermes_home, context_length=context_length
        ),
        "memory": _memory_budgets(parts.memory_store),
        "tiers": {tier: len(parts.tier(tier)) for tier in TIERS},
        "total": len(parts.full_prompt),
    }


def _as_json(
    parts: PromptParts, notes: list[str], budget: dict[str, Any], layer: str | None
) -> str:
    data = {
        "tiers": {t: parts.tier(t) for t in TIERS if layer in (None, t)},
        "parts": [
            {"tier": p.tier, "source": p.source, "kind": p.kind, "note": p.note, "text": p.text}
            for p in parts.parts
            if layer in (None, p.tier)
        ],
        "identity_is_default": parts.identity_is_default,
        "notes": notes,
        "budgets": budget,
        "runtime_text": {
            "python": parts.runtime.source,
            "version": parts.runtime.version,
            "error": parts.runtime.error,
        },
    }
    return json.dumps(data, ensure_ascii=True, indent=2)


def _as_text(
    parts: PromptParts, notes: list[str], budget: dict[str, Any], layer: str | None
) -> str:
    lines: list[str] = []
    for tier in TIERS:
        if layer not in (None, tier):
            continue
        lines.append(f"═══ {tier} ({budget['tiers'][tier]:,} chars) ═══")
        for part in parts.parts:
            if part.tier != tier or not part.text.strip():
                continue
            origin = {
                "runtime": "hermes-agent runtime text",
                "caller": "caller",
                "generated": "generated",
            }
            label = (
                f"{origin[part.kind]}: {part.source}" if part.kind in origin else shown(part.source)
            )
            lines.append(f"── {label}")
            lines.append(shown_block(part.text.strip(), indent="  "))
    lines.append("═══ notes ═══")
    lines += [f"- {shown(n)}" for n in notes] or ["- nothing blocked, truncated or dropped"]
    lines.append("═══ budgets ═══")
    lines.append(f"- context files: capped at {budget['context_file_max_chars']:,} chars each")
    for m in budget["memory"]:
        lines.append(
            f"- {shown(Path(m['file']).name)}: {m['percent']}% of {m['limit']:,} "
            f"({m['chars']:,} chars in the prompt; entries: {m['entries']})"
        )
    lines.append(f"- whole prompt: {budget['total']:,} chars")
    return "\n".join(lines)


@click.command(name="render")
@hermes_home_option
@click.option(
    "--cwd",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    help="Project directory.",
)
@click.option(
    "--context-length", type=click.IntRange(min=1), default=None, help="The model's context window."
)
@click.option("--layer", type=click.Choice(TIERS), default=None, help="Print one tier only.")
@click.option(
    "--hermes-python",
    default=None,
    help="A python that can import hermes-agent (for its own text).",
)
@click.option(
    "--system-message",
    default=None,
    help="A caller system message (goes first in the context tier).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def command(
    hermes_home: Path | None,
    cwd: Path,
    context_length: int | None,
    layer: str | None,
    hermes_python: str | None,
    system_message: str | None,
    fmt: str,
) -> int:
    """Show the system prompt Hermes 0.19.0 would build from these files."""
    home = resolve_home(hermes_home)
    memory_limit, user_limit = configured_char_limits(home)
    memory_on, user_on = configured_memory_switches(home)
    parts = build_system_prompt_parts(
        memory_char_limit=memory_limit,
        user_char_limit=user_limit,
        memory_enabled=memory_on,
        user_profile_enabled=user_on,
        hermes_home=home,
        cwd=cwd,
        context_length=context_length,
        system_message=system_message,
        hermes_python=hermes_python,
    )
    notes = findings(parts, cwd.resolve())
    for name, enabled in (("memory_enabled", memory_on), ("user_profile_enabled", user_on)):
        if not enabled:
            notes.append(f"config.yaml: memory.{name} is off, so that block is not in the prompt")
    budget = budgets(parts, home, context_length)
    click.echo((_as_json if fmt == "json" else _as_text)(parts, notes, budget, layer))
    return 0
