"""Subdirectory hints: context files Hermes 0.19.0 appends to tool results.

Facts (hermes-agent 0.19.0, `agent/subdirectory_hints.py`): the working directory
(resolved) starts out as already loaded. After each tool call the runtime takes
the non-empty string arguments ``path``, ``file_path`` and ``workdir``, plus, for
the ``terminal`` tool, every shell token of ``command`` that is no flag, holds a
``/`` or ``.`` and is no ``http://``/``https://``/``git@`` URL. Each path is made
absolute against the working directory and resolved; a path with a suffix or
naming an existing file stands for its parent. From there up to 5 levels are
walked, stopping at a loaded directory, keeping existing directories inside the
working directory. In each new one the first non-empty regular file among
AGENTS.md, agents.md, CLAUDE.md, claude.md, .cursorrules is scanned like a
context file and cut to its first 8,000 characters.

NOTE: the runtime orders several new directories of one call by set iteration,
which varies between processes; soulscan sorts them by path. ``~`` expands
against ``home`` when it is given, else against the user's home as the runtime
does.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Final

from soulscan.hermes.context import scanned_file_content

HINT_FILENAMES: Final = ("AGENTS.md", "agents.md", "CLAUDE.md", "claude.md", ".cursorrules")
MAX_HINT_CHARS: Final = 8_000
PATH_ARG_KEYS: Final = ("path", "file_path", "workdir")
COMMAND_TOOLS: Final = frozenset({"terminal"})
MAX_ANCESTOR_WALK: Final = 5
URL_PREFIXES: Final = ("http://", "https://", "git@")

_PATH_ERRORS = (OSError, ValueError, RuntimeError)


def command_path_tokens(command: str) -> list[str]:
    """Tokens of a shell command the runtime treats as paths."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        tokens = command.split()
    return [
        token
        for token in tokens
        if not token.startswith("-")
        and ("/" in token or "." in token)
        and not token.startswith(URL_PREFIXES)
    ]


def hint_block(relative_path: str, content: str) -> str:
    return f"[Subdirectory context discovered: {relative_path}]\n{content}"


def cut_hint(content: str, filename: str) -> str:
    """Head-only cut of a long hint; the dropped tail was still scanned."""
    if len(content) <= MAX_HINT_CHARS:
        return content
    return content[:MAX_HINT_CHARS] + f"\n\n[...truncated {filename}: {len(content):,} chars total]"


class SubdirectoryHints:
    """The runtime's per-session hint tracker, for one explicit working directory."""

    def __init__(self, working_dir: str | PathLike[str], *, home: str | PathLike[str] | None = None) -> None:
        self.working_dir = Path(working_dir).resolve()
        self.home = None if home is None else Path(home)
        self._loaded: set[Path] = {self.working_dir}

    def check_tool_call(self, tool_name: str, args: Mapping[str, object]) -> str | None:
        """Text the runtime appends to this tool call's result, or None."""
        blocks = [
            block
            for directory in sorted(self._new_directories(tool_name, args))
            if (block := self._load_directory(directory)) is not None
        ]
        if not blocks:
            return None
        return "\n\n" + "\n\n".join(blocks)

    def _new_directories(self, tool_name: str, args: Mapping[str, object]) -> set[Path]:
        raw_paths = [
            value for key in PATH_ARG_KEYS
            if isinstance(value := args.get(key), str) and value.strip()
        ]
        if tool_name in COMMAND_TOOLS:
            command = args.get("command", "")
            if isinstance(command, str):
                raw_paths.extend(command_path_tokens(command))
        found: set[Path] = set()
        for raw in raw_paths:
            self._collect(raw, found)
        return found

    def _expand(self, raw: str) -> Path:
        path = Path(raw)
        if self.home is not None and (raw == "~" or raw.startswith("~/")):
            return self.home / raw[2:]
        return path.expanduser()

    def _collect(self, raw: str, found: set[Path]) -> None:
        try:
            path = self._expand(raw)
            if not path.is_absolute():
                path = self.working_dir / path
            path = path.resolve()
            if path.suffix or (path.exists() and path.is_file()):
                path = path.parent
            for _ in range(MAX_ANCESTOR_WALK):
                if path in self._loaded:
                    break
                if self._is_new_subdirectory(path):
                    found.add(path)
                if path.parent == path:
                    break
                path = path.parent
        except _PATH_ERRORS:
            pass  # the runtime drops a path it cannot resolve, keeping what it found

    def _is_new_subdirectory(self, path: Path) -> bool:
        try:
            if not path.is_dir():
                return False
        except OSError:
            return False
        return path not in self._loaded and path.is_relative_to(self.working_dir)

    def _load_directory(self, directory: Path) -> str | None:
        self._loaded.add(directory)
        for filename in HINT_FILENAMES:
            hint_path = directory / filename
            try:
                if not hint_path.is_file():
                    continue
            except OSError:
                continue
            content = scanned_file_content(hint_path, filename)
            if content is None:
                continue
            return hint_block(str(hint_path.relative_to(self.working_dir)), cut_hint(content, filename))
        return None
