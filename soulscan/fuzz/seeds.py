"""Attack seeds: loading a corpus JSONL file (the shared corpora item format) or the
built-in seeds shipped in ``corpus/seeds/``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from soulscan.errors import InputError

# Corpus item kinds -> (soulscan file kind, the file name Hermes would print). Anything
# else (payload, skill_md, ...) is judged as if it were dropped into an AGENTS.md.
_KINDS: dict[str, tuple[str, str]] = {
    "agents_md": ("agents", "AGENTS.md"),
    "soul_md": ("soul", "SOUL.md"),
    "cursorrules": ("cursorrules", ".cursorrules"),
    "cursor_mdc": ("mdc", ".cursor/rules/rules.mdc"),
    "memory_md": ("memory", "MEMORY.md"),
    "user_md": ("user", "USER.md"),
}
_DEFAULT_KIND = ("agents", "AGENTS.md")


@dataclass(frozen=True)
class Seed:
    id: str
    text: str
    kind: str  # the soulscan kind the variants are judged as
    filename: str
    item: dict[str, object]  # the original corpus item, for provenance of evasions


def builtin_seeds_path() -> Path:
    """Where the shipped seeds live: inside the wheel, or ``corpus/seeds`` of a checkout."""
    packaged = Path(__file__).resolve().parents[1] / "_corpus" / "seeds" / "seeds.jsonl"
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "corpus" / "seeds" / "seeds.jsonl"


def load_seeds(path: Path | None = None) -> tuple[Seed, ...]:
    """Read attack items (label ``injection``, or no label) from a JSONL corpus file or a
    corpus directory holding ``items.jsonl``; benign items are skipped."""
    if path is None:
        path = builtin_seeds_path()
        if not path.is_file():
            raise InputError(
                "the built-in seeds (corpus/seeds/seeds.jsonl) are not part of this "
                "installation; pass a seed file"
            )
    if path.is_dir():
        path = path / "items.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read seed file: {type(exc).__name__}") from None
    seeds: list[Seed] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        item = _parse_line(path, number, line)
        if item.get("label", "injection") != "injection":
            continue
        kind, filename = _KINDS.get(str(item.get("kind", "")), _DEFAULT_KIND)
        seed_id = str(item.get("id", f"{path.name}:{number}"))
        seeds.append(Seed(seed_id, str(item["text"]), kind, filename, item))
    if not seeds:
        raise InputError(f"{path}: no attack items (label 'injection') to fuzz")
    return tuple(seeds)


def _parse_line(path: Path, number: int, line: str) -> dict[str, object]:
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{number}: not JSON ({exc.msg})") from None
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        raise InputError(f"{path}:{number}: expected an object with a string 'text'")
    return item
