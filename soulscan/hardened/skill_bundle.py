"""A skill judged as a bundle: its SKILL.md answers for the files it ships (rule SS010).

An attack skill's SKILL.md usually reads as an ordinary description ("Process and validate
data inputs"); the payload sits in the scripts it leads the agent to run. Judged alone the
SKILL.md passes; judged as a skill it is the payload's entry point. So when a bundled file
gets a hardened finding of severity medium or above, the skill's SKILL.md gets SS010 naming
that file and its rule ids.

The facts here are shared by the two places that judge skills: ``soulscan scan --as skill`` /
``soulscan hermes`` (``soulscan.skill_report``, a skill directory on disk) and ``soulscan
eval`` (``soulscan.hardened.evaluation``, corpus items grouped into skills).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import PurePosixPath

from soulscan.engine.matcher import rule_finditer
from soulscan.engine.rulepack import Rule
from soulscan.hardened.view_rules import hardened_rules
from soulscan.models import Severity

SKILL_FILE = "SKILL.md"
SKILL_KIND = "skill"
# A skill's code: the hardened `skill-code` pack reads these files, and only these, as code.
SCRIPT_KIND = "skill-script"
BUNDLE_RULE_ID = "SS010"
FLAG_SEVERITY = Severity.MEDIUM
# Suffixes of files an agent runs (the code suffixes of the runtime's skills-guard list, and
# the usual script languages it leaves out). Config and Markdown files stay of kind `skill`.
SCRIPT_SUFFIXES = frozenset({
    ".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".r",
    ".jl", ".ps1", ".lua",
})


def file_kind(rel_path: str) -> str:
    """The analyser's kind for a file of a skill, by its path inside the skill."""
    path = PurePosixPath(rel_path)
    if path.name != SKILL_FILE and path.suffix.lower() in SCRIPT_SUFFIXES:
        return SCRIPT_KIND
    return SKILL_KIND


@dataclass(frozen=True)
class FlaggedFile:
    """A bundled file (path inside the skill) and the ids of its medium-or-worse findings."""

    path: str
    rule_ids: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.path} ({', '.join(self.rule_ids)})"

    def identity(self, matched: str) -> str:
        """Baseline identity of its SS010 finding: the flagged file and rules, not the name line."""
        key = "\0".join((matched, self.path, *self.rule_ids))
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def flagging_ids(found: Iterable[tuple[str, Severity]]) -> tuple[str, ...]:
    """Sorted unique ids of the (rule id, severity) pairs that flag a file: medium or above."""
    return tuple(sorted({rule_id for rule_id, severity in found if severity >= FLAG_SEVERITY}))


@functools.cache
def bundle_rule() -> Rule:
    return next(rule for rule in hardened_rules() if rule.id == BUNDLE_RULE_ID)


def bundle_message(label: str) -> str:
    """The SS010 message for one flagged file; ``label`` is ``FlaggedFile.label``, escaped."""
    return f"The skill bundles a flagged file: {label}."


def bundle_span(skill_text: str) -> tuple[int, int]:
    """Where SS010 sits in SKILL.md: the frontmatter's `name:` line, else the file's start."""
    for start, end in rule_finditer(bundle_rule(), skill_text):
        return start, end
    return 0, 0


def owning_skill(path: PurePosixPath, skill_dirs: AbstractSet[PurePosixPath]) -> PurePosixPath | None:
    """The nearest directory above ``path`` that holds a SKILL.md: the skill that ships it."""
    for parent in path.parents:
        if parent in skill_dirs:
            return parent
    return None
