"""``memory_tool``: the JSON dispatcher the agent calls, as in Hermes 0.19.0.

Argument checks happen here, before the store is touched, with the runtime's
messages; the reply is ``json.dumps(..., ensure_ascii=False)`` of the store's
result. Hermes can also route writes through an approval gate; with the gate
off (its default) writes pass straight through, which is what this models.
"""

from __future__ import annotations

import json
from typing import Any

from soulscan.hermes.memory import MemoryStore
from soulscan.hermes.memory_format import joined_length


def tool_error(message: str, **extra: Any) -> str:
    """The runtime's generic tool error: ``{"error": …}`` then any extra keys."""
    return json.dumps({"error": str(message), **extra}, ensure_ascii=False)


def _missing_old_text(store: MemoryStore, target: str, action: str) -> str:
    entries = store.entries_for(target)
    current = joined_length(entries)
    limit = store.char_limit(target)
    return json.dumps(
        {
            "success": False,
            "error": (
                f"'{action}' needs old_text -- a short unique substring of the entry "
                f"to {action}. None was provided. Reissue the {action} with old_text "
                "set to part of one of the current_entries below."
            ),
            "current_entries": entries,
            "usage": f"{current:,}/{limit:,}",
        },
        ensure_ascii=False,
    )


def memory_tool(
    store: MemoryStore | None,
    action: Any = None,
    target: Any = "memory",
    content: Any = None,
    old_text: Any = None,
    operations: Any = None,
) -> str:
    """Dispatch one memory-tool call (single op or ``operations`` batch) to ``store``."""
    if store is None:
        return tool_error(
            "Memory is not available. It may be disabled in config or this environment.",
            success=False,
        )
    if target is None:
        target = "memory"
    if target not in {"memory", "user"}:
        return tool_error(f"Invalid target '{target}'. Use 'memory' or 'user'.", success=False)
    if operations:
        if not isinstance(operations, list):
            return tool_error(
                "operations must be a list of {action, content?, old_text?} objects.", success=False
            )
        # The runtime's write gate (_apply_batch_write_gate, 0.19.0) reads every op
        # with .get before the batch runs, so an op that is not a mapping raises
        # AttributeError out of the tool call there; do exactly the same.
        for op in operations:
            (op or {}).get("action", "?")
        return json.dumps(store.apply_batch(target, operations), ensure_ascii=False)
    if action == "add" and not content:
        return tool_error("Content is required for 'add' action.", success=False)
    if action == "replace" and (not old_text or not content):
        if not old_text:
            return _missing_old_text(store, target, "replace")
        return tool_error("content is required for 'replace' action.", success=False)
    if action == "remove" and not old_text:
        return _missing_old_text(store, target, "remove")
    if action == "add":
        result = store.add(target, content)
    elif action == "replace":
        result = store.replace(target, old_text, content)
    elif action == "remove":
        result = store.remove(target, old_text)
    else:
        return tool_error(f"Unknown action '{action}'. Use: add, replace, remove", success=False)
    return json.dumps(result, ensure_ascii=False)
