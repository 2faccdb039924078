"""Score a labelled corpus: recall on `injection` items, false-positive rate on `benign` items.

An item is *flagged* by the hardened profile when it gets a hardened finding of severity medium
or above, and by the runtime profile when Hermes 0.19.0 would block it (context files: any
finding at `context` scope, a single leading BOM tolerated; memory files: any entry blocked at
`strict` scope). Rates are reported per corpus and per category, side by side.

Skill items (kinds `skill_md` / `skill_asset` with `repo` and `source_path`) are judged as the
skills they belong to, as ``soulscan scan --as skill`` judges a skill directory: a file of a
skill is read as code when its suffix says so, and a SKILL.md whose skill ships a flagged file
is flagged by SS010 (``soulscan.hardened.skill_bundle``). Those SKILL.md items are counted
apart (``via_bundle``), so bundle hits are never mistaken for what the text alone shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import regex

from soulscan.errors import InputError
from soulscan.hardened.analyze import analyze
from soulscan.hardened.skill_bundle import BUNDLE_RULE_ID, file_kind, owning_skill
from soulscan.hermes.memory_format import parse_entries
from soulscan.hermes.scanner import scan_for_threats
from soulscan.models import Severity

FLAG_SEVERITY = Severity.MEDIUM
LABELS = ("injection", "benign")
# Corpus `kind` values (../shared/corpora README) -> the analyser's file kinds.
KIND_MAP = {
    "cursorrules": "cursorrules",
    "cursor_mdc": "mdc",
    "soul_md": "soul",
    "agents_md": "agents",
    "memory_md": "memory",
    "heartbeat_md": "agents",
    "tools_md": "agents",
    "style_md": "agents",
    "identity_md": "agents",
    "skill_md": "skill",
    "skill_asset": "skill",
    "payload": "payload",
    "source_code": "payload",
    "soul": "soul",
    "hermes": "hermes",
    "agents": "agents",
    "claude": "claude",
    "mdc": "mdc",
    "memory": "memory",
    "user": "user",
    "skill": "skill",
}
SKILL_MD, SKILL_ASSET = "skill_md", "skill_asset"
_CORPUS_FROM_ID = regex.compile(r"^(.+)-[0-9]+$")


@dataclass(frozen=True)
class SkillFile:
    """Where a skill item sits: its repository and its path there."""

    repo: str
    path: PurePosixPath
    is_skill_md: bool


@dataclass(frozen=True)
class Item:
    corpus: str
    id: str
    text: str
    label: str
    kind: str
    category: str
    skill_file: SkillFile | None = None


@dataclass(frozen=True)
class Verdict:
    item: Item
    hardened: bool
    runtime: bool
    rule_ids: tuple[str, ...]
    # A SKILL.md flagged only because its skill ships a flagged file (SS010), not by its text.
    via_bundle: bool = False


@dataclass
class Tally:
    total: int = 0
    hardened: int = 0
    runtime: int = 0
    via_bundle: int = 0
    item_ids: list[str] = field(default_factory=list)

    def add(self, verdict: Verdict) -> None:
        self.total += 1
        self.hardened += verdict.hardened
        self.runtime += verdict.runtime
        self.via_bundle += verdict.via_bundle


def _skill_file(raw: dict[str, object]) -> SkillFile | None:
    kind, repo, source = raw.get("kind"), raw.get("repo"), raw.get("source_path")
    if kind not in (SKILL_MD, SKILL_ASSET) or not isinstance(repo, str) or not repo:
        return None
    if not isinstance(source, str) or not source:
        return None
    return SkillFile(repo, PurePosixPath(source), kind == SKILL_MD)


def _kind(raw: dict[str, object], skill_file: SkillFile | None) -> str:
    if skill_file is not None and not skill_file.is_skill_md:
        return file_kind(str(skill_file.path))
    return KIND_MAP.get(str(raw.get("kind", "payload")), "payload")


def read_items(path: Path) -> Iterator[Item]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read corpus: {exc}") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            label, text = raw["label"], raw["text"]
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(
                f"{path}:{number}: not a corpus item (need id, text, label): {exc}"
            ) from exc
        if label not in LABELS or not isinstance(text, str):
            raise InputError(
                f"{path}:{number}: label must be one of {', '.join(LABELS)} and text a string"
            )
        item_id = str(raw.get("id", f"{path.stem}-{number}"))
        match = _CORPUS_FROM_ID.match(item_id)
        corpus = match.group(1) if match else path.parent.name or path.stem
        skill_file = _skill_file(raw)
        yield Item(corpus, item_id, text, label, _kind(raw, skill_file),
                   str(raw.get("category") or "-"), skill_file)


def runtime_blocks(text: str, kind: str) -> bool:
    """Would Hermes 0.19.0 keep this file (or one of its memory entries) out of the prompt?"""
    if kind in ("memory", "user"):
        return any(scan_for_threats(entry, "strict") for entry in parse_entries(text))
    stripped = text.strip()
    stripped = stripped.removeprefix("\ufeff")
    return bool(scan_for_threats(stripped, "context"))


def judge(item: Item, profile: str) -> Verdict:
    runtime = runtime_blocks(item.text, item.kind)
    if profile == "runtime":
        return Verdict(item, False, runtime, ())
    flagged = [
        m.rule.id for m in analyze(item.text, kind=item.kind) if m.rule.severity >= FLAG_SEVERITY
    ]
    return Verdict(item, bool(flagged), runtime, tuple(sorted(set(flagged))))


def _bundled(verdicts: list[Verdict]) -> list[Verdict]:
    """SS010 on every SKILL.md item whose skill (same repo, nearest SKILL.md above) has a
    flagged file; ``via_bundle`` when the SKILL.md's own text was not flagged."""
    skill_dirs: dict[str, set[PurePosixPath]] = {}
    for verdict in verdicts:
        where = verdict.item.skill_file
        if where is not None and where.is_skill_md:
            skill_dirs.setdefault(where.repo, set()).add(where.path.parent)
    flagged_skills: set[tuple[str, PurePosixPath]] = set()
    for verdict in verdicts:
        where = verdict.item.skill_file
        if verdict.hardened and where is not None and not where.is_skill_md:
            owner = owning_skill(where.path, skill_dirs.get(where.repo, set()))
            if owner is not None:
                flagged_skills.add((where.repo, owner))
    result = []
    for verdict in verdicts:
        where = verdict.item.skill_file
        if where is not None and where.is_skill_md and (where.repo, where.path.parent) in flagged_skills:
            verdict = Verdict(verdict.item, True, verdict.runtime,
                              tuple(sorted({*verdict.rule_ids, BUNDLE_RULE_ID})),
                              via_bundle=not verdict.hardened)
        result.append(verdict)
    return result


@dataclass(frozen=True)
class Row:
    corpus: str
    category: str
    label: str
    total: int
    hardened: int
    runtime: int
    via_bundle: int = 0

    @property
    def metric(self) -> str:
        return "recall" if self.label == "injection" else "fp_rate"


def score(items: Iterable[Item], profile: str) -> tuple[list[Row], list[Verdict]]:
    tallies: dict[tuple[str, str, str], Tally] = {}
    verdicts = [judge(item, profile) for item in items]
    if profile != "runtime":
        verdicts = _bundled(verdicts)
    for verdict in verdicts:
        item = verdict.item
        for category in ("*", item.category) if item.category != "-" else ("*",):
            tallies.setdefault((item.corpus, category, item.label), Tally()).add(verdict)
    rows = [
        Row(corpus, category, label, t.total, t.hardened, t.runtime, t.via_bundle)
        for (corpus, category, label), t in sorted(tallies.items())
    ]
    return rows, verdicts
