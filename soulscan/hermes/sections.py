"""One context file's text on its way into the prompt: strip, frontmatter, BOM.

Facts (hermes-agent 0.19.0): the loaders ``.strip()`` the decoded text (Unicode
whitespace, not U+FEFF), drop empty results, remove frontmatter for `.hermes.md`
only, then the scan wrapper removes exactly one leading U+FEFF before scanning at
``context`` scope. Every step keeps a substring, so each is recorded as an offset
into the decoded file text; the document view maps findings back with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from soulscan.hermes.frontmatter import BOM, frontmatter_body_start


@dataclass(frozen=True)
class ContextText:
    """Where the parts of one context file sit inside its decoded text."""

    start: int  # offset of ``content`` (what the scan wrapper receives)
    content: str
    scan_start: int  # offset of ``scanned`` (``content`` less one leading BOM)
    scanned: str


def prepare_context_text(text: str, *, strip_frontmatter: bool) -> ContextText | None:
    """The text a loader hands to the scan wrapper, or None when it is skipped as empty."""
    stripped = text.strip()
    if not stripped:
        return None
    start = len(text) - len(text.lstrip())
    if strip_frontmatter:
        start += frontmatter_body_start(stripped)
    end = len(text.rstrip())
    content = text[start:end]
    bom = 1 if content.startswith(BOM) else 0
    return ContextText(start, content, start + bom, content[bom:])


def section_header(name: str) -> str:
    """The heading a project context file gets in the prompt."""
    return f"## {name}\n\n"
