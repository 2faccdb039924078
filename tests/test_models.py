"""The value types: ``new_finding`` builds the very object ``Finding(...)`` builds."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from soulscan.models import Confidence, Finding, Location, Severity, Span, new_finding

VALUES = (
    "prompt_injection", Severity.HIGH, Confidence.MEDIUM, "context", "a message", "AGENTS.md",
    Span(3, 9), Location(1, 4, 1, 10), "ignore", "runtime", False, "blocks-file", "decoded",
    {"sha256": "abc", "excerpt_match": "ignore"},
)


def test_new_finding_is_the_dataclass_built_whole() -> None:
    built, made = Finding(*VALUES), new_finding(*VALUES)
    assert type(made) is Finding
    assert made == built
    assert vars(made) == vars(built)
    assert list(vars(made)) == list(vars(built))  # the same field order
    assert repr(made) == repr(built)
    assert pickle.loads(pickle.dumps(made)) == built
    assert copy.copy(made) == built
    assert dataclasses.replace(made, rule_id="other") == dataclasses.replace(built, rule_id="other")
    assert hash(dataclasses.replace(made, extra={})) == hash(dataclasses.replace(built, extra={}))


def test_new_finding_stays_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        new_finding(*VALUES).rule_id = "x"  # type: ignore[misc]


def test_new_finding_wants_every_field() -> None:
    """A field added to ``Finding`` must be given: nothing is left to a default."""
    with pytest.raises(TypeError):
        new_finding(*VALUES[:-1])
    code = new_finding.__code__
    assert code.co_varnames[: code.co_argcount] == tuple(
        field.name for field in dataclasses.fields(Finding))  # each by its name, in order
    assert not hasattr(Finding, "__post_init__")  # which new_finding would skip
