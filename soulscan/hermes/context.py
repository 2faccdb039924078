"""Project context discovery and the `# Project Context` block of Hermes 0.19.0.

Facts (hermes-agent 0.19.0, `agent/prompt_builder.build_context_files_prompt`):
the first of these that yields a non-empty section wins — `.hermes.md`/`HERMES.md`
(walking to the git root, frontmatter removed, label `.hermes.md`), `AGENTS.md`
then `agents.md`, `CLAUDE.md` then `claude.md`, and the cursor bundle
(`.cursorrules` then each `.cursor/rules/*.mdc`, scanned one by one, truncated as
one unit with label `.cursorrules`). A BLOCKED placeholder or a BOM-only file is
a non-empty section and stops the chain. The block is a fixed preamble plus the
sections joined by one newline, SOUL.md last unless ``skip_soul``.

NOTE: the runtime skips project discovery when it *defaulted* to the process cwd
and that lies in the Hermes install tree. Here ``cwd`` is always given by the
caller, so that guard never applies.
"""

from __future__ import annotations

from collections.abc import Callable
from os import PathLike
from pathlib import Path
from typing import Final

from soulscan.hermes.scanner import scan_context_content
from soulscan.hermes.sections import prepare_context_text, section_header
from soulscan.hermes.soul import load_soul_md
from soulscan.hermes.sources import (
    AGENTS_MD_NAMES,
    CLAUDE_MD_NAMES,
    CURSORRULES_NAME,
    READ_ERRORS,
    cursor_rule_files,
    find_hermes_md,
    read_runtime_text,
)
from soulscan.hermes.truncation import HomePath, context_file_max_chars, truncate_content

PROJECT_CONTEXT_PREAMBLE: Final = (
    "# Project Context\n\n"
    "The following project context files have been loaded and should be followed:\n\n"
)
HERMES_MD_LABEL: Final = ".hermes.md"
AGENTS_MD_LABEL: Final = "AGENTS.md"
CLAUDE_MD_LABEL: Final = "CLAUDE.md"
CURSOR_LABEL: Final = ".cursorrules"
CURSOR_RULES_PREFIX: Final = ".cursor/rules/"

Section = tuple[str, list[str]]


def scanned_file_content(path: Path, filename: str, *, strip_frontmatter: bool = False) -> str | None:
    """A file's text after strip, frontmatter and scan; None if unreadable or empty."""
    try:
        prepared = prepare_context_text(read_runtime_text(path), strip_frontmatter=strip_frontmatter)
    except READ_ERRORS:
        return None
    if prepared is None:
        return None
    return scan_context_content(prepared.content, filename)


class _ProjectLoader:
    """The four project-context steps for one resolved cwd and one cap."""

    def __init__(self, cwd: Path, max_chars: int) -> None:
        self.cwd = cwd
        self.max_chars = max_chars

    def _truncate(self, section: str, label: str, read_path: Path) -> Section:
        return truncate_content(
            section, label, hermes_home=None, max_chars=self.max_chars, read_path=str(read_path)
        )

    def hermes_md(self) -> Section:
        path = find_hermes_md(self.cwd)
        if path is None:
            return "", []
        # The file found first is final: empty or unreadable ends this step.
        content = scanned_file_content(path, path.name, strip_frontmatter=True)
        if content is None:
            return "", []
        return self._truncate(section_header(path.name) + content, HERMES_MD_LABEL, path)

    def _first_of(self, names: tuple[str, ...], label: str) -> Section:
        for name in names:
            path = self.cwd / name
            if not path.exists():
                continue
            content = scanned_file_content(path, name)
            if content is not None:
                return self._truncate(section_header(name) + content, label, path)
        return "", []

    def agents_md(self) -> Section:
        return self._first_of(AGENTS_MD_NAMES, AGENTS_MD_LABEL)

    def claude_md(self) -> Section:
        return self._first_of(CLAUDE_MD_NAMES, CLAUDE_MD_LABEL)

    def cursor_rules(self) -> Section:
        bundle = ""
        cursorrules = self.cwd / CURSORRULES_NAME
        if cursorrules.exists():
            content = scanned_file_content(cursorrules, CURSORRULES_NAME)
            if content is not None:
                bundle += cursor_section(CURSORRULES_NAME, content)
        for path in cursor_rule_files(self.cwd):
            label = CURSOR_RULES_PREFIX + path.name
            content = scanned_file_content(path, label)
            if content is not None:
                bundle += cursor_section(label, content)
        if not bundle:
            return "", []
        return self._truncate(bundle, CURSOR_LABEL, cursorrules)

    def steps(self) -> tuple[Callable[[], Section], ...]:
        return (self.hermes_md, self.agents_md, self.claude_md, self.cursor_rules)


def cursor_section(label: str, content: str) -> str:
    """One member of the cursor bundle: header, content and a trailing blank line."""
    return f"{section_header(label)}{content}\n\n"


def load_project_context(
    cwd: str | PathLike[str], *, hermes_home: HomePath, context_length: object = None
) -> Section:
    """The one project-context section the runtime picks for ``cwd`` and its warnings."""
    max_chars = context_file_max_chars(hermes_home=hermes_home, context_length=context_length)
    loader = _ProjectLoader(Path(cwd).resolve(), max_chars)
    for step in loader.steps():
        section, warnings = step()
        if section:
            return section, warnings
    return "", []


def build_context_files_prompt(
    cwd: str | PathLike[str],
    *,
    hermes_home: HomePath,
    skip_soul: bool = False,
    context_length: object = None,
) -> tuple[str, list[str]]:
    """The `# Project Context` block Hermes 0.19.0 builds, and the warnings it queues.

    Where the runtime would seed a default SOUL.md (``skip_soul`` false), the
    SOUL section is left out and a ``soulscan:`` warning says so (see `soul.py`).
    """
    sections: list[str] = []
    project, warnings = load_project_context(
        cwd, hermes_home=hermes_home, context_length=context_length
    )
    if project:
        sections.append(project)
    if not skip_soul:
        soul, soul_warnings = load_soul_md(hermes_home=hermes_home, context_length=context_length)
        warnings = warnings + soul_warnings
        if soul:
            sections.append(soul)
    if not sections:
        return "", warnings
    return PROJECT_CONTEXT_PREAMBLE + "\n".join(sections), warnings
