"""The YAML frontmatter block that Hermes 0.19.0 drops from `.hermes.md` before scanning."""

from __future__ import annotations

from soulscan.hermes.frontmatter import BOM, frontmatter_body_start


def frontmatter_span(text: str) -> tuple[int, int] | None:
    """(start, end) of the frontmatter the runtime removes, or None when there is none."""
    start = len(text) - len(text.lstrip(BOM))
    end = frontmatter_body_start(text)
    return (start, end) if end > start else None


def frontmatter_text(text: str) -> str:
    span = frontmatter_span(text)
    return text[span[0] : span[1]] if span else ""
