"""Frozen value types shared by the engine, the scanner and the reporters."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import NamedTuple


class Severity(enum.IntEnum):
    INFO = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.strip().upper()]

    def __str__(self) -> str:
        return self.name.lower()


class Confidence(enum.IntEnum):
    LOW = 0
    MEDIUM = 1
    HIGH = 2

    @classmethod
    def parse(cls, text: str) -> Confidence:
        return cls[text.strip().upper()]

    def __str__(self) -> str:
        return self.name.lower()


# What the runtime does because of a finding.
EFFECT_BLOCKS_FILE = "blocks-file"
EFFECT_BLOCKS_ENTRY = "blocks-entry"
EFFECT_NONE = "none"

# Where a finding came from.
ORIGIN_RUNTIME = "runtime"
ORIGIN_HARDENED = "hardened"


# Span and Location are named tuples: one of each is built for every finding (thousands in
# a file of hidden characters) and spans for every scanned file; a tuple is built several
# times quicker than a frozen dataclass.
class Span(NamedTuple):
    """A half-open range of code-point offsets into the original decoded text."""

    start: int
    end: int


class Location(NamedTuple):
    """1-based line and column, in code points, of a span in the original file."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Finding:
    """One reported finding, escaped and ready to render."""
    rule_id: str
    severity: Severity
    confidence: Confidence
    scope: str
    message: str
    path: str
    span: Span
    location: Location
    snippet: str  # the matched text, already escaped and redacted
    origin: str = ORIGIN_RUNTIME
    runtime_visible: bool = True
    runtime_effect: str = EFFECT_NONE
    decoded: str | None = None  # a smuggled/encoded payload, decoded and escaped
    extra: dict[str, str] = field(default_factory=dict, compare=False, hash=False)


_object_new = object.__new__


def new_finding(
    rule_id: str, severity: Severity, confidence: Confidence, scope: str, message: str,
    path: str, span: Span, location: Location, snippet: str, origin: str,
    runtime_visible: bool, runtime_effect: str, decoded: str | None, extra: dict[str, str],
) -> Finding:
    """``Finding(...)``, every field given in order, without the frozen dataclass's
    ``__init__`` (one ``object.__setattr__`` a field, 14 of them): a file of hidden
    characters lists a thousand findings. The same object in every way (tested); its
    fields written out as a dict display (no ``*values`` tuple, no zip)."""
    finding: Finding = _object_new(Finding)
    finding.__dict__.update({
        "rule_id": rule_id, "severity": severity, "confidence": confidence, "scope": scope,
        "message": message, "path": path, "span": span, "location": location,
        "snippet": snippet, "origin": origin, "runtime_visible": runtime_visible,
        "runtime_effect": runtime_effect, "decoded": decoded, "extra": extra,
    })
    return finding



@dataclass(frozen=True)
class RuntimeSummary:
    """What Hermes 0.19.0 does with one file: load, block, truncate or skip."""

    action: str  # "load" | "block" | "truncate" | "skip"
    ids: tuple[str, ...] = ()
    chars_total: int = 0
    chars_loaded: int = 0
    detail: str | None = None  # why a skip; what truncation dropped


def new_runtime_summary(action: str, ids: tuple[str, ...], chars_total: int, chars_loaded: int,
                        detail: str | None) -> RuntimeSummary:
    """``RuntimeSummary(...)`` of every field, without the frozen dataclass's ``__init__``
    (an ``object.__setattr__`` a field): one is built for every file loaded whole. The same
    object in every way (tested), as ``new_finding`` builds a finding."""
    summary: RuntimeSummary = _object_new(RuntimeSummary)
    summary.__dict__.update({"action": action, "ids": ids, "chars_total": chars_total,
                             "chars_loaded": chars_loaded, "detail": detail})
    return summary


@dataclass(frozen=True)
class FileResult:
    """The runtime verdict and findings of one scanned file."""
    path: str
    kind: str
    runtime: RuntimeSummary
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class ScanError:
    """A path the scan could not read, and why."""
    path: str
    message: str


@dataclass(frozen=True)
class ScanReport:
    """Every file's result and every error of one scan."""
    files: tuple[FileResult, ...]
    errors: tuple[ScanError, ...] = ()
