"""Frozen value types shared by the engine, the scanner and the reporters."""

from __future__ import annotations

import enum
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeVar

_Frozen = TypeVar("_Frozen", bound=type)


def filled_in_one_step(cls: _Frozen) -> _Frozen:
    """Give a frozen dataclass an ``__init__`` that fills the instance's ``__dict__`` in one
    step, with the signature the dataclass made (same parameters, order and defaults).

    A frozen dataclass sets each field through ``object.__setattr__``: half the cost of
    building a seven-field ``Region``, and the loader builds several such values for every
    file. Still frozen (assignment raises), typed (type checkers read the dataclass
    signature) and equal (fields, repr and equality are the dataclass's own).
    """
    params: list[str] = []
    defaults: dict[str, Any] = {}
    for item in fields(cls):
        if item.default_factory is not MISSING or not item.init or item.kw_only:
            raise TypeError(f"{cls.__name__}.{item.name}: only plain fields are filled in one step")
        if item.default is MISSING:
            params.append(item.name)
        else:
            defaults[f"_default_{item.name}"] = item.default
            params.append(f"{item.name}=_default_{item.name}")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: __post_init__ would be skipped")
    filled = ", ".join(f"{item.name!r}: {item.name}" for item in fields(cls))
    source = f"def __init__(self, {', '.join(params)}):\n    self.__dict__.update({{{filled}}})\n"
    namespace: dict[str, Any] = {}
    exec(source, defaults, namespace)  # noqa: S102 (built from field names, as dataclasses does)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = {item.name: item.type for item in fields(cls)} | {"return": None}
    cls.__init__ = init  # type: ignore[misc]
    return cls


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


@filled_in_one_step
@dataclass(frozen=True)
class Span:
    """A half-open range of code-point offsets into the original decoded text."""

    start: int
    end: int


@filled_in_one_step
@dataclass(frozen=True)
class Location:
    """1-based line and column, in code points, of a span in the original file."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Finding:
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


@filled_in_one_step
@dataclass(frozen=True)
class RuntimeSummary:
    """What Hermes 0.19.0 does with one file: load, block, truncate or skip."""

    action: str  # "load" | "block" | "truncate" | "skip"
    ids: tuple[str, ...] = ()
    chars_total: int = 0
    chars_loaded: int = 0
    detail: str | None = None  # why a skip; what truncation dropped


@filled_in_one_step
@dataclass(frozen=True)
class FileResult:
    path: str
    kind: str
    runtime: RuntimeSummary
    findings: tuple[Finding, ...] = ()


@filled_in_one_step
@dataclass(frozen=True)
class ScanError:
    path: str
    message: str


@dataclass(frozen=True)
class ScanReport:
    files: tuple[FileResult, ...]
    errors: tuple[ScanError, ...] = ()
