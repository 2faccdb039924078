"""One memory-store call of the conformance/differential step format, on soulscan's store.

The oracle server has its own copy of this dispatch: it runs in the oracle venv and
cannot import anything of soulscan or of these tests.
"""

from __future__ import annotations

import json
from typing import Any

from soulscan.hermes import MemoryStore, memory_tool


def apply_memory_call(store: MemoryStore, op: dict[str, Any]) -> Any:
    call = op["call"]
    if call == "add":
        return store.add(op["target"], op["content"])
    if call == "replace":
        return store.replace(op["target"], op["old_text"], op["content"])
    if call == "remove":
        return store.remove(op["target"], op["old_text"])
    if call == "batch":
        return store.apply_batch(op["target"], op["operations"])
    if call == "tool":
        return json.loads(memory_tool(store, **op["args"]))
    if call == "load":
        store.load_from_disk()
        return None
    if call == "reset_failures":
        store.reset_consolidation_failures()
        return None
    raise AssertionError(f"unknown memory call {call!r}")
