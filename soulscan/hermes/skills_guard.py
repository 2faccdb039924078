"""The Hermes 0.19.0 skills guard (`tools/skills_guard.py`, ``skills-guard-v1``), exactly.

Facts (hermes-agent 0.19.0):

* Only files whose lower-cased suffix is in ``SCANNABLE_EXTENSIONS``, or named
  `SKILL.md`, are read; strict UTF-8 with universal newlines; unreadable ones are
  skipped silently. A BOM stays in the text.
* The text is split on ``\\n`` and every pattern of the ``hermes-0.19-skills-guard``
  pack is searched in each line separately (Python ``re``, IGNORECASE): a phrase
  split over two lines passes. Findings come pattern by pattern, line by line, one
  per (pattern, line); then one ``invisible_unicode`` finding per line holding any of
  the 17 invisible characters. The reported match is the stripped line, cut to 117
  characters plus ``...`` when longer than 120.
* The verdict: any critical finding is ``dangerous``, else any high one is
  ``caution``, else ``safe``. The install decision is ``INSTALL_POLICY`` by trust level.

NOTE: the runtime picks which invisible character of a line to name by iterating a
``set``, an order that depends on the string-hash seed. soulscan names the lowest
code point present; ``GuardFinding.candidates`` lists them all.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any

from soulscan.engine.matcher import rule_search
from soulscan.engine.rulepack import Rule, builtin_packs
from soulscan.hermes.sources import decode_runtime_text

PACK_ID = "hermes-0.19-skills-guard"
SCANNER_VERSION = "skills-guard-v1"
SKILL_FILE = "SKILL.md"
MATCH_LIMIT = 120
MATCH_CUT = 117

SCANNABLE_EXTENSIONS = frozenset({
    ".md", ".txt", ".py", ".sh", ".bash", ".js", ".ts", ".rb", ".yaml", ".yml", ".json",
    ".toml", ".cfg", ".ini", ".conf", ".html", ".css", ".xml", ".tex", ".r", ".jl", ".pl",
    ".php",
})

# The runtime's display names for its 17 invisible characters (part of the match text).
INVISIBLE_NAMES = {
    "\u200b": "zero-width space",
    "\u200c": "zero-width non-joiner",
    "\u200d": "zero-width joiner",
    "\u2060": "word joiner",
    "\u2062": "invisible times",
    "\u2063": "invisible separator",
    "\u2064": "invisible plus",
    "\ufeff": "BOM/zero-width no-break space",
    "\u202a": "LTR embedding",
    "\u202b": "RTL embedding",
    "\u202c": "pop directional",
    "\u202d": "LTR override",
    "\u202e": "RTL override",
    "\u2066": "LTR isolate",
    "\u2067": "RTL isolate",
    "\u2068": "first strong isolate",
    "\u2069": "pop directional isolate",
}
INVISIBLE_CHARS = frozenset(INVISIBLE_NAMES)
INVISIBLE_ID = "invisible_unicode"

SAFE, CAUTION, DANGEROUS = "safe", "caution", "dangerous"
VERDICTS = (SAFE, CAUTION, DANGEROUS)


@dataclass(frozen=True)
class GuardFinding:
    """One finding as the runtime records it (``line`` 0 for structural checks)."""

    pattern_id: str
    severity: str  # critical | high | medium | low
    category: str
    file: str
    line: int
    match: str
    candidates: tuple[str, ...] = ()  # invisible_unicode: every invisible char on the line


@functools.cache
def guard_rules() -> tuple[Rule, ...]:
    for pack in builtin_packs():
        if pack.id == PACK_ID:
            return pack.rules
    raise LookupError(f"built-in rule pack {PACK_ID!r} is missing")


_CONTEXT_SENSITIVE = {sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT,
                      sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS}


def _context_free(nodes: Any) -> bool:
    for op, av in nodes:
        if op in _CONTEXT_SENSITIVE and not (
                op is sre_constants.AT and av in (sre_constants.AT_BOUNDARY,
                                                  sre_constants.AT_NON_BOUNDARY)):
            return False
        children = []
        if op is sre_constants.SUBPATTERN:
            children = [av[3]]
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT,
                    sre_constants.POSSESSIVE_REPEAT):
            children = [av[2]]
        elif op is sre_constants.BRANCH:
            children = list(av[1])
        elif op is sre_constants.ATOMIC_GROUP:
            children = [av]
        if not all(_context_free(child) for child in children):
            return False
    return True


def whole_text_prefilter(rule: Rule) -> bool:
    """Whether "no match in the whole text" proves "no match in any of its lines".

    NOTE: an optimisation only. It holds for a pattern without anchors, lookarounds or
    back-references: any match inside a line is also a match of the same characters in
    the text, and ``\\b`` sees the line break as the non-word boundary a line end is.
    """
    return _context_free(sre_parser.parse(rule.pattern, 0))


@functools.cache
def _prefilterable() -> frozenset[str]:
    return frozenset(rule.id for rule in guard_rules() if whole_text_prefilter(rule))


def category_of(rule: Rule) -> str:
    return rule.tags[-1]


def shown_line(line: str) -> str:
    text = line.strip()
    return text[:MATCH_CUT] + "..." if len(text) > MATCH_LIMIT else text


def invisible_label(char: str) -> str:
    return f"U+{ord(char):04X} ({INVISIBLE_NAMES[char]})"


def scan_text(text: str, rel_path: str) -> list[GuardFinding]:
    """Findings for one file's decoded, newline-translated text, in the runtime's order."""
    lines = text.split("\n")
    findings: list[GuardFinding] = []
    for rule in guard_rules():
        if rule.id in _prefilterable() and not rule_search(rule, text):
            continue
        severity, category = str(rule.severity), category_of(rule)
        for number, line in enumerate(lines, start=1):
            if rule_search(rule, line):
                findings.append(GuardFinding(
                    rule.id, severity, category, rel_path, number, shown_line(line)))
    for number, line in enumerate(lines, start=1):
        present = tuple(sorted(INVISIBLE_CHARS.intersection(line)))
        if present:
            findings.append(GuardFinding(
                INVISIBLE_ID, "high", "injection", rel_path, number,
                invisible_label(present[0]), present))
    return findings


def is_scannable(path: Path) -> bool:
    return path.suffix.lower() in SCANNABLE_EXTENSIONS or path.name == SKILL_FILE


def read_scannable_text(path: Path) -> str | None:
    """The text the guard scans, or None when the runtime would skip the file."""
    if not is_scannable(path):
        return None
    try:
        return decode_runtime_text(path.read_bytes())
    except (UnicodeDecodeError, OSError):
        return None


def scan_file(path: Path, rel_path: str = "") -> list[GuardFinding]:
    text = read_scannable_text(path)
    if text is None:
        return []
    return scan_text(text, rel_path or path.name)


def verdict_of(findings: list[GuardFinding] | tuple[GuardFinding, ...]) -> str:
    severities = {finding.severity for finding in findings}
    if "critical" in severities:
        return DANGEROUS
    if "high" in severities:
        return CAUTION
    return SAFE
