"""soulscan's skills guard and cron scanners against the real Hermes 0.19.0 ones.

Hypothesis texts are built from the vocabulary of the skills-guard and cron packs (every
example, split into words and kept whole), the shared runtime vocabulary of
``support.strategies`` (every ``\\s`` flavour, case-fold specials, look-alikes), line
breaks of every kind, the 17 invisible characters and emoji joined with and without
U+200D/U+FE0F. Each hypothesis example is a batch of texts sent in one round trip to
``scripts/skills_cron_oracle.py`` under the oracle venv. Compared: the skills guard's
findings for a SKILL.md and for whole skill trees (structure, ignore files, symlinks,
executable bits, verdict, install decisions), the skills-index entry of a SKILL.md, trust
levels and the install policy, the strict cron scan, the loose cron scan (cleaned prompt,
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
from soulscan.hermes.skill_install import (
    decisions_by_trust_level,
    install_decision,
    resolve_trust_level,
)
from soulscan.hermes.skill_structure import SkillScanAborted, scan_skill
from soulscan.hermes.skills_guard import GuardFinding, scan_file
from soulscan.hermes.skills_index import SkillIndexCrash, index_entry

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


TREE_NAMES = ("SKILL.md", "a.md", "B.PY", "c.exe", "d.png", "e.txt", "f", ".hidden.md",
              "docs/x.md", "docs/SKILL.md", "sub/deep/y.sh", "notes.log", ".skillignore",
              ".clawhubignore")
IGNORE_LINES = ("docs/", "/docs", "*.md", "*.log", "sub", "/sub/deep/", "SKILL.md", "# c", "",
                "e.*", "?.txt", "deep/", "/a.md")
LINK_TARGETS = ("a.md", "docs", "../outside.md", "/etc/hostname", "missing.md", "../o")


@st.composite
def skill_tree(draw: st.DrawFn) -> dict[str, Any]:
    tree: dict[str, Any] = {"outside.md": "sudo ls\n", "o/z.md": "rm -rf /\n"}
    for name in draw(st.lists(st.sampled_from(TREE_NAMES), max_size=7, unique=True)):
        path = f"s/{name}"
        if name in (".skillignore", ".clawhubignore"):
            tree[path] = "\n".join(draw(st.lists(st.sampled_from(IGNORE_LINES), max_size=4)))
            continue
        form = draw(st.sampled_from(("text", "text", "exec", "link")))
        if form == "link" and not name.endswith("SKILL.md"):
            tree[path] = {"$symlink": draw(st.sampled_from(LINK_TARGETS))}
        elif form == "exec":
            tree[path] = {"$exec": draw(skills_cron_text())}
        else:
            tree[path] = draw(skills_cron_text())
    return tree


FRONTMATTER_VALUES = ("x", "'q'", "\"dq\"", "", "null", "42", "[a, b]", "{k: v}", "false",
                      "'  padded  '", "a: b", "[", "|\n  block text", ">\n  folded",
                      "d" * 58, "e" * 61, "\"a\\nb\"", "\"\u200bx\"")


@st.composite
def skill_md(draw: st.DrawFn) -> str:
    lines = []
    for key in draw(st.lists(st.sampled_from(("name", "description", "platforms",
                                              "environments", "other")), max_size=4)):
        lines.append(f"{key}: {draw(st.sampled_from(FRONTMATTER_VALUES))}")
    head = draw(st.sampled_from(("", "\ufeff", "\ufeff\ufeff", " ")))
    fence = draw(st.sampled_from(("---\n", "---  \n", "--- \r\n", "")))
    return head + "---\n" + "\n".join(lines) + "\n" + fence + draw(skills_cron_text())


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


def test_skill_trees_match_runtime(skills_cron_oracle: OracleClient,
                                   request: pytest.FixtureRequest,
                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    counts: Tally = request.getfixturevalue("tally")

    @hypothesis_settings(request, 4)
    @given(st.lists(skill_tree(), min_size=BATCH // 2, max_size=BATCH // 2))
    def check(trees: list[dict[str, Any]]) -> None:
        wanted = skills_cron_oracle.values(
            [{"op": "guard_tree", "skill": "s", "tree": t, "source": "community"} for t in trees])
        for tree, want in zip(trees, wanted):
            base = tmp_path_factory.mktemp("tree").resolve()
            write_tree(base, tree)
            try:
                scan = scan_skill(base / "s")
            except SkillScanAborted:
                assert want == {"aborted": "RuntimeError"}
                continue
            findings = sorted(
                ({**guard_value(f), "match": f.match.replace(str(base), "{BASE}")}
                 for f in scan.findings),
                key=lambda d: (d["file"], d["line"], d["pattern_id"], d["match"]))
            decisions = {level: [d.allowed, d.reason] for level, d in
                         decisions_by_trust_level(scan.verdict, len(scan.findings)).items()}
            got = {"skill_name": scan.skill_name, "verdict": scan.verdict, "findings": findings,
                   "decisions": decisions}
            assert got == want, mismatch("skills guard scan_skill", repr(tree), got, want)
        counts["skills guard (skill trees)"] += len(trees)

    check()
    assert counts["skills guard (skill trees)"] >= BATCH // 2


def test_index_entries_match_runtime(skills_cron_oracle: OracleClient,
                                     request: pytest.FixtureRequest,
                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    counts: Tally = request.getfixturevalue("tally")

    @hypothesis_settings(request, 6)
    @given(st.lists(skill_md(), min_size=BATCH, max_size=BATCH))
    def check(contents: list[str]) -> None:
        rel = "cat/sub/skill/SKILL.md"
        wanted = skills_cron_oracle.values(
            [{"op": "index_entry", "tree": {rel: c}, "skill_file": rel} for c in contents])
        for content, want in zip(contents, wanted):
            skills_dir = tmp_path_factory.mktemp("index").resolve() / "skills"
            write_tree(skills_dir, {rel: content})
            try:
                entry = index_entry(skills_dir / rel, skills_dir)
            except SkillIndexCrash:
                assert want == {"crash": "TypeError"}, mismatch("skills index", content, "crash", want)
                continue
            offered = entry.platform_ok and not entry.environments
            got = {"compatible": offered, "skill_name": entry.skill_name,
                   "category": entry.category, "frontmatter_name": entry.name,
                   "description": entry.description if offered else ""}
            assert got == want, mismatch("skills index entry", content, got, want)
        counts["skills index entries"] += len(contents)

    check()
    assert counts["skills index entries"] >= BATCH


SOURCE_PIECES = ("skills-sh/", "skills.sh/", "skils-sh/", "skils.sh/", "openai/skills",
                 "anthropics/skills", "huggingface/skills", "NVIDIA/skills", "nvidia", "/",
                 "x", "official", "agent-created", "-evil", " ", "\u0130", "skills")


def test_trust_and_install_policy_match_runtime(skills_cron_oracle: OracleClient,
                                                request: pytest.FixtureRequest) -> None:
    counts: Tally = request.getfixturevalue("tally")
    levels = st.sampled_from(("builtin", "trusted", "community", "agent-created", "other"))
    verdicts = st.sampled_from(("safe", "caution", "dangerous", "unknown"))

    @hypothesis_settings(request, 4)
    @given(st.lists(st.lists(st.sampled_from(SOURCE_PIECES), max_size=5).map("".join),
                    min_size=BATCH, max_size=BATCH),
           st.lists(st.tuples(levels, verdicts, st.integers(0, 200), st.booleans()),
                    min_size=BATCH, max_size=BATCH))
    def check(sources: list[str], installs: list[tuple[str, str, int, bool]]) -> None:
        requests = [{"op": "trust_level", "source": source} for source in sources]
        requests += [{"op": "install", "trust_level": level, "verdict": verdict, "count": n,
                      "force": force} for level, verdict, n, force in installs]
        wanted = skills_cron_oracle.values(requests)
        for source, want in zip(sources, wanted):
            got = resolve_trust_level(source)
            assert got == want, mismatch("trust level", source, got, want)
        for (level, verdict, n, force), want in zip(installs, wanted[len(sources):]):
            decision = install_decision(level, verdict, n, force=force)
            got_pair = [decision.allowed, decision.reason]
            assert got_pair == want, mismatch("install decision", repr((level, verdict, n, force)),
                                              got_pair, want)
        counts["trust levels + install decisions"] += len(requests)

    check()
    assert counts["trust levels + install decisions"] >= 2 * BATCH
