"""The cursor bundle of one directory, judged member by member with its one truncation.

Facts (hermes-agent 0.19.0, `agent/prompt_builder._load_cursorrules`): `.cursorrules`
and then each `.cursor/rules/*.mdc` (code-point order) is stripped and scanned on
its own and framed as ``## {label}\\n\\n{content}\\n\\n``; the concatenation is cut
as one unit with label `.cursorrules` and `<cwd>/.cursorrules` in the marker, so
whether a member's text reaches the model depends on its neighbours.

Each member's ``output`` is its share of the truncated bundle: its kept head
part, the marker if the head ends inside it, and its kept tail part. Joined in
order they give the bundle's text exactly: even with a zero tail (cap <= 4, the
whole bundle repeated after the marker) the head lies inside the first header.

When several files share the bundle, a truncated member's verdict says so: the cut
comes from the bundle's length, not the file's.
"""

from __future__ import annotations

from dataclasses import replace
from os import PathLike
from pathlib import Path

from soulscan.hermes.context import CURSOR_LABEL
from soulscan.hermes.documents import (
    RuntimeDocument,
    context_summary,
    document_label,
    read_document_text,
    skip_document,
)
from soulscan.hermes.sections import JudgedSection, judge_section
from soulscan.hermes.sources import CURSORRULES_NAME, cursor_rule_files
from soulscan.hermes.truncation import (
    Cut,
    HomePath,
    context_file_max_chars,
    plan_cut,
    truncation_marker,
)
from soulscan.models import RuntimeSummary


def _bundle_members(cwd: Path) -> list[tuple[Path, str]]:
    cursorrules = cwd / CURSORRULES_NAME
    members = [(cursorrules, "cursorrules")] if cursorrules.exists() else []
    return members + [(path, "mdc") for path in cursor_rule_files(cwd)]


def _share(bundle: str, start: int, end: int, cut: Cut | None, marker: str) -> str:
    """What the bundle range ``[start, end)`` contributes to the truncated bundle."""
    if cut is None:
        return bundle[start:end]
    (_, head), (tail_start, _) = cut.kept_ranges()
    owns_marker = start <= max(head - 1, 0) < end
    return (
        bundle[start:min(end, head)]
        + (marker if owns_marker else "")
        + bundle[max(start, tail_start):end]
    )


def _bundle_summary(
    summary: RuntimeSummary, members: int, length: int, max_chars: int
) -> RuntimeSummary:
    """A truncated member's verdict, naming the bundle it was cut with (2+ members)."""
    if summary.action != "truncate" or members < 2 or summary.detail is None:
        return summary
    # context_summary's detail reads "cap N: the L-char unit keeps H+T; <what>".
    _, _, what = summary.detail.partition("; ")
    bundle = (f"truncated as part of the .cursorrules bundle ({members} files, {length:,} chars, "
              f"cap {max_chars:,})")
    return replace(summary, detail=f"{bundle}: {what}" if what else bundle)


def load_cursor_bundle(
    cwd: str | PathLike[str], *, hermes_home: HomePath = None, context_length: object = None
) -> tuple[RuntimeDocument, ...]:
    """One document per bundle member of ``cwd`` in the runtime's order, skips included."""
    cwd_path = Path(cwd).resolve()
    documents: list[RuntimeDocument | None] = []
    loaded: list[tuple[int, str, str, str, JudgedSection, int]] = []
    bundle = ""
    for path, kind in _bundle_members(cwd_path):
        text = read_document_text(str(path), kind)
        if isinstance(text, RuntimeDocument):
            documents.append(text)
            continue
        label = document_label(str(path), kind)
        judged = judge_section(text, label, header=True, trailer=True, strip_frontmatter=False)
        if judged is None:
            empty = "empty after whitespace strip: nothing loaded"
            documents.append(skip_document(str(path), kind, text, empty))
            continue
        loaded.append((len(documents), str(path), kind, text, judged, len(bundle)))
        documents.append(None)
        bundle += judged.section
    max_chars = context_file_max_chars(hermes_home=hermes_home, context_length=context_length)
    cut = plan_cut(len(bundle), max_chars)
    kept = ((0, len(bundle)),) if cut is None else cut.kept_ranges()
    marker = "" if cut is None else truncation_marker(CURSOR_LABEL, cut, str(cwd_path / CURSORRULES_NAME))
    for index, path_text, kind, text, judged, start in loaded:
        region = judged.region(kept, start)
        summary = context_summary(text, judged, region, cut, max_chars, len(bundle), start)
        summary = _bundle_summary(summary, len(loaded), len(bundle), max_chars)
        output = _share(bundle, start, start + len(judged.section), cut, marker)
        documents[index] = RuntimeDocument(
            path_text, kind, document_label(path_text, kind), text, summary, (region,), output
        )
    return tuple(document for document in documents if document is not None)
