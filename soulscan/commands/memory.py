"""``soulscan memory``: read and edit a real Hermes memory file with the runtime's semantics.

``add``, ``replace`` and ``remove`` go through :class:`soulscan.hermes.MemoryStore`, so
the same strict scan gates the write, the same budget, match and drift rules apply, the
same lock file is taken as a running Hermes agent takes, and the reply is the runtime's
(``--format json`` prints its exact tool reply). A refused write exits 1 with the reason.
``list`` shows the entries, the budget, and which entries the runtime would blank (or
pass unscanned) when it freezes the snapshot at session start.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from soulscan.commands._hermes_options import hermes_home_option, resolve_home, shown, shown_block
from soulscan.errors import SoulscanError
from soulscan.hermes.memory import MemoryStore, configured_char_limits, sanitise_entries
from soulscan.hermes.memory_drift import has_drift
from soulscan.hermes.memory_format import (
    BLOCKED_PREFIX,
    TARGET_FILENAMES,
    joined_length,
    usage_text,
)
from soulscan.hermes.scanner import scan_for_threats

_target_option = click.option(
    "--target",
    type=click.Choice(["memory", "user"]),
    default="memory",
    show_default=True,
    help="memory = MEMORY.md (the agent's notes), user = USER.md (the user profile).",
)
_format_option = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)


def _store(hermes_home: Path | None) -> MemoryStore:
    home = resolve_home(hermes_home)
    return MemoryStore(home, *configured_char_limits(home))


T = TypeVar("T")


def _guarded(store: MemoryStore, action: Callable[[], T]) -> T:
    """Run a store call, turning the runtime's own failures into one-line errors."""
    try:
        return action()
    except UnicodeDecodeError as exc:
        raise SoulscanError(
            f"a memory file in {shown(str(store.memory_dir))} is not valid UTF-8 (byte {exc.start}); "
            "Hermes 0.19.0 raises on it too and then runs with no memory in the prompt"
        ) from exc
    except RuntimeError as exc:
        raise SoulscanError(shown(str(exc))) from exc
    except OSError as exc:
        raise SoulscanError(
            f"cannot use {shown(str(store.memory_dir))}: {shown(str(exc))}"
        ) from exc


def _report(result: dict[str, Any], fmt: str) -> int:
    if fmt == "json":
        click.echo(json.dumps(result, ensure_ascii=True))
        return 0 if result.get("success") else 1
    if result.get("success"):
        click.echo(
            f"{result['message']} {result['target']}: {result['usage']}, {result['entry_count']} entries"
        )
        return 0
    click.echo(f"refused: {shown(str(result.get('error', '')))}")
    for key in ("current_entries", "matches"):
        for entry in result.get(key) or []:
            click.echo(f"  - {shown(entry)}")
    if "usage" in result:
        click.echo(f"  usage: {result['usage']}")
    return 1


@click.group(name="memory")
def command() -> None:
    """Read or edit $HERMES_HOME/memories/MEMORY.md and USER.md as Hermes 0.19.0 does."""


@command.command(name="add")
@click.argument("text")
@_target_option
@hermes_home_option
@_format_option
def add(text: str, target: str, hermes_home: Path | None, fmt: str) -> int:
    """Append TEXT as a new entry (scan-gated, budgeted, duplicates ignored)."""
    store = _store(hermes_home)
    return _report(_guarded(store, lambda: store.add(target, text)), fmt)


@command.command(name="replace")
@click.argument("old_text")
@click.argument("new_text")
@_target_option
@hermes_home_option
@_format_option
def replace(old_text: str, new_text: str, target: str, hermes_home: Path | None, fmt: str) -> int:
    """Replace the one entry containing OLD_TEXT with NEW_TEXT (the whole entry)."""
    store = _store(hermes_home)
    return _report(_guarded(store, lambda: store.replace(target, old_text, new_text)), fmt)


@command.command(name="remove")
@click.argument("old_text")
@_target_option
@hermes_home_option
@_format_option
def remove(old_text: str, target: str, hermes_home: Path | None, fmt: str) -> int:
    """Remove the one entry containing OLD_TEXT."""
    store = _store(hermes_home)
    return _report(_guarded(store, lambda: store.remove(target, old_text)), fmt)


def entry_verdicts(entries: list[str], filename: str) -> list[dict[str, Any]]:
    """Per entry: what the runtime puts in the prompt for it at session start."""
    verdicts = []
    for index, (entry, shown_as) in enumerate(
        zip(entries, sanitise_entries(entries, filename)), start=1
    ):
        if entry.startswith(BLOCKED_PREFIX):
            verdict, ids = "unscanned", scan_for_threats(entry, "strict")
        elif shown_as != entry:
            verdict, ids = "blanked", scan_for_threats(entry, "strict")
        else:
            verdict, ids = "loaded", []
        verdicts.append(
            {"index": index, "chars": len(entry), "verdict": verdict, "ids": ids, "text": entry}
        )
    return verdicts


@command.command(name="list")
@_target_option
@hermes_home_option
@_format_option
def list_entries(target: str, hermes_home: Path | None, fmt: str) -> int:
    """Show the entries, the budget and what the runtime would blank at load."""
    store = _store(hermes_home)
    path = store.path_for(target)
    _guarded(store, store.load_from_disk)
    entries = store.entries_for(target)
    limit = store.char_limit(target)
    verdicts = entry_verdicts(entries, TARGET_FILENAMES[target])
    raw = path.read_text(encoding="utf-8") if path.is_file() else ""
    drift = has_drift(raw, limit)
    if fmt == "json":
        report = {
            "path": str(path),
            "target": target,
            "limit": limit,
            "usage": usage_text(joined_length(entries), limit),
            "drift": drift,
            "entries": verdicts,
            "snapshot": store.format_for_system_prompt(target),
        }
        click.echo(json.dumps(report, ensure_ascii=True))
        return 0
    click.echo(
        f"{shown(str(path))}: {len(entries)} entries, {usage_text(joined_length(entries), limit)}"
    )
    if drift:
        click.echo(
            "  drift: the file is not a clean §-list; Hermes refuses replace/remove until it is fixed"
        )
    for v in verdicts:
        label = {
            "loaded": "",
            "blanked": f"  [BLANKED at load: {', '.join(v['ids'])}]",
            "unscanned": "  [starts with [BLOCKED: — passed to the prompt UNSCANNED"
            + (f"; would match {', '.join(v['ids'])}" if v["ids"] else "")
            + "]",
        }[v["verdict"]]
        click.echo(f"#{v['index']} ({v['chars']} chars){label}")
        click.echo(shown_block(v["text"], indent="    "))
    return 0
