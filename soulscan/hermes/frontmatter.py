"""YAML frontmatter removal as Hermes 0.19.0 applies it to `.hermes.md` / `HERMES.md`.

Facts (hermes-agent 0.19.0, `agent/prompt_builder.py`): every leading U+FEFF goes
first; a text starting with ``---`` loses everything up to and including the first
``\\n---`` found at index 3 or later, then the newlines that follow it; a body that
ends up empty means the text is kept *with* its frontmatter. Neither fence has to be
a bare ``---`` line (``---yaml`` and ``---x`` both count).

The result is always a suffix of the input, so the loaders only need the offset at
which it starts to map positions back to the file.
"""

from __future__ import annotations

BOM = "\ufeff"
FENCE = "---"
CLOSING_FENCE = "\n---"


def frontmatter_body_start(text: str) -> int:
    """Index in ``text`` where the runtime's frontmatter-stripped text begins."""
    start = len(text) - len(text.lstrip(BOM))
    if not text.startswith(FENCE, start):
        return start
    closing = text.find(CLOSING_FENCE, start + len(FENCE))
    if closing == -1:
        return start
    body = closing + len(CLOSING_FENCE)
    while body < len(text) and text[body] == "\n":
        body += 1
    # An empty body means the frontmatter itself is what gets loaded.
    return body if body < len(text) else start


def strip_yaml_frontmatter(text: str) -> str:
    """The text Hermes 0.19.0 keeps of a `.hermes.md` after its frontmatter step."""
    return text[frontmatter_body_start(text):]
