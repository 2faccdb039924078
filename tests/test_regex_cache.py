"""Patterns rebuilt from the on-disk parse match exactly what ``regex.compile`` builds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import regex

from soulscan.engine import regex_cache
from soulscan.engine.rulepack import builtin_packs


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(home))
    monkeypatch.delenv("SOULSCAN_NO_CACHE", raising=False)
    return home


def _entries(home: Path) -> list[Path]:
    return sorted((home / "regex").glob("*.json"))


def _same_pattern(cached: regex.Pattern[str], fresh: regex.Pattern[str], texts: list[str]) -> None:
    assert (cached.pattern, cached.flags, cached.groupindex, cached.groups) == (
        fresh.pattern, fresh.flags, fresh.groupindex, fresh.groups)
    for text in texts:
        assert [(m.span(), m.groups()) for m in cached.finditer(text)] == [
            (m.span(), m.groups()) for m in fresh.finditer(text)], text


def _fresh(source: str, flags: int) -> regex.Pattern[str]:
    regex.purge()  # a pattern from regex's own memory cache would prove nothing
    return regex.compile(source, flags)


def _from_disk(source: str, flags: int) -> regex.Pattern[str]:
    regex.purge()
    return regex_cache.compile_cached(source, flags)


CASES = [
    pytest.param(r"(?:ignore|disregard)\s+(?P<what>all|previous)\s+instructions", regex.I,
                 ["Please IGNORE all instructions", "disregard previous  instructions", "no"],
                 id="named-group-ignorecase"),
    pytest.param(r"(?<![A-Za-z0-9])[A-Z2-7]{8,64}={0,6}(?![A-Za-z0-9])", 0,
                 ["MZXW6YTBOI======", "mzxw6ytboi", "x" * 100], id="lookarounds"),
    pytest.param(r"\p{Cf}|[\u200b-\u200f\u2060-\u2064]|\X", regex.V1,
                 ["a\u200bb", "e\u0301", "\U0001F468\u200d\U0001F469"], id="unicode-v1"),
    pytest.param(r"(?m)^[\x21-\x60][\x20-\x60]{3,60}$", 0, ["M9F]A\nbegin 644 x"],
                 id="multiline"),
    pytest.param(r"(a)(?(1)b|c)\1", 0, ["abab", "aba", "c"], id="conditional-backref"),
    pytest.param(r"stra(?:ss|ß)e", regex.I | regex.FULLCASE, ["STRASSE", "Straße"],
                 id="fullcase"),
]


@pytest.mark.parametrize(("source", "flags", "texts"), CASES)
def test_a_cached_pattern_matches_like_a_fresh_one(cache_home: Path, source: str, flags: int,
                                                   texts: list[str]) -> None:
    first = _from_disk(source, flags)
    assert len(_entries(cache_home)) == 1
    second = _from_disk(source, flags)
    assert second is not first
    _same_pattern(first, _fresh(source, flags), texts)
    _same_pattern(second, _fresh(source, flags), texts)


def test_every_built_in_rule_is_rebuilt_exactly(cache_home: Path) -> None:
    rules = [rule for pack in builtin_packs() for rule in pack.rules]
    texts = [text for rule in rules for text in (*rule.examples.match, *rule.examples.no_match)]
    sources = {(rule.regex_source, rule.regex_flags) for rule in rules}
    sources |= {(rule.exact_source, rule.regex_flags) for rule in rules if rule.exact_source}
    for source, flags in sorted(sources):
        _from_disk(source, flags)
    assert len(_entries(cache_home)) == len(sources)
    for source, flags in sorted(sources):
        _same_pattern(_from_disk(source, flags), _fresh(source, flags), texts)


def test_a_bad_pattern_still_raises(cache_home: Path) -> None:
    with pytest.raises(regex.error):
        _from_disk("(unclosed", 0)
    assert _entries(cache_home) == []


def _tamper(home: Path, change: object) -> None:
    (entry,) = _entries(home)
    data = json.loads(entry.read_text(encoding="utf-8"))
    entry.write_text(json.dumps(change(data) if callable(change) else change), encoding="utf-8")


def _code_changed(data: dict[str, list[object]]) -> dict[str, list[object]]:
    data["arguments"][1] = [0]  # a different program, its digest left as it was
    return data


@pytest.mark.parametrize(
    "change",
    [
        pytest.param("torn", id="not-json-object"),
        pytest.param({"digest": "x", "arguments": []}, id="wrong-digest"),
        pytest.param(_code_changed, id="code-changed-under-its-digest"),
        pytest.param([], id="a-list"),
    ],
)
def test_a_damaged_entry_falls_back_to_the_parser(cache_home: Path, change: object) -> None:
    source = r"\bignore\s+(all|previous)\b"
    _from_disk(source, regex.I)
    _tamper(cache_home, change)
    _same_pattern(_from_disk(source, regex.I), _fresh(source, regex.I),
                  ["ignore all rules", "IGNORE previous", "ignored"])


def test_an_unwritable_cache_still_compiles(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(blocker / "cache"))  # under a file
    pattern = _from_disk("evil", 0)
    assert pattern.search("an evil plan")


def test_the_c_compiler_is_restored_after_a_parse(cache_home: Path) -> None:
    real = regex_cache.C_MODULE.compile
    _from_disk("restored", 0)
    with pytest.raises(regex.error):
        _from_disk("(", 0)
    assert regex_cache.C_MODULE.compile is real
