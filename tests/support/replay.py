"""Replay a conformance case (areas scan, truncate, context_load) against a runtime.

:func:`replay` materialises the case's files, calls the entry point named by
``input.kind`` on a :mod:`tests.support.runtimes` implementation and returns the
*actual* value in the shape of the case's ``expected`` (real paths put back as
placeholders), ready for :func:`tests.support.spec.expect_equal`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.runtimes import CallError
from support.spec import Case, Workspace, decode_text, materialise, read_back

REPLAYED_AREAS = ("scan", "truncate", "context_load")
BOM = "\ufeff"


def replay(case: Case, runtime: Any, tmp_path: Path) -> dict[str, Any]:
    """The actual result of ``case`` on ``runtime`` in ``expected`` form."""
    handler = _HANDLERS.get(case.kind)
    if handler is None:
        raise KeyError(f"{case.id}: no replay for kind {case.kind!r}")
    ws = materialise(case.input, tmp_path)
    return ws.unfill(handler(dict(case.input), runtime, ws))  # type: ignore[no-any-return]


def _scan_for_threats(i: dict[str, Any], rt: Any, ws: Workspace) -> dict[str, Any]:
    try:
        return {"findings": rt.scan_for_threats(decode_text(i["text"]), i["scope"])}
    except CallError as exc:
        return {"error": exc.type, "message": exc.message}


def _first_threat_message(i: dict[str, Any], rt: Any, ws: Workspace) -> dict[str, Any]:
    return {"message": rt.first_threat_message(decode_text(i["text"]), i.get("scope", "strict"))}


def _scan_context_content(i: dict[str, Any], rt: Any, ws: Workspace) -> dict[str, Any]:
    text = decode_text(i["text"])
    output = rt.scan_context_content(text, i["filename"])
    loaded_as_is = text[1:] if text.startswith(BOM) else text
    return {"output": output, "blocked": output != loaded_as_is}


def _max_chars(i: dict[str, Any], rt: Any, ws: Workspace) -> dict[str, Any]:
    cap = rt.context_file_max_chars(
        hermes_home=ws.hermes_home, context_length=i.get("context_length")
    )
    return {"max_chars": cap}


def _truncate_content(i: dict[str, Any], rt: Any, ws: Workspace) -> dict[str, Any]:
    content = decode_text(i["content"])
    output, warnings = rt.truncate_content(
        content, i["filename"], hermes_home=ws.hermes_home, max_chars=i.get("max_chars"),
        context_length=i.get("context_length"), read_path=ws.fill(i.get("read_path")),
    )  # fmt: skip
    return {"output": output, "truncated": output != content, "warnings": warnings}


def _strip_frontmatter(i: dict[str, Any], rt: Any, ws: Workspace) -> dict[str, Any]:
    return {"output": rt.strip_yaml_frontmatter(decode_text(i["content"]))}


def _build_context_files_prompt(i: dict[str, Any], rt: Any, ws: Workspace) -> dict[str, Any]:
    prompt, warnings = rt.build_context_files_prompt(
        ws.cwd(i.get("cwd")), hermes_home=ws.hermes_home, skip_soul=i.get("skip_soul", True),
        context_length=i.get("context_length"),
    )  # fmt: skip
    actual: dict[str, Any] = {"prompt": prompt, "warnings": warnings}
    if i.get("report_soul_on_disk"):
        actual["soul_md_on_disk_after"] = read_back(ws.hermes_home / "SOUL.md")
    if i.get("probe_substrings"):
        actual["contains"] = {probe: probe in prompt for probe in i["probe_substrings"]}
    return actual


def _load_soul_md(i: dict[str, Any], rt: Any, ws: Workspace) -> dict[str, Any]:
    result, warnings = rt.load_soul_md(
        hermes_home=ws.hermes_home, context_length=i.get("context_length")
    )
    return {
        "result": result,
        "soul_md_on_disk_after": read_back(ws.hermes_home / "SOUL.md"),
        "warnings": warnings,
    }


def _subdir_hints(i: dict[str, Any], rt: Any, ws: Workspace) -> dict[str, Any]:
    calls = [{"tool": c["tool"], "args": ws.fill(c["args"])} for c in i["calls"]]
    return {"results": rt.subdir_hints(ws.cwd(i.get("working_dir")), calls, home=ws.home)}


_HANDLERS: dict[str, Callable[[dict[str, Any], Any, Workspace], dict[str, Any]]] = {
    "scan_for_threats": _scan_for_threats,
    "first_threat_message": _first_threat_message,
    "scan_context_content": _scan_context_content,
    "max_chars": _max_chars,
    "truncate_content": _truncate_content,
    "strip_frontmatter": _strip_frontmatter,
    "build_context_files_prompt": _build_context_files_prompt,
    "load_soul_md": _load_soul_md,
    "subdir_hints": _subdir_hints,
}
