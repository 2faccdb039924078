"""Replay every shared conformance case of areas scan, truncate and context_load.

Each case runs twice: through ``soulscan.hermes`` (the requirement: 100% pass), and through
the real Hermes 0.19.0 runtime (the oracle), which proves this harness itself: the file's
expected values were produced by the runtime, so any oracle failure is a harness bug.

Where the runtime would write its default SOUL.md into the home (missing or legacy
template SOUL.md), soulscan reports that instead of writing: the test checks the report,
that the home is untouched, and that the rest of the result equals the runtime's without
the seeded text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.fixtures import oracle, oracle_runtime, require_shared  # noqa: F401 (fixtures)
from support.replay import REPLAYED_AREAS, replay
from support.runtimes import OracleRuntime, SoulscanRuntime, soulscan_entry
from support.spec import (
    Case,
    blob,
    conformance_path,
    expect_equal,
    load_cases,
    materialise,
    read_back,
    same_first_message,
)

PROJECT_CONTEXT_HEADER = (
    "# Project Context\n\nThe following project context files have been loaded and should be "
    "followed:\n\n"
)
CASES: list[Case] = load_cases(REPLAYED_AREAS) if conformance_path().is_file() else []


def _params() -> list[Any]:
    return [pytest.param(case, id=case.id) for case in CASES]


@pytest.mark.oracle
@pytest.mark.parametrize("case", _params())
def test_oracle_reproduces_case(
    case: Case,
    oracle_runtime: OracleRuntime,  # noqa: F811
    tmp_path: Path,
) -> None:
    require_shared()
    expect_equal(replay(case, oracle_runtime, tmp_path), case.expected, case)


@pytest.mark.parametrize("case", _params())
def test_soulscan_reproduces_case(case: Case, tmp_path: Path) -> None:
    require_shared()
    actual = replay(case, SoulscanRuntime(), tmp_path)
    seeded = _seeded_soul(case)
    if seeded is None:
        expect_equal(actual, case.expected, case)
        return
    _expect_seed_reported_not_written(case, actual, seeded, tmp_path)


def test_every_case_kind_is_replayed() -> None:
    require_shared()
    assert CASES, "no scan/truncate/context_load case found"
    assert {case.area for case in CASES} == set(REPLAYED_AREAS)


# --------------------------------------------------------------------------- SOUL.md seeding


def _seeded_soul(case: Case) -> str | None:
    """The text the runtime wrote into the home for this case, or None if it wrote nothing."""
    after = case.expected.get("soul_md_on_disk_after")
    if after is None and "soul_md_on_disk_after" not in case.expected:
        return None
    before = (case.input.get("hermes_home") or {}).get("SOUL.md")
    if after == before or not isinstance(after, str):
        return None
    return after


def _expect_seed_reported_not_written(
    case: Case, actual: dict[str, Any], seeded: str, tmp_path: Path
) -> None:
    # Fresh layout of the same input: soulscan must say it would seed...
    fresh = materialise(case.input, tmp_path / "fresh")
    before = read_back(fresh.hermes_home / "SOUL.md")
    assert soulscan_entry("soul_md_would_be_seeded")(fresh.hermes_home), case.id
    # ...must not have written into the home during the replay...
    assert actual["soul_md_on_disk_after"] == before, f"{case.id}: soulscan changed SOUL.md"
    # ...and must otherwise answer as the runtime does, minus the seeded text.
    seed_warnings = [
        w for w in actual["warnings"] if "SOUL.md" in w and w not in case.expected["warnings"]
    ]
    assert len(seed_warnings) == 1, (
        f"{case.id}: expected one seed warning, got {actual['warnings']}"
    )
    expected = dict(case.expected, soul_md_on_disk_after=before)
    actual = dict(actual, warnings=[w for w in actual["warnings"] if w not in seed_warnings])
    if case.kind == "load_soul_md":
        expected["result"] = None
    else:
        expected["prompt"] = _without_soul_section(case.expected["prompt"], seeded, case)
    expect_equal(actual, expected, case)


def _without_soul_section(prompt: str, soul: str, case: Case) -> str:
    if prompt == PROJECT_CONTEXT_HEADER + soul:
        return ""
    assert prompt.endswith("\n" + soul), f"{case.id}: seeded SOUL.md is not the last section"
    return prompt[: -len(soul) - 1]


# --------------------------------------------------------------------------- harness self-checks
# The shared file has no case exercising these conventions, so each is pinned here both ways.

_UNORDERED = Case(
    "self.unordered", "scan", "scan_for_threats", {}, {"invisible_order": "unordered"}
)
_PLAIN = Case("self.plain", "scan", "scan_for_threats", {}, {})
_BLOCKED = "[BLOCKED: AGENTS.md contained potential prompt injection ({}). Content not loaded.]"


@pytest.mark.parametrize(
    ("actual", "expected", "case", "equal"),
    [
        pytest.param(
            {
                "findings": [
                    "invisible_unicode_U+2066",
                    "invisible_unicode_U+200B",
                    "prompt_injection",
                ]
            },
            {
                "findings": [
                    "invisible_unicode_U+200B",
                    "invisible_unicode_U+2066",
                    "prompt_injection",
                ]
            },
            _UNORDERED,
            True,
            id="invisible-set-in-leading-positions",
        ),
        pytest.param(
            {"findings": ["invisible_unicode_U+2066", "invisible_unicode_U+200B"]},
            {"findings": ["invisible_unicode_U+200B", "invisible_unicode_U+2066"]},
            _PLAIN,
            False,
            id="invisible-order-matters-unless-marked",
        ),
        pytest.param(
            {"findings": ["prompt_injection", "invisible_unicode_U+200B"]},
            {"findings": ["invisible_unicode_U+200B", "prompt_injection"]},
            _UNORDERED,
            False,
            id="pattern-ids-never-reordered",
        ),
        pytest.param(
            {"output": _BLOCKED.format("invisible_unicode_U+202E, invisible_unicode_U+200D")},
            {"output": _BLOCKED.format("invisible_unicode_U+200D, invisible_unicode_U+202E")},
            _UNORDERED,
            True,
            id="placeholder-ids-unordered",
        ),
        pytest.param(
            {"output": "x" * 3000},
            {"output": blob("x" * 3000)},
            _PLAIN,
            True,
            id="blob-equal",
        ),
        pytest.param(
            {"output": "x" * 2999 + "y"},
            {"output": blob("x" * 3000)},
            _PLAIN,
            False,
            id="blob-differs-at-the-end",
        ),
        pytest.param(
            {"results": ["\n\n[B]\nb\n\n[A]\na"]},
            {"results": [{"order_may_vary": True, "blocks": ["[A]\na", "[B]\nb"]}]},
            _PLAIN,
            True,
            id="hint-blocks-any-order",
        ),
        pytest.param(
            {"results": ["\n\n[B]\nb"]},
            {"results": [{"order_may_vary": True, "blocks": ["[A]\na", "[B]\nb"]}]},
            _PLAIN,
            False,
            id="hint-block-missing",
        ),
        pytest.param(
            {"backups": ["MEMORY.md.bak.1767312000"]},
            {"backups": ["MEMORY.md.bak.{TS}"]},
            _PLAIN,
            True,
            id="backup-timestamp",
        ),
    ],
)
def test_expect_equal_conventions(actual: Any, expected: Any, case: Case, equal: bool) -> None:
    if equal:
        expect_equal(actual, expected, case)
    else:
        with pytest.raises(AssertionError):
            expect_equal(actual, expected, case)


@pytest.mark.parametrize(
    ("got", "want", "text", "equal"),
    [
        pytest.param("U+200B", "U+2066", "a\u200bb\u2066", True, id="any-present-char"),
        pytest.param("U+200C", "U+2066", "a\u200bb\u2066", False, id="absent-char"),
        pytest.param("U+200B", "U+200B", "a\u200b", True, id="same"),
    ],
)
def test_first_message_names_any_invisible_char(
    got: str, want: str, text: str, equal: bool
) -> None:
    message = "Blocked: content contains invisible unicode character {} (possible injection)."
    assert same_first_message(message.format(got), message.format(want), text) is equal


def test_text_specs_and_trees_materialise(tmp_path: Path) -> None:
    spec = {"$concat": ["a", {"$repeat": ["bc", 3]}, "d"]}
    ws = materialise(
        {
            "tree": {
                "x/": None,
                "x/y.md": spec,
                "bad.md": {"$bytes_b64": "/w=="},
                "../beside.md": "b",
            },
            "hermes_home": {"SOUL.md": "s"},
            "config": {"context_file_max_chars": 60},
        },
        tmp_path,
    )
    assert read_back(ws.root / "x/y.md") == "abcbcbcd"
    assert read_back(ws.root / "bad.md") == {"$bytes_b64": "/w=="}
    assert read_back(ws.root / "x") == {"$dir": True}
    assert read_back(ws.base / "beside.md") == "b"
    assert read_back(ws.hermes_home / "config.yaml") == '{"context_file_max_chars": 60}'
    assert ws.unfill(f"{ws.hermes_home}/SOUL.md in {ws.root}") == "{HERMES_HOME}/SOUL.md in {ROOT}"
    assert ws.fill(["{HOME}/.ssh"]) == [f"{ws.home}/.ssh"]
