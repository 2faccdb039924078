"""``MemoryStore``: Hermes 0.19.0's bounded, file-backed memory (`tools/memory_tool.py`).

Two lists of entries per home (``memories/MEMORY.md`` and ``memories/USER.md``):
the *live* lists, which every write re-reads from disk under the lock and then
persists, and the *snapshot*, the prompt blocks frozen by ``load_from_disk``.
Every result dictionary (keys, key order, wording) is the runtime's, so
``json.dumps`` of a result is byte-identical to the agent's tool reply.

Deliberate difference: ``load_from_disk`` only reads. The runtime also creates
``memories/`` there; soulscan never writes into a home just to look at it.
Writes create the directory as the runtime does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from soulscan.hermes import memory_results as results
from soulscan.hermes.atomic import atomic_write_text, exclusive_lock
from soulscan.hermes.memory_drift import detect_drift
from soulscan.hermes.memory_files import configured_char_limits, read_entries, sanitise_entries
from soulscan.hermes.memory_format import (
    TARGET_FILENAMES,
    dedupe,
    joined_length,
    render_memory_block,
    serialise_entries,
)
from soulscan.hermes.scanner import first_threat_message

__all__ = ["MemoryStore", "configured_char_limits", "read_entries", "sanitise_entries"]

Result = dict[str, Any]


class MemoryStore:
    """One Hermes home's memory, with the runtime's semantics for every operation."""

    MAX_CONSOLIDATION_FAILURES_PER_TURN = 3

    def __init__(
        self,
        hermes_home: str | os.PathLike[str],
        memory_char_limit: int = 2200,
        user_char_limit: int = 1375,
    ):
        self.hermes_home = Path(hermes_home)
        self.memory_char_limit = memory_char_limit
        self.user_char_limit = user_char_limit
        self.memory_entries: list[str] = []
        self.user_entries: list[str] = []
        self._snapshot: dict[str, str] = {"memory": "", "user": ""}
        self._consolidation_failures = 0

    # --- paths, limits, live state ------------------------------------------------

    @property
    def memory_dir(self) -> Path:
        return self.hermes_home / "memories"

    def path_for(self, target: str) -> Path:
        return self.memory_dir / TARGET_FILENAMES["user" if target == "user" else "memory"]

    def char_limit(self, target: str) -> int:
        return self.user_char_limit if target == "user" else self.memory_char_limit

    def entries_for(self, target: str) -> list[str]:
        return self.user_entries if target == "user" else self.memory_entries

    def _set_entries(self, target: str, entries: list[str]) -> None:
        if target == "user":
            self.user_entries = entries
        else:
            self.memory_entries = entries

    def char_count(self, target: str) -> int:
        return joined_length(self.entries_for(target))

    # --- snapshot ----------------------------------------------------------------

    def load_from_disk(self) -> None:
        """Read both files and freeze the prompt snapshot (sanitised at strict scope)."""
        self.memory_entries = read_entries(self.path_for("memory"))
        self.user_entries = read_entries(self.path_for("user"))
        self.memory_entries = dedupe(self.memory_entries)
        self.user_entries = dedupe(self.user_entries)
        self._snapshot = {
            target: render_memory_block(
                target,
                sanitise_entries(self.entries_for(target), TARGET_FILENAMES[target]),
                self.char_limit(target),
            )
            for target in ("memory", "user")
        }

    def format_for_system_prompt(self, target: str) -> str | None:
        """The frozen block for ``target``, or None when it was empty at load."""
        return self._snapshot.get(target) or None

    @property
    def snapshot(self) -> dict[str, str | None]:
        return {target: self.format_for_system_prompt(target) for target in ("memory", "user")}

    # --- consolidation-failure budget -----------------------------------------------

    def reset_consolidation_failures(self) -> None:
        """Start a new turn: the failure cap counts per turn."""
        self._consolidation_failures = 0

    def _consolidation_failure(self, response: Result) -> Result:
        self._consolidation_failures += 1
        if self._consolidation_failures <= self.MAX_CONSOLIDATION_FAILURES_PER_TURN:
            return response
        return results.consolidation_cap(self._consolidation_failures)

    def _success(self, target: str, message: str) -> Result:
        self._consolidation_failures = 0
        return results.success(target, self.entries_for(target), self.char_limit(target), message)

    # --- disk ------------------------------------------------------------------------

    def _reload(self, target: str, *, check_drift: bool) -> str | None:
        """Re-read ``target`` under the lock; the backup path when drift was found."""
        backup = (
            detect_drift(self.path_for(target), self.char_limit(target)) if check_drift else None
        )
        self._set_entries(target, dedupe(read_entries(self.path_for(target))))
        return backup

    def save_to_disk(self, target: str) -> None:
        path = self.path_for(target)
        self.memory_dir.mkdir(parents=True, exist_ok=True)
        try:
            atomic_write_text(path, serialise_entries(self.entries_for(target)))
        except OSError as exc:
            raise RuntimeError(f"Failed to write memory file {path}: {exc}") from exc

    # --- operations ------------------------------------------------------------------

    def add(self, target: str, content: str) -> Result:
        content = content.strip()
        if not content:
            return results.error("Content cannot be empty.")
        blocked = first_threat_message(content, "strict")
        if blocked:
            return results.error(blocked)
        with exclusive_lock(self.path_for(target)):
            self._reload(target, check_drift=False)
            entries = self.entries_for(target)
            limit = self.char_limit(target)
            if content in entries:
                return self._success(target, "Entry already exists (no duplicate added).")
            if joined_length([*entries, content]) > limit:
                return self._consolidation_failure(
                    results.add_over_limit(entries, self.char_count(target), limit, len(content))
                )
            entries.append(content)
            self.save_to_disk(target)
        return self._success(target, "Entry added.")

    def _unique_match(self, entries: list[str], old_text: str, action: str) -> int | Result:
        """Index of the entry containing ``old_text``, or the runtime's error for it."""
        matches = [(i, entry) for i, entry in enumerate(entries) if old_text in entry]
        if not matches:
            return self._consolidation_failure(results.no_match(old_text, action, entries))
        if len({entry for _, entry in matches}) > 1:
            return results.multiple_matches(old_text, [entry for _, entry in matches])
        return matches[0][0]

    def replace(self, target: str, old_text: str, new_content: str) -> Result:
        old_text = old_text.strip()
        new_content = new_content.strip()
        if not old_text:
            return results.error("old_text cannot be empty.")
        if not new_content:
            return results.error("new_content cannot be empty. Use 'remove' to delete entries.")
        blocked = first_threat_message(new_content, "strict")
        if blocked:
            return results.error(blocked)
        with exclusive_lock(self.path_for(target)):
            backup = self._reload(target, check_drift=True)
            if backup:
                return results.drift(self.path_for(target).name, backup)
            entries = self.entries_for(target)
            found = self._unique_match(entries, old_text, "replace")
            if not isinstance(found, int):
                return found
            limit = self.char_limit(target)
            trial = entries.copy()
            trial[found] = new_content
            new_total = joined_length(trial)
            if new_total > limit:
                return self._consolidation_failure(
                    results.replace_over_limit(entries, new_total, self.char_count(target), limit)
                )
            entries[found] = new_content
            self.save_to_disk(target)
        return self._success(target, "Entry replaced.")

    def remove(self, target: str, old_text: str) -> Result:
        old_text = old_text.strip()
        if not old_text:
            return results.error("old_text cannot be empty.")
        with exclusive_lock(self.path_for(target)):
            backup = self._reload(target, check_drift=True)
            if backup:
                return results.drift(self.path_for(target).name, backup)
            entries = self.entries_for(target)
            found = self._unique_match(entries, old_text, "remove")
            if not isinstance(found, int):
                return found
            entries.pop(found)
            self.save_to_disk(target)
        return self._success(target, "Entry removed.")

    def apply_batch(self, target: str, operations: Sequence[Mapping[str, Any]]) -> Result:
        """All-or-nothing: ops apply to a copy and only the final total is budgeted."""
        if not operations:
            return results.error("operations list is empty.")
        for i, op in enumerate(operations):
            action = (op or {}).get("action")
            raw_content = (op or {}).get("content")
            if action in {"add", "replace"} and raw_content:
                blocked = first_threat_message(raw_content, "strict")
                if blocked:
                    return results.error(f"Operation {i + 1}: {blocked}")
        with exclusive_lock(self.path_for(target)):
            backup = self._reload(target, check_drift=True)
            if backup:
                return results.drift(self.path_for(target).name, backup)
            working = list(self.entries_for(target))
            for i, op in enumerate(operations):
                failure = _apply_batch_op(working, i, op or {})
                if failure is not None:
                    return self._batch_error(target, failure)
            new_total = joined_length(working)
            limit = self.char_limit(target)
            if new_total > limit:
                return self._consolidation_failure(
                    results.batch_over_limit(
                        len(operations),
                        new_total,
                        self.entries_for(target),
                        self.char_count(target),
                        limit,
                    )
                )
            self._set_entries(target, working)
            self.save_to_disk(target)
        return self._success(target, f"Applied {len(operations)} operation(s).")

    def _batch_error(self, target: str, message: str) -> Result:
        return self._consolidation_failure(
            results.batch_abort(
                message, self.entries_for(target), self.char_count(target), self.char_limit(target)
            )
        )


def _apply_batch_op(working: list[str], index: int, op: Mapping[str, Any]) -> str | None:
    """Apply one batch op to ``working`` in place; the failure message, or None."""
    action = op.get("action")
    content = (op.get("content") or "").strip()
    old_text = (op.get("old_text") or "").strip()
    where = f"Operation {index + 1} ({action or 'unknown'})"
    if action == "add":
        if not content:
            return f"{where}: content is required."
        if content not in working:
            working.append(content)
        return None
    if action not in ("replace", "remove"):
        return f"{where}: unknown action. Use add, replace, or remove."
    if not old_text:
        return f"{where}: old_text is required."
    if action == "replace" and not content:
        return f"{where}: content is required (use action='remove' to delete)."
    matches = [j for j, entry in enumerate(working) if old_text in entry]
    if not matches:
        return f"{where}: no entry matched '{old_text}'."
    if len({working[j] for j in matches}) > 1:
        return f"{where}: '{old_text}' matched multiple distinct entries -- be more specific."
    if action == "replace":
        working[matches[0]] = content
    else:
        working.pop(matches[0])
    return None
