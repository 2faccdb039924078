"""Where a value read from a YAML or JSON file sits in that file.

The runtime reads config.yaml with a YAML loader and its JSON files with ``json``; both
give values without positions. soulscan composes the same text with PyYAML (JSON is
YAML, apart from corner cases that only lose the position, never the value) and keeps
each scalar node's marks, so a finding in ``agent.system_prompt`` points at the line of
that value.

Inside a value, a line of the decoded string is looked up verbatim in the file region of
its node (a literal block, a plain scalar and a JSON string without escapes on that
line all match exactly); a line that cannot be found (folded text, escapes) falls back
to the start of the value. A value with no file behind it (a ``state.db`` row) is
reported at line 1, with its key path in the message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from soulscan.models import Location
from soulscan.textpos import LineIndex

KeyPath = tuple[str | int, ...]
_COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def key_path_text(path: KeyPath) -> str:
    """``("agent", "personalities", "pirate")`` → ``agent.personalities.pirate``."""
    shown = ""
    for part in path:
        shown += f"[{part}]" if isinstance(part, int) else (f".{part}" if shown else str(part))
    return shown


@dataclass(frozen=True)
class SourceText:
    """A value's text and, when known, where each of its lines sits in the file."""

    text: str
    file_text: str | None = None  # the whole file (decoded) the value came from
    start: int = 0  # offsets into file_text of the value's node
    end: int = 0
    _index: LineIndex | None = field(default=None, compare=False, repr=False)
    _starts: list[int | None] | None = field(default=None, compare=False, repr=False)
    _text_index: LineIndex | None = field(default=None, compare=False, repr=False)

    @classmethod
    def detached(cls, text: str) -> SourceText:
        return cls(text)

    def file_index(self) -> LineIndex:
        """Line index of the file (of the value alone when detached), built once."""
        if self._index is None:
            object.__setattr__(self, "_index", LineIndex.of(self.file_text or self.text))
        assert self._index is not None
        return self._index

    def _line_starts(self) -> list[int | None]:
        """File offset of each line of ``text`` found verbatim, in order (cached)."""
        if self._starts is None:
            assert self.file_text is not None
            starts: list[int | None] = []
            cursor = self.start
            for line in self.text.split("\n"):
                found = self.file_text.find(line, cursor, self.end) if line.strip() else -1
                if found == -1 and line.endswith("...") and len(line) > 3:
                    # A description the runtime cut shows "..." that the file does not have.
                    found = self.file_text.find(line[:-3], cursor, self.end)
                starts.append(None if found == -1 else found)
                if found != -1:  # a repeated line maps to its own occurrence
                    cursor = found + len(line)
            object.__setattr__(self, "_starts", starts)
        assert self._starts is not None
        return self._starts

    def file_offset(self, offset: int) -> int | None:
        """The file offset of ``text[offset]`` when its line is found verbatim."""
        if self.file_text is None:
            return None
        if self._text_index is None:
            object.__setattr__(self, "_text_index", LineIndex.of(self.text))
        assert self._text_index is not None
        line, column = self._text_index.position(offset)
        found = self._line_starts()[line - 1]
        return None if found is None else found + column - 1

    def location(self, start: int, end: int) -> Location:
        """Location in the file of ``text[start:end]`` (value start, or 1:1, when unknown)."""
        if self.file_text is None:
            return Location(1, 1, 1, 1)
        index = self.file_index()
        first = self.file_offset(start)
        if first is None:
            line, column = index.position(self.start)
            return Location(line, column, line, column)
        last = self.file_offset(end) if end > start else first
        if last is None or last < first:
            last = first + (end - start) if "\n" not in self.text[start:end] else first
        return index.location(first, min(last, len(index.text)))


class Marks:
    """Key path → file region for every node of one YAML/JSON document."""

    def __init__(self, file_text: str) -> None:
        self.file_text = file_text
        self._regions: dict[KeyPath, tuple[int, int]] = {}
        try:
            root = yaml.compose(file_text, Loader=_COMPOSER)
        except (yaml.YAMLError, ValueError, RecursionError):
            root = None
        if root is not None:
            self._walk(root)

    def _walk(self, root: yaml.Node) -> None:
        # Iterative, and each node once: an alias repeats a node, and a chain of aliases
        # (a "billion laughs" document) would otherwise be walked exponentially often.
        seen: set[int] = set()
        pending: list[tuple[yaml.Node, KeyPath]] = [(root, ())]
        while pending:
            node, path = pending.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            self._regions[path] = (node.start_mark.index, node.end_mark.index)
            if isinstance(node, yaml.MappingNode):
                pending.extend((value, (*path, key.value)) for key, value in node.value
                               if isinstance(key, yaml.ScalarNode))
            elif isinstance(node, yaml.SequenceNode):
                pending.extend((item, (*path, position)) for position, item in enumerate(node.value))

    def source(self, path: KeyPath, text: str) -> SourceText:
        """``text`` (the value at ``path``) tied to its file region when the path is known."""
        region = self._regions.get(_normalised(path))
        if region is None:
            return SourceText(text, self.file_text, 0, len(self.file_text))
        return SourceText(text, self.file_text, region[0], region[1])

    def region(self, path: KeyPath) -> tuple[int, int] | None:
        return self._regions.get(_normalised(path))



def _normalised(path: KeyPath) -> KeyPath:
    # YAML mapping keys arrive as strings from compose; callers pass the loaded keys.
    return tuple(part if isinstance(part, int) else str(part) for part in path)
