"""One file judged as Hermes 0.19.0 judges it in a given role, mapped back to the file.

A ``RuntimeDocument`` holds the decoded file text, the runtime's verdict, the
units the runtime scans (``Region``: a whole context file, or one memory entry)
with the decoded-file ranges that are scanned and that reach the model, and the
exact text the file contributes to the prompt.

NOTE: each file is judged alone. A `.cursorrules` / `.mdc` file is truncated as if
it were the whole cursor bundle; the runtime cuts the bundle as one unit, which
``cursor_bundle.load_cursor_bundle`` reproduces member by member. The priority
between project files (only one kind loads) is not applied here either.

A memory file whose entries repeat gets one region per occurrence; a repeat is
neither scanned nor visible, because the runtime drops it before scanning.
"""

from __future__ import annotations

import os
from os import PathLike
from pathlib import Path
from typing import Final, NamedTuple

from soulscan.errors import InputError
from soulscan.hermes.memory_document import memory_regions
from soulscan.hermes.sections import JudgedSection, judge_section
from soulscan.hermes.soul import is_legacy_template_soul
from soulscan.hermes.sources import (
    AGENTS_MD_NAMES,
    CLAUDE_MD_NAMES,
    CURSOR_RULES_DIR,
    CURSORRULES_NAME,
    HERMES_MD_NAMES,
    NotRegularFileError,
    decode_runtime_text,
    read_runtime_bytes,
)
from soulscan.hermes.spans import Region, covered_length
from soulscan.hermes.sparse_window import forget_last_window
from soulscan.hermes.truncation import (
    DEFAULT_MAX_CHARS,
    Cut,
    HomePath,
    context_file_max_chars,
    plan_cut,
    truncate_content,
)
from soulscan.models import RuntimeSummary, new_runtime_summary

CONTEXT_KINDS: Final = ("soul", "hermes", "agents", "claude", "cursorrules", "mdc")
MEMORY_KINDS: Final = ("memory", "user")
KINDS: Final = CONTEXT_KINDS + MEMORY_KINDS

# How the runtime frames each kind's section: (a "## name" header, a blank-line trailer,
# frontmatter stripped).
FRAMING: Final = {
    "soul": (False, False, False),
    "hermes": (True, False, True),
    "agents": (True, False, False),
    "claude": (True, False, False),
    "cursorrules": (True, True, False),
    "mdc": (True, True, False),
}
_new = tuple.__new__  # a named tuple built without its Python-level ``__new__``

_TRUNCATION_LABELS: Final = {
    "soul": "SOUL.md",
    "hermes": ".hermes.md",
    "agents": "AGENTS.md",
    "claude": "CLAUDE.md",
    "cursorrules": ".cursorrules",
    "mdc": ".cursorrules",
}


class RuntimeDocument(NamedTuple):
    """One file as the runtime judges it (a named tuple: one is built for every scanned
    file, several times quicker than a frozen dataclass)."""

    path: str
    kind: str  # one of KINDS
    label: str  # the name the runtime prints in [BLOCKED: ...]
    text: str | None  # decoded text (strict UTF-8, universal newlines); None if unreadable
    summary: RuntimeSummary
    regions: tuple[Region, ...]
    output: str  # exactly what this file contributes to the prompt ("" if nothing)


def _file_name(path: str) -> str:
    """``Path(path).name`` without building a ``Path`` (one per scanned file adds up):
    on POSIX the last component is the name unless it is empty or ``.``, which
    ``Path`` normalises away."""
    name = path.rpartition("/")[2]
    if os.name != "posix" or not name or name == ".":
        return Path(path).name
    return name


def document_label(path: str, kind: str) -> str:
    """The name the runtime gives this file in headers and placeholders."""
    name = _file_name(path)
    if kind == "hermes":
        return name if name in HERMES_MD_NAMES else HERMES_MD_NAMES[0]
    if kind == "agents":
        return name if name in AGENTS_MD_NAMES else AGENTS_MD_NAMES[0]
    if kind == "claude":
        return name if name in CLAUDE_MD_NAMES else CLAUDE_MD_NAMES[0]
    if kind == "mdc":
        return "/".join((*CURSOR_RULES_DIR, name))
    return {"soul": "SOUL.md", "cursorrules": CURSORRULES_NAME, "memory": "MEMORY.md", "user": "USER.md"}[kind]


def _read_path(path: str, kind: str) -> str:
    """The path the runtime names in its truncation marker for this file (resolving it
    costs system calls, so it is only asked for when the file is truncated)."""
    if path == "-":  # standard input: no path to resolve
        return path
    file_path = Path(path)
    if kind == "soul":
        return str(file_path.absolute())
    if kind in ("cursorrules", "mdc"):
        project = file_path.parent if kind == "cursorrules" else file_path.parent.parent.parent
        return str(project.resolve() / CURSORRULES_NAME)
    return str(file_path.parent.resolve() / file_path.name)


def skip_document(path: str, kind: str, text: str | None, detail: str) -> RuntimeDocument:
    summary = RuntimeSummary("skip", (), len(text) if text is not None else 0, 0, detail)
    return RuntimeDocument(path, kind, document_label(path, kind), text, summary, (), "")


def _read_error_detail(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "missing"
    if isinstance(error, IsADirectoryError):
        return "is a directory: the runtime skips it"
    if isinstance(error, NotRegularFileError):
        return "not a regular file (FIFO, socket or device): not read"
    if isinstance(error, PermissionError):
        return "unreadable (permission denied): the runtime skips it"
    return f"unreadable ({error.strerror or type(error).__name__}): the runtime skips it"


def _context_document(
    path: str, kind: str, text: str, *, hermes_home: HomePath, context_length: object
) -> RuntimeDocument:
    label = document_label(path, kind)
    if kind == "soul" and is_legacy_template_soul(text):
        return skip_document(path, kind, text, "legacy template: Hermes 0.19.0 overwrites it with its "
                     "built-in default SOUL.md and loads that instead")
    header, trailer, strip_frontmatter = FRAMING[kind]
    judged = judge_section(text, label, header=header, trailer=trailer,
                           strip_frontmatter=strip_frontmatter)
    if judged is None:
        return skip_document(path, kind, text, "empty after whitespace strip: nothing loaded")
    length = judged.section_length
    max_chars = (DEFAULT_MAX_CHARS if hermes_home is None and context_length is None
                 else context_file_max_chars(hermes_home=hermes_home, context_length=context_length))
    if length <= max_chars:  # the common case: it fits, the section is the output
        return whole_document(path, kind, label, text, judged)
    cut = plan_cut(length, max_chars)
    output, _ = truncate_content(
        judged.section, _TRUNCATION_LABELS[kind], hermes_home=None, max_chars=max_chars,
        read_path=None if cut is None else _read_path(path, kind),
    )
    kept = ((0, length),) if cut is None else cut.kept_ranges()
    region = judged.region(kept)
    summary = context_summary(text, judged, region, cut, max_chars, length)
    return RuntimeDocument(path, kind, label, text, summary, (region,), output)


def whole_document(path: str, kind: str, label: str, text: str, judged: JudgedSection,
                   chars_total: int | None = None) -> RuntimeDocument:
    """The document of a file whose section reaches the model whole (no cut): the
    section is its output. ``chars_total``: the whole text's length when ``text`` is only
    its start (``soulscan.blocked_start``: a blocked file's report reads no further)."""
    return _new(RuntimeDocument, (path, kind, label, text, whole_summary(text, judged, chars_total),
                                  (judged.whole_region(),), judged.section))


def whole_summary(text: str, judged: JudgedSection, chars_total: int | None = None) -> RuntimeSummary:
    """``context_summary`` of a section that reaches the model whole (no cut)."""
    if judged.ids:
        replaced = f"the whole file is replaced by: {judged.content}"
        return RuntimeSummary("block", judged.ids, len(text) if chars_total is None else chars_total,
                              0, replaced)
    # Frontmatter and BOMs sit after the leading whitespace: nothing when the text starts at 0.
    start = judged.prepared.start
    skipped = start and start - (len(text) - len(text.lstrip()))
    detail = f"frontmatter and leading BOMs ({skipped} chars) removed unscanned" if skipped else None
    return new_runtime_summary("load", (), len(text), len(judged.prepared.scanned), detail)


def _cut_touches(cut: Cut, start: int, length: int) -> bool:
    """Whether the cut drops part of the section at ``[start, start+length)`` or puts the
    marker inside it."""
    (_, head), (tail_start, end) = cut.kept_ranges()
    owns_marker = start <= max(head - 1, 0) < start + length
    head_part = max(0, min(head, start + length) - start)
    tail_part = max(0, min(end, start + length) - max(tail_start, start))
    return owns_marker or min(length, head_part + tail_part) < length


def context_summary(
    text: str,
    judged: JudgedSection,
    region: Region,
    cut: Cut | None,
    max_chars: int,
    unit_length: int,
    section_start: int = 0,
) -> RuntimeSummary:
    """The verdict for one context file whose truncation unit is ``unit_length`` long.

    ``section_start`` places the file's section in the unit (the cursor bundle): a
    member is truncated when the cut drops part of its section or lands in it.
    """
    loaded = covered_length(region.visible)
    if judged.ids:
        replaced = f"the whole file is replaced by: {judged.content}"
        return RuntimeSummary("block", judged.ids, len(text), 0, replaced)
    dropped = len(judged.prepared.scanned) - loaded
    if cut is not None and _cut_touches(cut, section_start, judged.section_length):
        kept = f"cap {max_chars}: the {unit_length}-char unit keeps {cut.head}+{cut.tail}; "
        if dropped:
            what = f"{dropped} chars of the file are dropped"
        elif cut.tail == 0:
            what = "a zero tail repeats the whole text after the marker"
        else:
            what = "only the section header and the marker are affected"
        return RuntimeSummary("truncate", (), len(text), loaded, kept + what)
    # Frontmatter and BOMs sit after the leading whitespace: nothing when the text starts at 0.
    start = judged.prepared.start
    skipped = start and start - (len(text) - len(text.lstrip()))
    detail = f"frontmatter and leading BOMs ({skipped} chars) removed unscanned" if skipped else None
    return RuntimeSummary("load", (), len(text), loaded, detail)


def _memory_document(path: str, kind: str, text: str, *, hermes_home: HomePath) -> RuntimeDocument:
    label = document_label(path, kind)
    regions, output = memory_regions(text, kind, label, hermes_home=hermes_home)
    if not regions:
        return skip_document(path, kind, text, "no entries: no memory block")
    ids = tuple(dict.fromkeys(i for region in regions for i in region.ids))
    blocked = sum(1 for region in regions if region.ids)
    passthrough = sum(1 for region in regions if region.scanned is None and region.visible)
    notes = []
    if blocked:
        notes.append(f"{blocked} of {len(regions)} entries replaced by placeholders")
    if passthrough:
        notes.append(f"{passthrough} entries start with [BLOCKED: and are loaded unscanned")
    loaded = sum(covered_length(region.visible) for region in regions)
    summary = RuntimeSummary("block" if blocked else "load", ids, len(text), loaded,
                             "; ".join(notes) or None)
    return RuntimeDocument(path, kind, label, text, summary, regions, output)


def read_document_text(path: str, kind: str, data: bytes | None = None) -> str | RuntimeDocument:
    """The decoded text of a file, or the skip document saying why it has none."""
    forget_last_window()  # (what is remembered of a window belongs to the file before)
    if data is None:
        try:
            data = read_runtime_bytes(Path(path))
        except OSError as error:
            detail = _read_error_detail(error)
            if kind == "soul" and isinstance(error, FileNotFoundError):
                detail = "missing: Hermes 0.19.0 writes its built-in default SOUL.md here and loads it"
            return skip_document(path, kind, None, detail)
    try:
        return decode_runtime_text(data)
    except UnicodeDecodeError as error:
        detail = f"invalid UTF-8 at byte {error.start}: "
        detail += ("loading memory fails, so the session starts with no MEMORY or USER block"
                   if kind in MEMORY_KINDS else "the runtime skips it")
        return skip_document(path, kind, None, detail)


def load_document(
    path: str | PathLike[str],
    kind: str,
    *,
    hermes_home: HomePath = None,
    context_length: object = None,
    data: bytes | None = None,
) -> RuntimeDocument:
    """Judge one file as Hermes 0.19.0 would in the role ``kind`` (see ``KINDS``).

    ``data`` replaces reading ``path`` (stdin). Unreadable, non-UTF-8 and empty
    files are skips with the reason in ``summary.detail``.
    """
    if kind not in KINDS:
        raise InputError(f"unknown file kind {kind!r}: expected one of {', '.join(KINDS)}")
    path_text = str(path)
    text = read_document_text(path_text, kind, data)
    if isinstance(text, RuntimeDocument):
        return text
    if kind in MEMORY_KINDS:
        return _memory_document(path_text, kind, text, hermes_home=hermes_home)
    return _context_document(path_text, kind, text, hermes_home=hermes_home,
                             context_length=context_length)
