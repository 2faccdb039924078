"""Stdlib ``re`` patterns rebuilt from the on-disk program match exactly what ``re.compile``
builds."""

from __future__ import annotations

import json
import marshal
import os
import re
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, AnyStr

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cache_records import flipped_body_bit, record_files, resealed

from soulscan.engine import cache, re_cache
from soulscan.engine.anchorscan import build_scan


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(home))
    monkeypatch.delenv("SOULSCAN_NO_CACHE", raising=False)
    monkeypatch.setattr(re_cache, "_written", [0])  # a fresh process's write budget
    # re's own compiler in this process, as the tests of compile_cached expect (the
    # installed one is tested in processes of its own)
    monkeypatch.setattr(re._compiler, "compile", _compile_program())  # type: ignore[attr-defined]
    return home


def _entries(home: Path) -> list[Path]:
    return record_files(home, "sre")


def _resealed(change: Callable[[Any], Any]) -> Callable[[Path], None]:
    return resealed("sre", change)


def _compile_program() -> Callable[..., Any]:
    """``re``'s own compiler, also when an in-process ``soulscan`` run (another test)
    installed the cached one in this process."""
    compile_program = re._compiler.compile  # type: ignore[attr-defined]
    return getattr(compile_program, "original", compile_program)  # type: ignore[no-any-return]


def _fresh(source: AnyStr, flags: int) -> re.Pattern[AnyStr]:
    # neither re's memory nor the disk cache: they would prove nothing
    return _compile_program()(source, flags)  # type: ignore[no-any-return]


def _from_disk(source: str, flags: int) -> re.Pattern[str]:
    re.purge()  # else a miss finds the pattern in re's memory and records nothing
    return re_cache.compile_cached(source, flags)


def _same_pattern(cached: re.Pattern[str], fresh: re.Pattern[str], texts: list[str]) -> None:
    assert (cached.pattern, cached.flags, cached.groups, cached.groupindex) == (
        fresh.pattern, fresh.flags, fresh.groups, fresh.groupindex)
    for text in texts:
        assert cached.findall(text) == fresh.findall(text), text
        assert [(m.span(), m.groups()) for m in cached.finditer(text)] == [
            (m.span(), m.groups()) for m in fresh.finditer(text)], text


# An anchor scan's alternation: lookbehinds, told-apart groups, probes.
_SCAN_ANCHORS = ["override", "never", "sliver", "server", "now", "with", "task", "tok", "xkx"]
_SCAN_SOURCE = build_scan(_SCAN_ANCHORS, 0).pattern.pattern  # type: ignore[union-attr]

CASES = [
    pytest.param(_SCAN_SOURCE, 0, ["never override the server now, with a sliver", "xkxkx"],
                 id="anchor-scan"),
    pytest.param(r"(?P<verb>ignore|disregard)\s+(all|previous)\b", re.IGNORECASE,
                 ["IGNORE all rules", "disregard previous", "none"], id="named-group-ignorecase"),
    pytest.param(r"(?m)^[\x21-\x60]{3,}$|(?<=a)b(?!c)", 0, ["ABC\nbegin", "ab abc"],
                 id="multiline-lookarounds"),
    pytest.param(r"(a)(?(1)b|c)\1", 0, ["abab", "aba", "c"], id="conditional-backref"),
    pytest.param(r"[\w\u0300-\u036f]+", re.ASCII, ["caf\u00e9 e\u0301", "plain"], id="ascii"),
]


@pytest.mark.parametrize(("source", "flags", "texts"), CASES)
def test_a_cached_pattern_matches_like_a_fresh_one(cache_home: Path, source: str, flags: int,
                                                   texts: list[str]) -> None:
    first = _from_disk(source, flags)
    assert len(_entries(cache_home)) == 1
    second = _from_disk(source, flags)  # from the disk entry
    assert second is not first
    _same_pattern(first, _fresh(source, flags), texts)
    _same_pattern(second, _fresh(source, flags), texts)


def _entry_of(source: str) -> Any:
    re.purge()
    return re_cache._compile_capturing(source, lambda: _fresh(source, 0))[1]


_SCAN_ENTRY = _entry_of(_SCAN_SOURCE)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abceiknorstvwx ,.\n", max_size=120))
def test_a_cached_scan_pattern_finds_what_a_fresh_one_finds(text: str) -> None:
    assert _SCAN_ENTRY is not None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(re_cache, "_entry_name", lambda source, flags: "unused")
        patch.setattr(cache, "load", lambda name: _SCAN_ENTRY)
        cached = re_cache.compile_cached(_SCAN_SOURCE)
    fresh = _fresh(_SCAN_SOURCE, 0)
    assert cached is not fresh
    _same_pattern(cached, fresh, [text])


def test_a_bad_pattern_still_raises(cache_home: Path) -> None:
    with pytest.raises(re.error):
        _from_disk("(unclosed", 0)
    assert _entries(cache_home) == []


def test_a_debug_pattern_is_not_kept(cache_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _same_pattern(_from_disk("de+bug", re.DEBUG), _fresh("de+bug", re.DEBUG), ["a debug"])
    assert "LITERAL" in capsys.readouterr().out  # re's parse dump, each time: no entry
    assert _entries(cache_home) == []


def test_no_cache_turns_it_off(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOULSCAN_NO_CACHE", "1")
    assert _from_disk("off", 0).search("turned off")
    assert _entries(cache_home) == []


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda home: _entries(home)[0].write_bytes(b"torn"), id="torn"),
        pytest.param(flipped_body_bit("sre"), id="flipped-bit"),
        pytest.param(_resealed(lambda entry: "text"), id="not-a-tuple"),
        pytest.param(_resealed(lambda entry: entry[:-1]), id="short-tuple"),
        pytest.param(_resealed(lambda entry: (entry[0], "code", *entry[2:])), id="code-not-a-list"),
        pytest.param(_resealed(lambda entry: (entry[0], [*entry[1], "x"], *entry[2:])),
                     id="code-not-ints"),
        pytest.param(_resealed(lambda entry: (entry[0], [*entry[1][:-3], 999, 1, 2], *entry[2:])),
                     id="invalid-program"),
        pytest.param(_resealed(lambda entry: (entry[0], entry[1], "1", *entry[3:])),
                     id="groups-not-an-int"),
    ],
)
def test_a_damaged_entry_falls_back_to_re_compile(cache_home: Path,
                                                  damage: Callable[[Path], None]) -> None:
    source = r"\bignore\s+(all|previous)\b"
    _from_disk(source, re.IGNORECASE)
    damage(cache_home)
    _same_pattern(_from_disk(source, re.IGNORECASE), _fresh(source, re.IGNORECASE),
                  ["ignore all rules", "IGNORE previous", "ignored"])


def test_another_interpreter_compiles_with_re(cache_home: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(re_cache.sys.implementation, "name", "pypy")
    _same_pattern(_from_disk("(a|b)+c", 0), _fresh("(a|b)+c", 0), ["abac", "c"])
    assert _entries(cache_home) == []


def test_c_arguments_of_an_unknown_shape_are_not_kept() -> None:
    known = ("x", 32, [17, 1], 0, {}, (None,))
    assert re_cache._portable(known, "x") == (32, [17, 1], 0, {}, (None,))
    assert re_cache._portable((*known, "more"), "x") is None
    assert re_cache._portable(known, "another source") is None
    assert re_cache._portable(("x", 32, [17, "op"], 0, {}, (None,)), "x") is None
    assert re_cache._portable(("x", 32, (17, 1), 0, {}, (None,)), "x") is None


def test_the_c_compiler_is_restored_after_a_compile(cache_home: Path) -> None:
    real = re_cache.C_MODULE.compile
    _from_disk("restored", 0)
    with pytest.raises(re.error):
        _from_disk("(", 0)
    assert re_cache.C_MODULE.compile is real


def test_one_process_writes_a_bounded_number_of_entries(cache_home: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(re_cache, "MAX_NEW_ENTRIES", 2)
    for word in ("alpha", "beta", "gamma", "delta"):
        assert _from_disk(word, 0).search(f"an {word} here")
    assert len(_entries(cache_home)) == 2


def test_a_full_entry_directory_is_emptied_before_new_entries(
        cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(re_cache, "MAX_ENTRIES_ON_DISK", 3)
    for word in ("one", "two", "three"):
        _from_disk(word, 0)
    assert len(_entries(cache_home)) == 3
    monkeypatch.setattr(re_cache, "_written", [0])  # the next process
    _from_disk("four", 0)
    assert len(_entries(cache_home)) == 1
    assert _from_disk("four", 0).search("twenty-four")


def test_the_entry_is_keyed_by_flags(cache_home: Path) -> None:
    _from_disk("Key", 0)
    _from_disk("Key", re.IGNORECASE)
    assert len(_entries(cache_home)) == 2
    assert _from_disk("Key", re.IGNORECASE).search("a key")
    assert not _from_disk("Key", 0).search("a key")


_INSTALLED_PROBE = """
import json, re, sys, warnings
from re import _parser
from soulscan.engine import re_cache
re_cache.install()
re_cache.install()  # twice is once
source, mode, texts = sys.argv[1], sys.argv[2], sys.argv[3:]
if mode == "no-parsing":  # a program read from disk never reaches the parser
    parse = _parser.parse
    def refuse(text, *arguments):
        assert text != source, "parsed"
        return parse(text, *arguments)
    _parser.parse = refuse
pattern = re.compile(source, re.I)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    re.compile("[[a]x")  # re warns about a possible nested set: compiled by re each time
print(json.dumps({
    "spans": [[m.span() for m in pattern.finditer(t)] for t in texts],
    "module_function": [m.span() for m in re.finditer(source, texts[0], flags=re.I)],
    "bytes": bool(re.search(rb"ab+", b"xabbb")),
    "warned": [str(w.message) for w in caught],
}))
"""
_INSTALLED_SOURCE = r"(?:ignore|disregard)\s+(?P<what>all|previous)\s+instructions"
_INSTALLED_TEXTS = ["Please IGNORE all instructions now", "disregard previous  instructions", "no"]


def _installed_run(home: Path, mode: str = "parse") -> Any:
    env = {**os.environ, "SOULSCAN_CACHE_DIR": str(home)}
    env.pop("SOULSCAN_NO_CACHE", None)
    completed = subprocess.run(
        [sys.executable, "-c", _INSTALLED_PROBE, _INSTALLED_SOURCE, mode, *_INSTALLED_TEXTS],
        check=True, capture_output=True, text=True, env=env, timeout=120)
    return json.loads(completed.stdout)


def _installed_expected() -> dict[str, Any]:
    fresh = _fresh(_INSTALLED_SOURCE, re.IGNORECASE)
    spans = [[list(m.span()) for m in fresh.finditer(t)] for t in _INSTALLED_TEXTS]
    return {"spans": spans, "module_function": spans[0], "bytes": True,
            "warned": ["Possible nested set at position 1"]}


def _gathered(home: Path) -> list[Path]:
    return sorted(home.glob("sre-gathered-*.bin"))


def _own_entry(home: Path) -> Path:
    """The per-pattern file of the probe's pattern."""
    (entry,) = [path for path in _entries(home)
                if cache.load(f"sre/{path.name}")[1:] == _entry_of_installed()[1:]]
    return entry


def _entry_of_installed() -> Any:
    re.purge()
    return re_cache._compile_capturing(
        _INSTALLED_SOURCE, lambda: _fresh(_INSTALLED_SOURCE, re.IGNORECASE))[1]


def test_an_installed_compiler_serves_every_re_compile_from_the_cache(cache_home: Path) -> None:
    expected = _installed_expected()
    assert _installed_run(cache_home) == expected  # compiled, and kept
    entries = len(_entries(cache_home))
    assert entries >= 1  # the probe's pattern, and the standard library's it imported
    assert _installed_run(cache_home, "no-parsing") == expected
    assert len(_entries(cache_home)) == entries  # nothing new; the warned-about kept out


def test_what_a_second_process_read_is_gathered_into_one_record(cache_home: Path) -> None:
    expected = _installed_expected()
    _installed_run(cache_home)
    assert _gathered(cache_home) == []  # one run's patterns stay in their own files
    _installed_run(cache_home)
    assert len(_gathered(cache_home)) == 1
    for entry in _entries(cache_home):
        entry.unlink()
    assert _installed_run(cache_home, "no-parsing") == expected  # from the gathered record


def _gathered_table(home: Path) -> dict[Any, Any]:
    """The gathered record's entries, each read from its ``marshal`` form."""
    (gathered,) = _gathered(home)
    table = cache.load(gathered.name)
    assert isinstance(table, dict)
    return {name: marshal.loads(stored) for name, stored in table.items()}


def _store_gathered(record: Path, entries: dict[Any, Any]) -> None:
    cache.store(record.name, {name: marshal.dumps(value) for name, value in entries.items()})


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda home, record: record.write_bytes(record.read_bytes()[:-9]),
                     id="torn"),
        pytest.param(lambda home, record: record.write_bytes(b"foreign"), id="foreign-file"),
        pytest.param(lambda home, record: cache.store(record.name, ["not", "a", "table"]),
                     id="not-a-table"),
        pytest.param(lambda home, record: _store_gathered(record, dict.fromkeys(
            _gathered_table(home), ("junk",))), id="every-entry-junk"),
        pytest.param(lambda home, record: cache.store(record.name, dict.fromkeys(
            _gathered_table(home), b"\xffjunk")), id="every-entry-not-marshal"),
        pytest.param(lambda home, record: cache.store(record.name, dict.fromkeys(
            _gathered_table(home), ("junk",))), id="entries-not-in-marshal-form"),
    ],
)
def test_a_damaged_gathered_record_is_ignored(cache_home: Path,
                                             damage: Callable[[Path, Path], None]) -> None:
    expected = _installed_expected()
    _installed_run(cache_home)
    _installed_run(cache_home)
    (gathered,) = _gathered(cache_home)
    damage(cache_home, gathered)
    assert _installed_run(cache_home) == expected
    assert _installed_run(cache_home, "no-parsing") == expected  # mended or read afresh


def test_an_unusable_gathered_entry_is_replaced_by_the_program_compiled_instead(
        cache_home: Path) -> None:
    _installed_run(cache_home)
    _installed_run(cache_home)
    (gathered,) = _gathered(cache_home)
    key = ("text", int(re.IGNORECASE), _INSTALLED_SOURCE)  # what the entry is of
    table = _gathered_table(cache_home)
    good = table[key]
    assert good[1:] == _entry_of_installed()[1:]
    _store_gathered(gathered, {**table, key: (good[0], [*good[1][:-3], 999, 1, 2], *good[2:])})
    _own_entry(cache_home).unlink()
    assert _installed_run(cache_home) == _installed_expected()
    assert _gathered_table(cache_home)[key] == good


@pytest.mark.parametrize(
    ("source", "may_warn"),
    [
        pytest.param("[[a]", True, id="nested-set"),
        pytest.param("[a--b]", True, id="set-difference"),
        pytest.param("[a&&b]", True, id="set-intersection"),
        pytest.param("[a||b]", True, id="set-union"),
        pytest.param("(a)(?(+1)b|c)", True, id="signed-group-number"),
        pytest.param("(a)(?(1)b|c)", False, id="plain-group-number"),
        pytest.param("(?P<n>a)(?(n)b|c)", False, id="group-name"),
        pytest.param("G(?<=-----BEG)IN", False, id="dashes-outside-any-set"),
        pytest.param(r"\033\[[0-?]*[ -/]*[@-~]", False, id="escaped-bracket-then-a-set"),
        pytest.param(r"\\[[a]", True, id="escaped-backslash-then-a-nested-set"),
    ],
)
def test_what_re_may_warn_about_is_told_apart(source: str, may_warn: bool) -> None:
    assert re_cache._may_warn(source) is may_warn


def _warnings_of(source: str | bytes) -> list[str] | None:
    """What ``re``'s own compiler warns about ``source`` (None: it does not compile)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _fresh(source, 0)
        except (re.error, RecursionError, OverflowError):
            return None
    return [str(warning.message) for warning in caught]


# Patterns near what re warns about: sets holding doubled set operators, brackets, escapes;
# conditionals with odd group numbers; escaped brackets and backslashes outside sets.
_SET_PIECES = st.sampled_from(["a", "z", "-", "--", "&&", "~~", "||", "[", "\\[", "\\]",
                               "\\\\", "^"])
_UNITS = st.one_of(
    st.tuples(st.sampled_from(["[", "[^"]), st.lists(_SET_PIECES, min_size=1, max_size=4))
    .map(lambda opened: f"{opened[0]}{''.join(opened[1])}]"),
    st.sampled_from(["1", "+1", " 1", "01", "\u0661", "g"]).map(lambda group: f"(?({group})b|c)"),
    st.sampled_from(["b", "--", "||", "\\[", "\\\\", "[[]"]),
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_UNITS, max_size=4).map(lambda units: "(?P<g>a)" + "".join(units)))
def test_a_pattern_re_warns_about_is_never_taken_from_the_cache(source: str) -> None:
    warned = _warnings_of(source)
    if warned:
        assert not re_cache._cacheable(source, 0), (source, warned)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=12).map(lambda raw: raw.replace(b"\\", b"")).filter(bool)
       | st.text(alphabet="[]-&(?P<>)ab\xe9", max_size=10).map(
           lambda text: text.encode("latin-1")))
def test_a_bytes_pattern_re_warns_about_is_never_taken_from_the_cache(source: bytes) -> None:
    warned = _warnings_of(source)
    if warned:
        assert not re_cache._cacheable(source, 0), (source, warned)


def test_a_bytes_pattern_is_kept_apart_from_the_text_one(cache_home: Path) -> None:
    text_entry = re_cache._entry_name("ab+", 0)
    assert re_cache._entry_name(b"ab+", 0) != text_entry
    re.purge()
    cached = re_cache._through_cache(b"ab+", 0, lambda: _fresh(b"ab+", 0))
    again = re_cache._through_cache(b"ab+", 0, lambda: _fresh(b"ab+", 0))
    assert len(_entries(cache_home)) == 1
    assert again is not cached and again.findall(b"xabbab") == [b"abb", b"ab"]


def test_an_unwritable_cache_dir_still_compiles(cache_home: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    cache_home.mkdir()

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied", str(cache_home))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    _same_pattern(_from_disk("unwrit+able", 0), _fresh("unwrit+able", 0), ["unwrittable"])
    table = re_cache._ENTRIES._table()
    assert table is not None
    table.new["sre/an-entry.bin"] = marshal.dumps((0, [1], 0, {}, (None,)))
    table.save()  # the gathered record, as at exit: refused, quietly
    assert [path for path in cache_home.rglob("*") if path.is_file()] == []


def test_a_gathered_record_keyed_by_names_is_not_read(cache_home: Path) -> None:
    """A gathered record of another shape (entries by record name, as an older format kept
    them) is no table: its entries are never read."""
    _installed_run(cache_home)
    _installed_run(cache_home)
    (gathered,) = _gathered(cache_home)
    table = _gathered_table(cache_home)
    _store_gathered(gathered, {f"sre/{index}.bin": value for index, value in enumerate(table.values())})
    for entry in _entries(cache_home):
        entry.unlink()
    assert _installed_run(cache_home) == _installed_expected()  # compiled afresh
