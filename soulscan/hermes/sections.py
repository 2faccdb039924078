"""One context file's text on its way into the prompt: strip, frontmatter, BOM.

Facts (hermes-agent 0.19.0): the loaders ``.strip()`` the decoded text (Unicode
whitespace, not U+FEFF), drop empty results, remove frontmatter for `.hermes.md`
only, then the scan wrapper removes exactly one leading U+FEFF before scanning at
``context`` scope. Every step keeps a substring, so each is recorded as an offset
into the decoded file text; the document view maps findings back with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from soulscan.hermes.frontmatter import BOM, frontmatter_body_start
from soulscan.hermes.scanner import MAX_SCAN_CHARS, blocked_placeholder, scan_for_threats
from soulscan.hermes.spans import Region, visible_spans
from soulscan.models import EFFECT_BLOCKS_FILE, EFFECT_NONE, Span

_new = tuple.__new__  # a named tuple built without its Python-level ``__new__``


class ContextText(NamedTuple):
    """Where the parts of one context file sit inside its decoded text.

    (This and ``JudgedSection`` are named tuples: one of each is built for every scanned
    file, and a tuple is built several times quicker than a frozen dataclass.)"""

    start: int  # offset of ``content`` (what the scan wrapper receives)
    content: str
    scan_start: int  # offset of ``scanned`` (``content`` less one leading BOM)
    scanned: str


def prepare_context_text(text: str, *, strip_frontmatter: bool) -> ContextText | None:
    """The text a loader hands to the scan wrapper, or None when it is skipped as empty."""
    # ``strip()`` from each end separately, copying the text only where an end has
    # whitespace (most files end with a newline, few start with one).
    start = len(text) - len(text.lstrip()) if text[:1].isspace() else 0
    end = len(text.rstrip()) if text[-1:].isspace() else len(text)
    if start >= end:
        return None
    if strip_frontmatter:
        start += frontmatter_body_start(text[start:end])
    content = text[start:end]
    if content[:1] == BOM:
        return _new(ContextText, (start, content, start + 1, content[1:]))
    return _new(ContextText, (start, content, start, content))


def section_header(name: str) -> str:
    """The heading a project context file gets in the prompt."""
    return f"## {name}\n\n"


class JudgedSection(NamedTuple):
    """A context file's section as the runtime builds it, before truncation."""

    prepared: ContextText
    ids: tuple[str, ...]  # runtime finding ids (empty: the text is loaded)
    header: str
    content: str  # the scanned text, or the BLOCKED placeholder
    trailer: str

    @property
    def section(self) -> str:
        return self.header + self.content + self.trailer

    @property
    def section_length(self) -> int:
        """``len(section)`` without building it (a copy of the whole text)."""
        return len(self.header) + len(self.content) + len(self.trailer)

    def whole_region(self) -> Region:
        """The scanned unit of a section that reaches the model whole (no cut): what
        ``region`` gives for the one kept range ``(0, len(section))``."""
        # (built from plain tuples: one for every scanned file, the common case)
        prepared = self.prepared
        start, scanned = prepared.scan_start, prepared.scanned
        length = len(scanned)
        window = _new(Span, (start, start + min(length, MAX_SCAN_CHARS)))
        if self.ids:
            return _new(Region, (scanned, start, "context", self.ids, EFFECT_BLOCKS_FILE, window, ()))
        # Loaded: the content is the scanned text, and what is scanned is what is seen.
        visible = (() if not length else (window,) if length <= MAX_SCAN_CHARS
                   else (_new(Span, (start, start + length)),))
        return _new(Region, (scanned, start, "context", (), EFFECT_NONE, window, visible))

    def region(self, kept: Iterable[tuple[int, int]], section_start: int = 0) -> Region:
        """The scanned unit, with what survives ``kept`` ranges of the enclosing text.

        ``section_start`` is where this section begins in the truncated unit (the
        cursor bundle holds several sections).
        """
        visible = () if self.ids else visible_spans(
            kept, section_start + len(self.header), len(self.content), self.prepared.scan_start
        )
        return self._region(visible)

    def _region(self, visible: tuple[Span, ...]) -> Region:
        prepared = self.prepared
        start = prepared.scan_start
        return Region(  # text, offset, scope, ids, effect, scanned, visible
            prepared.scanned, start, "context", self.ids,
            EFFECT_BLOCKS_FILE if self.ids else EFFECT_NONE,
            Span(start, start + min(len(prepared.scanned), MAX_SCAN_CHARS)), visible,
        )


def judge_section(
    text: str, label: str, *, header: bool, trailer: bool, strip_frontmatter: bool
) -> JudgedSection | None:
    """Strip, frontmatter, scan and frame one file's text; None when it is empty."""
    prepared = prepare_context_text(text, strip_frontmatter=strip_frontmatter)
    if prepared is None:
        return None
    found = scan_for_threats(prepared.scanned, "context")
    heading = section_header(label) if header else ""
    ending = "\n\n" if trailer else ""
    if found:
        return _new(JudgedSection, (prepared, tuple(found), heading,
                                    blocked_placeholder(label, found), ending))
    return _new(JudgedSection, (prepared, (), heading, prepared.scanned, ending))
