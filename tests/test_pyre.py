"""The python-re translation matches exactly like ``re``, atom by atom, over every code point."""

from __future__ import annotations

import functools
import re
from re import _compiler, _parser  # type: ignore[attr-defined]
from re import _constants as C  # type: ignore[attr-defined]
from typing import Any

import pytest
import regex

from soulscan.engine import pyre
from soulscan.engine.rulepack import builtin_packs, runtime_pack

ATOMS = (C.LITERAL, C.NOT_LITERAL, C.IN, C.CATEGORY, C.ANY)


def _atoms(nodes: Any) -> list[tuple[Any, Any]]:
    found = []
    for op, av in nodes:
        if op in ATOMS:
            found.append((op, av))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            found += _atoms(av[2])
        elif op is C.SUBPATTERN:
            found += _atoms(av[3])
        elif op is C.BRANCH:
            for branch in av[1]:
                found += _atoms(branch)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            found += _atoms(av[1])
        elif op is C.ATOMIC_GROUP:
            found += _atoms(av)
    return found


def _pack_flags(path: object) -> int:
    import yaml

    with open(path, encoding="utf-8") as handle:  # type: ignore[call-overload]
        header = yaml.safe_load(handle)["pack"]
    bits = {"ignorecase": re.IGNORECASE, "multiline": re.MULTILINE, "dotall": re.DOTALL}
    return sum(bits[name] for name in header.get("flags", []))


def _python_re_atoms() -> list[object]:
    cases: dict[str, object] = {}
    for pack in builtin_packs():
        if pack.dialect != "python-re":
            continue
        for rule in pack.rules:
            parsed = _parser.parse(rule.pattern, _pack_flags(pack.path))
            for atom in _atoms(parsed):
                key = repr((atom, parsed.state.flags))
                cases.setdefault(key, pytest.param(parsed.state, atom, id=f"{rule.id}:{atom}"[:80]))
    return list(cases.values())


ALL_TEXT = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)


@functools.cache
def _unguarded_text() -> str:
    guard = pyre.exactness_guard()
    return regex.sub(guard, "", ALL_TEXT, flags=regex.V1) if guard else ALL_TEXT


@pytest.mark.parametrize(("state", "atom"), _python_re_atoms())
def test_atom_matches_like_re_on_every_codepoint(state: Any, atom: tuple[Any, Any]) -> None:
    fresh = _parser.State()  # no groups, so findall returns whole matches
    fresh.flags = state.flags
    # Deleting every match leaves exactly the characters the atom does not match:
    # one C-level pass and one string to compare, for 1.1 million code points.
    expected = _compiler.compile(_parser.SubPattern(fresh, [atom]), state.flags).sub("", ALL_TEXT)
    translated = pyre._Translator("<atom>", state.flags).emit([atom])
    exact = regex.compile(translated, regex.V1).sub("", ALL_TEXT)
    assert exact == expected
    fast = pyre.fast_variant(translated)
    if fast is not None:
        # The quick variant may only differ on characters the guard catches.
        unguarded = _unguarded_text()
        fast_rest = regex.compile(fast, regex.V1).sub("", unguarded)
        assert fast_rest == regex.compile(translated, regex.V1).sub("", unguarded)


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        pytest.param(r"ignore\s+x", "\u0130GNORE x", True, id="dotted-capital-i"),
        pytest.param(r"ignore\s+x", "\u0131gnore x", True, id="dotless-i"),
        pytest.param(r"cat\s+x", "cat\x1cx", True, id="file-separator-is-space"),
        pytest.param(r"ssh", "\u017f\u017fh", True, id="long-s"),
        pytest.param(r"y(?:\w+\s+)x", "ya\u0301 x", False, id="combining-mark-not-word"),
        pytest.param(r"\bc2\b", "xc2", False, id="boundary"),
        pytest.param(r"\bc2\b", "-c2-", True, id="boundary-punct"),
    ],
)
def test_translated_pattern_agrees_with_re(pattern: str, text: str, matches: bool) -> None:
    assert bool(re.search(pattern, text, re.IGNORECASE)) is matches
    translated = pyre.translate(pattern, re.IGNORECASE)
    assert bool(regex.search(translated, text, regex.V1)) is matches


def test_runtime_pack_rules_use_translation() -> None:
    pack = runtime_pack()
    assert pack.dialect == "python-re"
    assert len(pack.rules) == 36


def test_guard_membership_equals_the_guard_regex() -> None:
    from soulscan.engine.matcher import _guard_chars, text_needs_exact

    guard = pyre.exactness_guard()
    if guard is None:
        pytest.skip("this interpreter's Unicode tables agree with regex's")
    expected = frozenset(regex.findall(guard, ALL_TEXT, flags=regex.V1))
    assert _guard_chars(guard) == expected
    odd = min(expected)
    assert text_needs_exact(f"plain {odd} text", guard)
    assert not text_needs_exact("plain ascii text", guard)
