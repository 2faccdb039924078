"""Patterns rebuilt from the on-disk parse match exactly what ``regex.compile`` builds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import regex
import regex._main as regex_main
from support.cache_records import flipped_body_bit, record_files, resealed

from soulscan.engine import regex_cache
from soulscan.engine.rulepack import builtin_packs


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(home))
    monkeypatch.delenv("SOULSCAN_NO_CACHE", raising=False)
    monkeypatch.setattr(regex_cache, "_written", [0])  # a fresh process's write budget
    installed = vars(regex_main)["_compile"]
    if getattr(installed, "soulscan_cached", False):  # a CLI test ran main() in this process
        monkeypatch.setattr(regex_main, "_compile", installed.original)
    return home


def _entries(home: Path) -> list[Path]:
    return record_files(home, "regex")


def _resealed(change: Callable[[Any], Any]) -> Callable[[Path], None]:
    return resealed("regex", change)


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


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda home: _entries(home)[0].write_bytes(b"torn"), id="torn"),
        pytest.param(flipped_body_bit("regex"), id="flipped-bit"),
        pytest.param(_resealed(lambda entry: "text"), id="not-a-tuple"),
        pytest.param(_resealed(lambda entry: entry[:-1]), id="short-tuple"),
        pytest.param(_resealed(lambda entry: (entry[0], "code", *entry[2:])), id="code-not-a-list"),
        pytest.param(_resealed(lambda entry: (entry[0], [*entry[1], "x"], *entry[2:])),
                     id="code-not-ints"),
    ],
)
def test_a_damaged_entry_falls_back_to_the_parser(cache_home: Path,
                                                  damage: Callable[[Path], None]) -> None:
    source = r"\bignore\s+(all|previous)\b"
    _from_disk(source, regex.I)
    damage(cache_home)
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


_INSTALLED_PROBE = """
import json, sys
import regex
from soulscan.engine import regex_cache
regex_cache.install()
regex_cache.install()  # twice is once
source, texts = sys.argv[1], sys.argv[2:]
pattern = regex.compile(source, regex.I)
print(json.dumps({
    "spans": [[m.span() for m in pattern.finditer(t)] for t in texts],
    "module_function": [m.span() for m in regex.finditer(source, texts[0], flags=regex.I)],
    "bytes": bool(regex.search(rb"ab+", b"xabbb")),
    "named_list": bool(regex.search(r"\\L<words>", "say hello", words=["hello"])),
}))
"""


def test_an_installed_parser_serves_every_compile_from_the_cache(cache_home: Path) -> None:
    source = r"(?:ignore|disregard)\s+(?P<what>all|previous)\s+instructions"
    texts = ["Please IGNORE all instructions now", "disregard previous  instructions", "none"]
    env = {**os.environ, "SOULSCAN_CACHE_DIR": str(cache_home)}
    runs = [json.loads(subprocess.run([sys.executable, "-c", _INSTALLED_PROBE, source, *texts],
                                      check=True, capture_output=True, text=True, env=env,
                                      timeout=120).stdout) for _ in range(2)]
    fresh = _fresh(source, regex.I)
    expected = [[list(m.span()) for m in fresh.finditer(t)] for t in texts]
    for run in runs:
        assert run["spans"] == expected
        assert run["module_function"] == expected[0]
        assert run["bytes"] and run["named_list"]
    assert len(_entries(cache_home)) == 1  # the str pattern; bytes and named lists are not kept


def test_one_process_writes_a_bounded_number_of_entries(cache_home: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regex_cache, "MAX_NEW_ENTRIES", 2)
    for word in ("alpha", "beta", "gamma", "delta"):
        assert _from_disk(word, 0).search(f"an {word} here")
    assert len(_entries(cache_home)) == 2


def test_a_full_entry_directory_is_emptied_before_new_entries(
        cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regex_cache, "MAX_ENTRIES_ON_DISK", 3)
    for word in ("one", "two", "three"):
        _from_disk(word, 0)
    assert len(_entries(cache_home)) == 3
    monkeypatch.setattr(regex_cache, "_written", [0])  # the next process
    _from_disk("four", 0)
    assert len(_entries(cache_home)) == 1
    assert _from_disk("four", 0).search("twenty-four")


def test_a_pattern_with_a_lone_surrogate_is_cached(cache_home: Path) -> None:
    source = "x\ud800+y"  # a pattern built from text can hold one; it has no UTF-8 form
    _from_disk(source, 0)
    assert len(_entries(cache_home)) == 1
    _same_pattern(_from_disk(source, 0), _fresh(source, 0), ["x\ud800\ud800y", "xy"])


_MEMORY_PROBE = """
import json, sys
import regex
from soulscan.engine import regex_cache
regex_cache.install()
first = regex.compile("ab+c", regex.I)
print(json.dumps({
    "same object, int flags": regex.compile("ab+c", int(regex.I)) is first,
    "same object, flag": regex.compile("ab+c", regex.I) is first,
    "module function": regex.match("ab+c", "ABBC", regex.I).span(),
    "other flags apart": regex.compile("ab+c") is not first,
    "uncached is fresh": regex.compile("ab+c", regex.I, cache_pattern=False) is not first,
    "bytes apart": regex.compile(b"ab+c", regex.I).pattern == b"ab+c",
    "named list apart": bool(regex.compile(r"\\L<w>", w=["x"]).search("x")),
}))
try:
    regex.compile(["not", "a", "pattern"])
except TypeError as exc:
    print("refused:", type(exc).__name__)
"""


def test_an_installed_parser_keeps_one_pattern_per_source_flags_and_version(
        cache_home: Path) -> None:
    env = {**os.environ, "SOULSCAN_CACHE_DIR": str(cache_home)}
    for _ in range(2):  # parsed, then read from the cache
        out = subprocess.run([sys.executable, "-c", _MEMORY_PROBE], check=True,
                             capture_output=True, text=True, env=env, timeout=120).stdout
        first, second = out.splitlines()
        assert json.loads(first) == {
            "same object, int flags": True, "same object, flag": True,
            "module function": [0, 4], "other flags apart": True, "uncached is fresh": True,
            "bytes apart": True, "named list apart": True,
        }
        assert second == "refused: TypeError"
