"""Comparison of actual runtime answers with conformance expectations.

:func:`expect_equal` honours the conformance file's comparison conventions (``$blob``,
``{TS}`` backup names, unordered invisible findings, unordered hint blocks) and fails with
the JSON path and an escaped excerpt of the first difference; :func:`sort_invisible_runs`
and :func:`same_first_message` are the hash-order-tolerant comparisons differential tests
use on both sides. Every excerpt goes through :func:`escape`: no attacker-controlled
character reaches a terminal raw.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from support.spec import Case

_INVISIBLE_ID = re.compile(r"invisible_unicode_U\+[0-9A-F]{4,6}")
# A run of two or more invisible ids inside a ", "-joined id list (BLOCKED placeholders).
_INVISIBLE_RUN = re.compile(
    r"invisible_unicode_U\+[0-9A-F]{4,6}(?:, invisible_unicode_U\+[0-9A-F]{4,6})+"
)
_FIRST_MESSAGE_CHAR = re.compile(r"invisible unicode character U\+([0-9A-F]{4,6})")
_BACKUP_TS = re.compile(r"\.bak\.\d+")


def map_strings(value: Any, func: Callable[[str], str]) -> Any:
    """``value`` with ``func`` applied to every string in it (keys included), recursively."""
    if isinstance(value, str):
        return func(value)
    if isinstance(value, list):
        return [map_strings(v, func) for v in value]
    if isinstance(value, tuple):
        return tuple(map_strings(v, func) for v in value)
    if isinstance(value, Mapping):
        return {
            func(k) if isinstance(k, str) else k: map_strings(v, func) for k, v in value.items()
        }
    return value


def blob(text: str) -> dict[str, Any]:
    """The ``$blob`` form of a string (used for long expected strings)."""
    data = text.encode("utf-8", "surrogatepass")
    return {
        "$blob": {
            "len": len(text),
            "sha256": hashlib.sha256(data).hexdigest(),
            "head": text[:300],
            "tail": text[-300:],
        }
    }


def sort_invisible_runs(value: Any) -> Any:
    """Canonical form of hash-ordered invisible findings, anywhere inside ``value``.

    In a list of ids the leading ``invisible_unicode_*`` run is sorted; in a string every
    ``", "``-joined run of two or more such ids is sorted. Used on both sides of a
    comparison where the runtime's set-iteration order is not meaningful.
    """
    if isinstance(value, str):
        return _INVISIBLE_RUN.sub(lambda m: ", ".join(sorted(m.group(0).split(", "))), value)
    if isinstance(value, tuple):
        return tuple(sort_invisible_runs(list(value)))
    if isinstance(value, list):
        lead = 0
        while (
            lead < len(value)
            and isinstance(value[lead], str)
            and _INVISIBLE_ID.fullmatch(value[lead])
        ):
            lead += 1
        return sorted(value[:lead]) + [sort_invisible_runs(v) for v in value[lead:]]
    if isinstance(value, Mapping):
        return {k: sort_invisible_runs(v) for k, v in value.items()}
    return value


def invisible_codepoints(text: str) -> set[str]:
    """``XXXX`` hex names of the runtime's invisible characters in a text (any of them)."""
    from_runtime = {
        0x200B, 0x200C, 0x200D, 0x2060, 0x2062, 0x2063, 0x2064, 0xFEFF,
        0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    }  # fmt: skip
    return {f"{ord(ch):04X}" for ch in set(text) if ord(ch) in from_runtime}


def same_first_message(actual: Any, expected: Any, scanned_text: str) -> bool:
    """``first_threat_message`` equality where the named invisible char may be any present.

    The runtime names the first invisible character in set-iteration order; any character
    of the runtime's set present in the scanned window is an acceptable answer.
    """
    if actual == expected:
        return True
    if not (isinstance(actual, str) and isinstance(expected, str)):
        return False
    got, want = _FIRST_MESSAGE_CHAR.search(actual), _FIRST_MESSAGE_CHAR.search(expected)
    if not (got and want):
        return False
    present = invisible_codepoints(scanned_text[:65536])
    same_shape = _FIRST_MESSAGE_CHAR.sub("", actual) == _FIRST_MESSAGE_CHAR.sub("", expected)
    return same_shape and got.group(1) in present and want.group(1) in present


def expect_equal(actual: Any, expected: Any, case: Case | None = None) -> None:
    """Assert ``actual`` (placeholders already restored) matches ``expected``.

    Raises ``AssertionError`` naming the case, the JSON path of the first difference and
    an escaped excerpt around it.
    """
    if case is not None and case.unordered_invisible:
        actual, expected = sort_invisible_runs(actual), sort_invisible_runs(expected)
        expected = (
            {k: v for k, v in expected.items() if k != "invisible_order"}
            if isinstance(expected, Mapping)
            else expected
        )
    if "{TS}" in json.dumps(expected):
        actual = map_strings(actual, lambda s: _BACKUP_TS.sub(".bak.{TS}", s))
    problem = next(_differences(actual, expected, "$"), None)
    if problem is not None:
        prefix = f"[{case.id}] " if case is not None else ""
        raise AssertionError(prefix + problem)


def _differences(actual: Any, expected: Any, where: str) -> Iterator[str]:
    if isinstance(expected, Mapping) and set(expected) == {"$blob"}:
        yield from _blob_differences(actual, expected["$blob"], where)
    elif isinstance(expected, Mapping) and expected.get("order_may_vary") is True:
        yield from _unordered_blocks_differences(actual, expected["blocks"], where)
    elif isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            yield f"{where}: expected an object, got {_show(actual)}"
            return
        for key in expected:
            if key not in actual:
                yield f"{where}: missing key {key!r}"
                return
            yield from _differences(actual[key], expected[key], f"{where}.{key}")
        extra = sorted(set(actual) - set(expected))
        if extra:
            yield f"{where}: unexpected keys {extra}"
    elif isinstance(expected, list):
        if not isinstance(actual, (list, tuple)):
            yield f"{where}: expected a list, got {_show(actual)}"
            return
        for index, (a, e) in enumerate(zip(actual, expected)):
            yield from _differences(a, e, f"{where}[{index}]")
        if len(actual) != len(expected):
            yield f"{where}: length {len(actual)} != expected {len(expected)}: {_show(actual)}"
    elif isinstance(expected, str) and isinstance(actual, str):
        if actual != expected:
            yield f"{where}: {string_difference(actual, expected)}"
    elif actual != expected or type(actual) is not type(expected):
        yield f"{where}: got {_show(actual)}, expected {_show(expected)}"


def _blob_differences(actual: Any, spec: Mapping[str, Any], where: str) -> Iterator[str]:
    if not isinstance(actual, str):
        yield f"{where}: expected a {spec['len']}-char string, got {_show(actual)}"
        return
    digest = hashlib.sha256(actual.encode("utf-8", "surrogatepass")).hexdigest()
    if len(actual) == spec["len"] and digest == spec["sha256"]:
        return
    head, tail = actual[:300], actual[-300:]
    detail = (
        string_difference(head, spec["head"])
        if head != spec["head"]
        else string_difference(tail, spec["tail"])
        if tail != spec["tail"]
        else "head and tail agree, the middle differs"
    )
    yield f"{where}: blob mismatch (len {len(actual)} vs {spec['len']}): {detail}"


def _unordered_blocks_differences(actual: Any, blocks: list[str], where: str) -> Iterator[str]:
    if isinstance(actual, str) and len(blocks) <= 7:
        for order in itertools.permutations(blocks):
            if actual == "\n\n" + "\n\n".join(order):
                return
    yield f"{where}: not any order of the {len(blocks)} expected hint blocks: {_show(actual)}"


def string_difference(actual: str, expected: str) -> str:
    """Where two strings first differ, with escaped context from both."""
    index = next(
        (i for i, (a, e) in enumerate(zip(actual, expected)) if a != e),
        min(len(actual), len(expected)),
    )
    start = max(0, index - 40)
    return (
        f"first difference at char {index} (len {len(actual)} vs {len(expected)}): "
        f"got …{escape(actual[start : index + 60])}… expected …{escape(expected[start : index + 60])}…"
    )


def escape(text: str) -> str:
    """ASCII-only rendering, so no attacker-controlled character reaches a terminal raw."""
    return text.encode("unicode_escape", "backslashreplace").decode("ascii")


def _show(value: Any) -> str:
    rendered = json.dumps(value, ensure_ascii=True, default=repr)
    return rendered if len(rendered) <= 300 else rendered[:300] + "…"
