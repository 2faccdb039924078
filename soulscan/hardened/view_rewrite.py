"""A view of a text: its characters and where each came from, and the rewrite that makes one
view from another (`soulscan.hardened.views` builds the named views from these)."""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import regex

from soulscan.hardened.view_offsets import EditedMap, Edits, IdentityMap, OffsetMap

# A view's distinct tokens (`View.tokens`), or what works them out at first need.
Tokens = set[str] | Callable[[], set[str] | None] | None


@dataclass(frozen=True, init=False)
class View:
    """A rewritten text the hardened rules read, mapped back to the original."""
    name: str
    text: str
    offsets: OffsetMap  # view character -> original code points

    def __init__(self, name: str, text: str, offsets: OffsetMap, tokens: Tokens = None) -> None:
        # The fields written into the instance's dict: the frozen dataclass's own __init__
        # sets each by object.__setattr__ (twice as long; a text makes about eight views).
        fields = self.__dict__
        fields["name"] = name
        fields["text"] = text
        fields["offsets"] = offsets
        fields["_tokens"] = tokens

    @property
    def tokens(self) -> set[str] | None:
        """The distinct strings of `text.split(" ")`, when the view can tell them from what it
        worked out on the way (the words view of a plain text): its anchor lookup may need
        them. Worked out at first need: most texts' lookup is answered without. Read them,
        do not change them."""
        tokens: Tokens = self.__dict__["_tokens"]
        if callable(tokens):
            worked_out = self.__dict__["_tokens"] = tokens()
            return worked_out
        return tokens

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map a [start, end) span of this view to original code-point offsets."""
        if not self.text:
            return (0, 0)
        start = min(max(start, 0), len(self.text) - 1)
        last = min(max(end - 1, start), len(self.text) - 1)
        return (self.offsets.start(start), self.offsets.end(last))


def identity_view(text: str) -> View:
    return View("raw", text, IdentityMap())


Match = regex.Match[str] | re.Match[str]
Replacement = Callable[[Match], str]
Pattern = regex.Pattern[str] | re.Pattern[str]
_SPAN = operator.methodcaller("span")
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)


def rewrite(
    view: View, name: str, pattern: Pattern, replace: Replacement | str, resized: Pattern | None = None
) -> View:
    """Replace every match of `pattern` (by `replace(match)`, or by `replace` itself).

    A same-length replacement keeps the per-character mapping; otherwise every replacement
    character maps to the whole matched span. The text is built by one `sub` pass.
    `resized`: for a fixed replacement, a pattern whose matches are the matches of `pattern`
    of another length than `replace`, and maybe some of the same length (all of them, where
    None): the only ones a span mapping needs listed.
    """
    if isinstance(replace, str):
        # `sub` copies a fixed replacement in C (a template: escape `\`); where the length
        # changed is only looked up when a span of the view is mapped.
        text = pattern.sub(replace.replace("\\", "\\\\"), view.text)
        if text is view.text or (not replace and len(text) == len(view.text)):
            return View(name, text, view.offsets)  # nothing replaced, or only empty matches
        listed = pattern if resized is None else resized
        return View(
            name, text, EditedMap(view.offsets, fixed_edits(listed, view.text, len(replace)))
        )
    changes: list[tuple[int, int, int]] = []  # (start, end, new length) of length changes

    def record(match: Match) -> str:
        new = replace(match)
        a, b = match.span()
        if len(new) != b - a:
            changes.append((a, b, len(new)))
        return new

    text = pattern.sub(record, view.text)
    if not changes:
        return View(name, text, view.offsets)
    return View(name, text, EditedMap(view.offsets, [Edits.of(changes)]))


def rewrite_found(
    view: View, name: str, matches: Iterable[Match], replace: Replacement
) -> View:
    """`rewrite(view, name, pattern, replace)`, where `matches` are the matches of `pattern`
    in `view.text` as `finditer` gives them (found some faster way than a `sub` pass)."""
    text = view.text
    pieces: list[str] = []
    changes: list[tuple[int, int, int]] = []  # (start, end, new length) of length changes
    position = 0
    for match in matches:
        a, b = match.span()
        new = replace(match)
        if len(new) != b - a:
            changes.append((a, b, len(new)))
        pieces += (text[position:a], new)
        position = b
    if not pieces:
        return View(name, text, view.offsets)
    pieces.append(text[position:])
    new_text = "".join(pieces)
    if not changes:
        return View(name, new_text, view.offsets)
    return View(name, new_text, EditedMap(view.offsets, [Edits.of(changes)]))


def fixed_edits(pattern: Pattern, text: str, size: int) -> Iterator[Edits]:
    """The replacements of the matches of `pattern` in `text` by `size` characters, listed in
    chunks of growing length as a span mapping needs them."""
    matches = pattern.finditer(text)
    shift, chunk = 0, 64
    while spans := list(map(_SPAN, itertools.islice(matches, chunk))):
        if size > 1:  # a same-length match keeps its characters' own spans
            spans = [(a, b) for a, b in spans if b - a != size]
        # (listing one of 0 or 1 characters as replaced maps it no differently)
        edits = Edits.uniform(list(map(_FIRST, spans)), list(map(_SECOND, spans)), size, shift)
        if spans:
            shift = edits.new_starts[-1] + size - edits.old_ends[-1]
        yield edits
        chunk *= 2


_ASCII_BYTES = bytes(range(128))


def non_ascii_chars(text: str) -> str:
    """The non-ASCII characters of `text` (UTF-8 writes each one in bytes >= 0x80 alone): a
    pass whose pattern matches none of them is skipped, or run in its ASCII form."""
    if text.isascii():
        return ""
    return non_ascii_of(text.encode("utf-8", "surrogatepass"))


def non_ascii_of(utf8: bytes) -> str:
    """`non_ascii_chars` of the text whose UTF-8 encoding (surrogates passed) is `utf8`."""
    return utf8.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
