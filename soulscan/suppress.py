"""Suppressions that live in the project config, never in a scanned file.

The person who writes SOUL.md or AGENTS.md may be the attacker, so nothing inside a
scanned file can silence a finding. A suppression names a rule, a path glob, a
mandatory reason, optionally the sha256 of the matched text (so a different payload in
the same file is still reported) and optionally an expiry date. An expired suppression
stops working and is reported, so an "accept for now" cannot become "accept forever".
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import functools
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from soulscan.errors import ConfigError
from soulscan.models import Finding, ScanReport

_SHA256 = re.compile(r"[0-9a-f]{64}")
_KEYS = frozenset({"rule", "path", "sha256", "reason", "expires"})


@dataclass(frozen=True)
class Suppression:
    """A config entry that accepts a rule's findings in matching paths."""
    rule: str  # a rule id, or an fnmatch pattern over rule ids
    path: str  # a glob over the finding's path, "/"-separated; "**" spans directories
    reason: str
    sha256: str | None = None  # of the matched text; None accepts any text
    expires: dt.date | None = None  # the last day this suppression applies

    def expired(self, today: dt.date) -> bool:
        return self.expires is not None and today > self.expires

    def matches(self, finding: Finding) -> bool:
        return (
            fnmatch.fnmatchcase(finding.rule_id, self.rule)
            and path_matches(finding.path, self.path)
            and (self.sha256 is None or self.sha256 == match_digest(finding))
        )


@dataclass(frozen=True)
class SuppressionOutcome:
    """A report after suppressions, with which applied, expired or went unused."""
    report: ScanReport  # what is left to report
    suppressed: tuple[tuple[Finding, Suppression], ...]
    expired: tuple[Suppression, ...]  # past their date: reported, no longer applied
    unused: tuple[Suppression, ...]  # live but matched nothing: candidates for removal


def match_digest(finding: Finding) -> str:
    """sha256 (hex) of the text a finding matched: the identity of its content.

    The pipeline records the digest of the raw matched text in ``extra["sha256"]``. A
    finding built without it (a hand-made one) falls back to its snippet, which is a
    deterministic function of the matched text.
    """
    recorded = finding.extra.get("sha256")
    if recorded:
        return recorded
    return hashlib.sha256(finding.snippet.encode("utf-8", "surrogatepass")).hexdigest()


def text_digest(text: str) -> str:
    """sha256 (hex) of a matched text, the form ``match_digest`` compares."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def apply_suppressions(
    report: ScanReport, suppressions: Iterable[Suppression], *, today: dt.date
) -> SuppressionOutcome:
    """Drop every finding matched by a live suppression; report expired ones."""
    rules = tuple(suppressions)
    live = tuple(s for s in rules if not s.expired(today))
    used: set[Suppression] = set()
    suppressed: list[tuple[Finding, Suppression]] = []
    files = []
    for file in report.files:
        kept = []
        for finding in file.findings:
            match = next((s for s in live if s.matches(finding)), None)
            if match is None:
                kept.append(finding)
            else:
                used.add(match)
                suppressed.append((finding, match))
        files.append(replace(file, findings=tuple(kept)))
    return SuppressionOutcome(
        report=replace(report, files=tuple(files)),
        suppressed=tuple(suppressed),
        expired=tuple(s for s in rules if s.expired(today)),
        unused=tuple(s for s in live if s not in used),
    )


def path_matches(path: str, pattern: str) -> bool:
    """Whether a finding path matches a glob: ``*`` within a segment, ``**`` across."""
    normalised = PurePosixPath(path.replace("\\", "/")).as_posix().removeprefix("./")
    return _glob_regex(pattern.removeprefix("./")).fullmatch(normalised) is not None


@functools.lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            parts.append(".*")
            index += 2
        elif pattern[index] == "*":
            parts.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            parts.append("[^/]")
            index += 1
        else:
            parts.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(parts), re.DOTALL)


def parse_suppression(raw: Any, where: str) -> Suppression:
    """One suppression from config; ``where`` names it in error messages."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: a suppression must be a mapping with rule, path and reason")
    unknown = sorted(str(k) for k in raw if k not in _KEYS)
    if unknown:
        known = ", ".join(sorted(_KEYS))
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known keys: {known})")
    for key in ("rule", "path", "reason"):
        value = raw.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: {key!r} is required and must be a non-empty string")
    digest = raw.get("sha256")
    if digest is not None and (not isinstance(digest, str) or not _SHA256.fullmatch(digest)):
        raise ConfigError(f"{where}: 'sha256' must be 64 lower-case hex digits")
    return Suppression(
        rule=raw["rule"].strip(),
        path=raw["path"].strip(),
        reason=raw["reason"].strip(),
        sha256=digest,
        expires=_parse_date(raw.get("expires"), where),
    )


def _parse_date(value: Any, where: str) -> dt.date | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ConfigError(f"{where}: 'expires' must be a date like 2026-12-31, got {value!r}")
