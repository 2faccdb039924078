"""A model of Hermes Agent 0.19.0: what it loads, scans, truncates and blocks.

Pure functions over explicit inputs; nothing here reads ``HERMES_HOME`` or the
process cwd behind the caller's back, and nothing writes into a home.

The names below load their module on first use (PEP 562): every ``soulscan scan``
imports a few submodules, and must not pay for the whole model (memory tool,
prompt builder, file-safety rules) at start-up.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from soulscan.hermes.context import build_context_files_prompt
    from soulscan.hermes.cursor_bundle import load_cursor_bundle
    from soulscan.hermes.documents import RuntimeDocument, load_document
    from soulscan.hermes.file_safety import (
        classify_container_mirror_target,
        classify_cross_profile_target,
        classify_sandbox_mirror_target,
        classify_write_denial,
        get_container_mirror_warning,
        get_cross_profile_warning,
        get_read_block_error,
        get_sandbox_mirror_warning,
        get_write_denied_error,
    )
    from soulscan.hermes.frontmatter import strip_yaml_frontmatter
    from soulscan.hermes.hints import SubdirectoryHints
    from soulscan.hermes.memory import MemoryStore, sanitise_entries
    from soulscan.hermes.memory_format import (
        ENTRY_DELIMITER,
        blocked_entry_placeholder,
        parse_entries,
        render_memory_block,
    )
    from soulscan.hermes.memory_tool import memory_tool
    from soulscan.hermes.prompt import PromptPart, PromptParts, build_system_prompt_parts
    from soulscan.hermes.scanner import (
        MAX_SCAN_CHARS,
        RuntimeMatch,
        first_threat_message,
        runtime_matches,
        scan_context_content,
        scan_for_threats,
    )
    from soulscan.hermes.soul import load_soul_md, soul_md_would_be_seeded
    from soulscan.hermes.spans import Region
    from soulscan.hermes.truncation import context_file_max_chars, truncate_content


_HOMES: dict[str, tuple[str, ...]] = {
    "soulscan.hermes.context": ("build_context_files_prompt",),
    "soulscan.hermes.cursor_bundle": ("load_cursor_bundle",),
    "soulscan.hermes.documents": ("RuntimeDocument", "load_document"),
    "soulscan.hermes.file_safety": (
        "classify_container_mirror_target",
        "classify_cross_profile_target",
        "classify_sandbox_mirror_target",
        "classify_write_denial",
        "get_container_mirror_warning",
        "get_cross_profile_warning",
        "get_read_block_error",
        "get_sandbox_mirror_warning",
        "get_write_denied_error",
    ),
    "soulscan.hermes.frontmatter": ("strip_yaml_frontmatter",),
    "soulscan.hermes.hints": ("SubdirectoryHints",),
    "soulscan.hermes.memory": ("MemoryStore", "sanitise_entries"),
    "soulscan.hermes.memory_format": (
        "ENTRY_DELIMITER",
        "blocked_entry_placeholder",
        "parse_entries",
        "render_memory_block",
    ),
    "soulscan.hermes.memory_tool": ("memory_tool",),
    "soulscan.hermes.prompt": ("PromptPart", "PromptParts", "build_system_prompt_parts"),
    "soulscan.hermes.scanner": (
        "MAX_SCAN_CHARS",
        "RuntimeMatch",
        "first_threat_message",
        "runtime_matches",
        "scan_context_content",
        "scan_for_threats",
    ),
    "soulscan.hermes.soul": ("load_soul_md", "soul_md_would_be_seeded"),
    "soulscan.hermes.spans": ("Region",),
    "soulscan.hermes.truncation": ("context_file_max_chars", "truncate_content"),
}

__all__ = [
    "ENTRY_DELIMITER",
    "INVISIBLE_CHARS",
    "MAX_SCAN_CHARS",
    "MemoryStore",
    "PromptPart",
    "PromptParts",
    "Region",
    "RuntimeDocument",
    "RuntimeMatch",
    "SubdirectoryHints",
    "blocked_entry_placeholder",
    "build_context_files_prompt",
    "build_system_prompt_parts",
    "classify_container_mirror_target",
    "classify_cross_profile_target",
    "classify_sandbox_mirror_target",
    "classify_write_denial",
    "context_file_max_chars",
    "first_threat_message",
    "get_container_mirror_warning",
    "get_cross_profile_warning",
    "get_read_block_error",
    "get_sandbox_mirror_warning",
    "get_write_denied_error",
    "load_cursor_bundle",
    "load_document",
    "load_soul_md",
    "memory_tool",
    "parse_entries",
    "render_memory_block",
    "runtime_matches",
    "sanitise_entries",
    "scan_context_content",
    "scan_for_threats",
    "soul_md_would_be_seeded",
    "strip_yaml_frontmatter",
    "truncate_content",
]


def __getattr__(name: str) -> Any:
    # INVISIBLE_CHARS is read from the runtime pack on first use (see scanner).
    if name == "INVISIBLE_CHARS":
        from soulscan.hermes import scanner

        return scanner._pack_invisible()
    for module_name, names in _HOMES.items():
        if name in names:
            value = getattr(importlib.import_module(module_name), name)
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """``memory_tool`` names a submodule and the function exported here: importing the
    submodule must not rebind the package's name to the module (eager imports hid this)."""

    def __setattr__(self, name: str, value: Any) -> None:
        exported = any(name in names for names in _HOMES.values())
        if exported and isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}":
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
