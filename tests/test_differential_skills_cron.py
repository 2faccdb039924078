"""soulscan's skills guard and cron scanners against the real Hermes 0.19.0 ones.

Hypothesis texts are built from the vocabulary of the skills-guard and cron packs (every
example, split into words and kept whole), the shared runtime vocabulary of
``support.strategies`` (every ``\\s`` flavour, case-fold specials, look-alikes), line
breaks of every kind, the 17 invisible characters and emoji joined with and without
U+200D/U+FE0F. Each hypothesis example is a batch of texts sent in one round trip to
``scripts/skills_cron_oracle.py`` under the oracle venv. Compared: the skills guard's
findings for a SKILL.md, the strict cron scan, the loose cron scan (cleaned prompt,
message, stripped code points) and the run-time tier choice. Bounded by default; ``--slow``
runs 25 times more.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from support.differential import (
    Tally,
    hypothesis_settings,
    mismatch,
    tally,  # noqa: F401 (fixture, used through request.getfixturevalue)
)
from support.fixtures import unavailable
from support.oracle import ORACLE_PYTHON, OracleUnavailable, ensure_oracle
from support.strategies import SPACES, vocabulary_text

from soulscan.engine.rulepack import rules_dir
from soulscan.hermes.cron_scan import (
    CronVerdict,
    scan_cron_assembled,
    scan_cron_prompt,
    scan_cron_run,
)
from soulscan.hermes.skills_guard import GuardFinding, scan_file

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from skills_cron_oracle import OracleClient, write_tree

pytestmark = pytest.mark.oracle

BATCH = 24
INVISIBLE = tuple("\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff"
                  "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
EMOJI = ("\U0001F468", "\U0001F469", "\U0001F467", "\U0001F3F3", "\U0001F308", "\u2764",
         "\U0001FA79", "\u2600", "\u27bf", "\u2300", "\u23ff", "\u20e3", "\U0001F1E6",
         "\U0001F1FF", "\u25ff", "\u27c0", "\U0001F000", "\U0001FFFF", "\ufe0f", "\u200d")
LINE_BREAKS = ("\n", "\r\n", "\r", "\x85", "\u2028", "\n\n")
FOLDS = ("\u0130", "\u0131", "\u017f", "\u212a", "\u00df", "\uff49")


@cache
def pack_vocabulary() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(whole examples, their words) of the skills-guard and cron packs."""
    phrases: list[str] = []
    for name in ("hermes-0.19-skills-guard.yaml", "hermes-0.19-cron.yaml",
                 "hermes-0.19-cron-exfil.yaml"):
        data = yaml.safe_load((rules_dir() / name).read_text(encoding="utf-8"))
        for rule in data["rules"]:
            phrases += rule["examples"]["match"] + rule["examples"]["no-match"]
    words = sorted({word for phrase in phrases for word in phrase.split()})
    return tuple(sorted(set(phrases))), tuple(words)


@st.composite
def skills_cron_text(draw: st.DrawFn) -> str:
    phrases, words = pack_vocabulary()
    atom = st.one_of(
        st.sampled_from(words), st.sampled_from(words), st.sampled_from(phrases),
        st.sampled_from(SPACES), st.sampled_from((" ", " ", " ")), st.sampled_from(LINE_BREAKS),
        st.sampled_from(INVISIBLE), st.sampled_from(EMOJI), st.sampled_from(FOLDS),
        vocabulary_text(max_tokens=6),
    )
    return "".join(draw(st.lists(atom, max_size=28)))


# ----------------------------------------------------------------------------- sides


def guard_value(finding: GuardFinding) -> dict[str, Any]:
    out: dict[str, Any] = {k: getattr(finding, k) for k in (
        "pattern_id", "severity", "category", "file", "line", "match")}
    if finding.candidates:
        out["candidates"] = [f"U+{ord(c):04X}" for c in finding.candidates]
    return out


def strict_value(verdict: CronVerdict) -> dict[str, Any]:
    value: dict[str, Any] = {"message": verdict.message}
    if verdict.invisible:
        value["candidates"] = [f"U+{ord(c):04X}" for c in verdict.invisible]
    return value


def run_value(text: str, flags: tuple[bool, bool], user: str | None) -> dict[str, Any]:
    result = scan_cron_run(text, has_skills=flags[0], has_injected_data=flags[1],
                           user_prompt=user)
    if result.verdict.blocked:
        return {"blocked": True, **strict_value(result.verdict)}
    return {"blocked": False, "prompt": result.prompt}


@pytest.fixture(scope="module")
def skills_cron_oracle() -> Iterator[OracleClient]:
    try:
        ensure_oracle()
    except OracleUnavailable as exc:
        unavailable(str(exc))
    client = OracleClient(ORACLE_PYTHON)
    try:
        yield client
    finally:
        client.close()


# ----------------------------------------------------------------------------- tests


def test_skills_guard_matches_runtime(skills_cron_oracle: OracleClient,
                                      request: pytest.FixtureRequest,
                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    counts: Tally = request.getfixturevalue("tally")

    @hypothesis_settings(request, 12)
    @given(st.lists(skills_cron_text(), min_size=BATCH, max_size=BATCH))
    def check(texts: list[str]) -> None:
        base = tmp_path_factory.mktemp("guard")
        wanted = skills_cron_oracle.values(
            [{"op": "guard_text", "filename": "SKILL.md", "content": t} for t in texts])
        for index, (text, want) in enumerate(zip(texts, wanted)):
            write_tree(base / str(index), {"SKILL.md": text})
            got = [guard_value(f) for f in scan_file(base / str(index) / "SKILL.md", "SKILL.md")]
            assert got == want, mismatch("skills guard scan_file", text, got, want)
        counts["skills guard (SKILL.md lines)"] += len(texts)

    check()
    assert counts["skills guard (SKILL.md lines)"] >= BATCH


def test_cron_scans_match_runtime(skills_cron_oracle: OracleClient,
                                  request: pytest.FixtureRequest) -> None:
    counts: Tally = request.getfixturevalue("tally")

    @hypothesis_settings(request, 12)
    @given(st.lists(st.tuples(skills_cron_text(), st.tuples(st.booleans(), st.booleans()),
                              st.none() | skills_cron_text()), min_size=BATCH, max_size=BATCH))
    def check(items: list[tuple[str, tuple[bool, bool], str | None]]) -> None:
        requests: list[dict[str, Any]] = []
        for text, (skills, data), user in items:
            requests += [
                {"op": "cron_strict", "text": text},
                {"op": "cron_loose", "text": text},
                {"op": "cron_run", "assembled": text, "has_skills": skills,
                 "has_injected_data": data, "user_prompt": user},
            ]
        wanted = skills_cron_oracle.values(requests)
        for index, (text, flags, user) in enumerate(items):
            strict, loose, run = wanted[3 * index: 3 * index + 3]
            got_strict = strict_value(scan_cron_prompt(text))
            assert got_strict == strict, mismatch("cron strict scan", text, got_strict, strict)
            cleaned, verdict, stripped = scan_cron_assembled(text)
            got_loose = {"prompt": cleaned, "message": verdict.message, "stripped": list(stripped)}
            assert got_loose == loose, mismatch("cron loose scan", text, got_loose, loose)
            got_run = run_value(text, flags, user)
            assert got_run == run, mismatch(f"cron run {flags} user={user!r}", text, got_run, run)
        counts["cron strict + loose + run"] += len(items)

    check()
    assert counts["cron strict + loose + run"] >= BATCH
