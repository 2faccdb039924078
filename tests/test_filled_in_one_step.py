"""``filled_in_one_step``: the quick ``__init__`` of the per-file value types builds exactly
what the dataclass's own ``__init__`` builds, and the values stay frozen."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from soulscan.hermes.spans import Region
from soulscan.models import (
    FileResult,
    Location,
    RuntimeSummary,
    ScanError,
    Span,
    filled_in_one_step,
)

SPAN = Span(3, 9)
SUMMARY = RuntimeSummary("block", ("prompt_injection",), 40, 0, "replaced")
# (class, positional arguments for every field)
VALUES: list[tuple[type, tuple[Any, ...]]] = [
    (Span, (3, 9)),
    (Location, (1, 2, 3, 4)),
    (RuntimeSummary, ("block", ("prompt_injection",), 40, 0, "replaced")),
    (FileResult, ("AGENTS.md", "agents", SUMMARY, ())),
    (ScanError, ("x.md", "unreadable")),
    (Region, ("text", 4, "context", ("x",), "blocks-file", SPAN, (SPAN,))),
]


def _dataclass_twin(cls: type) -> type:
    """The same fields as a plain frozen dataclass, with the ``__init__`` it makes."""
    specs = [(item.name, item.type, dataclasses.field(default=item.default))
             if item.default is not dataclasses.MISSING else (item.name, item.type)
             for item in dataclasses.fields(cls)]
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=True)


@pytest.mark.parametrize(("cls", "args"), VALUES, ids=lambda value: getattr(value, "__name__", ""))
def test_builds_what_the_dataclass_init_builds(cls: type, args: tuple[Any, ...]) -> None:
    twin = _dataclass_twin(cls)
    assert inspect.signature(cls) == inspect.signature(twin)
    names = [item.name for item in dataclasses.fields(cls)]
    built, by_name = cls(*args), cls(**dict(zip(names, args, strict=True)))
    assert built == by_name
    assert vars(built) == vars(twin(*args)) == dict(zip(names, args, strict=True))
    assert repr(built) == repr(twin(*args)).replace(f"{twin.__qualname__}(", f"{cls.__qualname__}(")
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, names[0], args[0])


def test_defaults_are_the_dataclass_defaults() -> None:
    assert RuntimeSummary("load") == RuntimeSummary("load", (), 0, 0, None)
    assert FileResult("a", "agents", SUMMARY).findings == ()
    with pytest.raises(TypeError):
        Span(1)  # type: ignore[call-arg]


def test_refuses_what_one_step_would_skip() -> None:
    @dataclasses.dataclass(frozen=True)
    class WithFactory:
        items: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class WithPostInit:
        value: int

        def __post_init__(self) -> None:
            raise AssertionError

    for cls in (WithFactory, WithPostInit):
        with pytest.raises(TypeError):
            filled_in_one_step(cls)
