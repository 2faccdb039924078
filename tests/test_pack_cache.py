"""The on-disk rule-pack cache: keyed by content, never stale, never a reason to fail."""

from __future__ import annotations

import copy
import dataclasses
import marshal
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from soulscan.engine import cache, pack_cache
from soulscan.engine.rulepack import Examples, Rule, builtin_pack_paths, load_pack

PACK = """\
pack: {id: demo, name: Demo}
rules:
  - id: SSX001
    name: demo-rule
    scope: context
    severity: high
    confidence: medium
    message: Demo.
    pattern: 'evil'
    examples: {match: [evil], no-match: [good]}
"""


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(home))
    monkeypatch.delenv("SOULSCAN_NO_CACHE", raising=False)
    pack_cache._names.cache_clear()  # a fresh process: the pack index not yet read
    return home


def _write(tmp_path: Path, text: str = PACK) -> Path:
    path = tmp_path / "pack.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _entries(home: Path) -> list[Path]:
    return sorted(home.glob("rulepack-*.bin"))


def test_a_validated_pack_is_cached_and_read_back_equal(cache_home: Path, tmp_path: Path) -> None:
    path = _write(tmp_path)
    parsed = load_pack(path)
    assert len(_entries(cache_home)) == 1
    cached = load_pack(path)
    assert cached == parsed
    assert [(r.regex_source, r.regex_flags, r.anchors, r.trusted) for r in cached.rules] == [
        (r.regex_source, r.regex_flags, r.anchors, r.trusted) for r in parsed.rules]


@pytest.mark.parametrize("pack_path", builtin_pack_paths(), ids=lambda p: p.name)
def test_every_built_in_pack_round_trips_through_the_cache(pack_path: Path) -> None:
    pack = load_pack(pack_path, trusted=True)
    restored = pack_cache.from_data(marshal.loads(marshal.dumps(pack_cache.to_data(pack))),
                                    pack.path, trusted=True)
    assert restored == pack
    assert restored is not None
    for before, after in zip(pack.rules, restored.rules, strict=True):
        assert (after.regex_source, after.regex_flags, after.exact_source, after.exact_guard,
                after.anchors, after.anchors_folded, after.trusted, dict(after.docs)) == (
            before.regex_source, before.regex_flags, before.exact_source, before.exact_guard,
            before.anchors, before.anchors_folded, before.trusted, dict(before.docs))


def _hash_or_error(value: object) -> int | str:
    try:
        return hash(value)
    except TypeError as exc:
        return str(exc)


@pytest.mark.parametrize("pack_path", builtin_pack_paths(), ids=lambda p: p.name)
def test_a_cached_rule_is_the_object_its_dataclass_builds(pack_path: Path) -> None:
    """``_rule`` fills each ``Rule``'s ``__dict__`` at once: the same objects as ``Rule(...)``
    in every way, every field given (none left to a default), still frozen."""
    pack = load_pack(pack_path, trusted=True)
    restored = pack_cache.from_data(pack_cache.to_data(pack), pack.path, trusted=True)
    assert restored is not None
    field_names = [field.name for field in dataclasses.fields(Rule)]
    for made in restored.rules:
        built = Rule(**{**vars(made), "examples": Examples(**vars(made.examples))})
        assert type(made) is Rule and type(made.examples) is Examples
        assert list(vars(made)) == list(vars(built)) == field_names  # every field, in order
        assert list(vars(made.examples)) == [f.name for f in dataclasses.fields(Examples)]
        assert made == built and repr(made) == repr(built)
        assert _hash_or_error(made) == _hash_or_error(built)  # docs is a dict: both refuse
        assert vars(made) == vars(built) and made.examples == built.examples
        assert pickle.loads(pickle.dumps(made)) == built
        assert copy.copy(made) == built
        assert dataclasses.replace(made, id="other") == dataclasses.replace(built, id="other")
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.id = "changed"  # type: ignore[misc]
    assert not hasattr(Rule, "__post_init__") and not hasattr(Examples, "__post_init__")


def test_an_edited_pack_is_parsed_again(cache_home: Path, tmp_path: Path) -> None:
    path = _write(tmp_path)
    assert load_pack(path).rules[0].pattern == "evil"
    _write(tmp_path, PACK.replace("'evil'", "'wicked'"))
    assert load_pack(path).rules[0].pattern == "wicked"
    assert len(_entries(cache_home)) == 2


def test_an_edit_that_breaks_a_cached_pack_is_reported(cache_home: Path, tmp_path: Path) -> None:
    path = _write(tmp_path)
    load_pack(path)
    _write(tmp_path, PACK.replace("'evil'", "'(evil'"))
    with pytest.raises(Exception, match="bad pattern"):
        load_pack(path)


def test_an_invalid_pack_is_never_cached(cache_home: Path, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="unknown scope"):
        load_pack(_write(tmp_path, PACK.replace("scope: context", "scope: nowhere")))
    assert _entries(cache_home) == []


def test_built_in_and_user_loads_of_one_text_are_cached_apart(cache_home: Path,
                                                              tmp_path: Path) -> None:
    path = _write(tmp_path)
    assert load_pack(path, trusted=True).rules[0].trusted
    assert not load_pack(path).rules[0].trusted
    assert len(_entries(cache_home)) == 2


def _truncated(record: bytes) -> bytes:
    return record[: len(record) // 2]


def _flipped(record: bytes) -> bytes:
    return record[:-1] + bytes([record[-1] ^ 1])


def _resealed_garbage(record: bytes) -> bytes:
    """A record whose check matches a body that is not marshal data."""
    body = b"\xff" * 16
    return cache.seal(body)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(_truncated, id="torn"),
        pytest.param(_flipped, id="flipped-bit"),
        pytest.param(lambda record: b"", id="empty"),
        pytest.param(lambda record: b'{"id": "demo"}', id="foreign-file"),
        pytest.param(_resealed_garbage, id="not-marshal-data"),
    ],
)
def test_a_corrupt_entry_is_ignored(cache_home: Path, tmp_path: Path,
                                    damage: Callable[[bytes], bytes]) -> None:
    path = _write(tmp_path)
    expected = load_pack(path)
    (entry,) = _entries(cache_home)
    entry.write_bytes(damage(entry.read_bytes()))
    assert load_pack(path) == expected


def _rewrite(home: Path, change: Callable[[Any], Any]) -> None:
    """Replace the one cached pack with a changed, properly sealed record."""
    (entry,) = _entries(home)
    name = entry.name
    cache.store(name, change(cache.load(name)))


def _with_rule_field(data: tuple[Any, ...], field: str, value: object) -> tuple[Any, ...]:
    """The pack record with one field of its first rule replaced."""
    rules_at = pack_cache.PACK_FIELDS.index("rules")
    rule = list(data[rules_at][0])
    rule[pack_cache.RULE_FIELDS.index(field)] = value
    return (*data[:rules_at], (tuple(rule), *data[rules_at][1:]), *data[rules_at + 1:])


@pytest.mark.parametrize(
    "data",
    [
        pytest.param([], id="not-a-tuple"),
        pytest.param({"id": "demo"}, id="a-mapping"),
        pytest.param(("demo", "Demo"), id="short-tuple"),
        pytest.param(None, id="none"),
    ],
)
def test_a_record_of_another_shape_is_ignored(cache_home: Path, tmp_path: Path,
                                             data: object) -> None:
    path = _write(tmp_path)
    expected = load_pack(path)
    _rewrite(cache_home, lambda _: data)
    assert load_pack(path) == expected


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("regex_flags", "34", id="flags-as-text"),
        pytest.param("regex_flags", True, id="flags-as-bool"),
        pytest.param("severity", "DIRE", id="unknown-severity"),
        pytest.param("severity", ["HIGH"], id="severity-not-text"),
        pytest.param("anchors", (("evil", 7),), id="anchor-not-text"),
        pytest.param("anchors", [("evil",)], id="anchors-not-a-tuple"),
        pytest.param("kinds", "agents", id="kinds-not-a-tuple"),
        pytest.param("match", ("evil", None), id="example-not-text"),
        pytest.param("docs", {"why": 1}, id="doc-not-text"),
        pytest.param("exact_guard", 7, id="guard-not-text"),
        pytest.param("anchors_folded", 1, id="folded-not-a-bool"),
        pytest.param("id", None, id="id-missing"),
    ],
)
def test_an_entry_with_a_wrong_field_is_ignored(cache_home: Path, tmp_path: Path, field: str,
                                                value: object) -> None:
    path = _write(tmp_path)
    expected = load_pack(path)
    _rewrite(cache_home, lambda data: _with_rule_field(data, field, value))
    reloaded = load_pack(path)
    assert reloaded == expected
    assert reloaded.rules[0].regex_flags == expected.rules[0].regex_flags


def test_a_good_entry_is_what_the_loader_uses(cache_home: Path, tmp_path: Path) -> None:
    """Proof that a hit skips parsing: a (well-formed) entry's message is what loads."""
    path = _write(tmp_path)
    load_pack(path)

    _rewrite(cache_home, lambda data: _with_rule_field(data, "message", "From the cache."))
    assert load_pack(path).rules[0].message == "From the cache."


def test_an_unwritable_cache_dir_still_loads(cache_home: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    cache_home.mkdir()

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied", str(cache_home))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    assert load_pack(_write(tmp_path)).rules[0].id == "SSX001"
    assert list(cache_home.iterdir()) == []


def test_an_unreadable_entry_is_a_miss(cache_home: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path)
    expected = load_pack(path)
    real_read_text = Path.read_text

    def refuse_cache(self: Path, *args: object, **kwargs: object) -> str:
        if self.parent == cache_home:
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", refuse_cache)
    assert load_pack(path) == expected


def test_a_cache_dir_that_is_a_file_still_loads(cache_home: Path, tmp_path: Path) -> None:
    cache_home.write_text("not a directory", encoding="utf-8")
    pack = load_pack(_write(tmp_path))
    assert pack.rules[0].id == "SSX001"
    assert cache_home.read_text(encoding="utf-8") == "not a directory"


def test_no_cache_setting_reads_and_writes_nothing(cache_home: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOULSCAN_NO_CACHE", "1")
    load_pack(_write(tmp_path))
    assert not cache_home.exists()


def test_a_write_leaves_no_temporary_file(cache_home: Path) -> None:
    cache.store("demo.bin", {"a": 1})
    assert [p.name for p in cache_home.iterdir()] == ["demo.bin"]
    assert cache.load("demo.bin") == {"a": 1}


def test_the_key_follows_the_text_and_the_trust() -> None:
    text = PACK
    assert pack_cache.cache_name(text, trusted=False) == pack_cache.cache_name(text, trusted=False)
    assert pack_cache.cache_name(text, trusted=False) != pack_cache.cache_name(text + " ",
                                                                              trusted=False)
    assert pack_cache.cache_name(text, trusted=False) != pack_cache.cache_name(text, trusted=True)


def test_a_pack_loads_uncached_when_the_loader_has_no_sources(
        cache_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pack_cache, "_code_digest", lambda: None)
    assert load_pack(_write(tmp_path)).rules[0].id == "SSX001"
    assert _entries(cache_home) == []


def _index_saved_and_forgotten() -> None:
    """What a process leaves behind and the next one reads: the pack index on disk."""
    table = pack_cache._names()
    assert table is not None
    table.save()
    pack_cache._names.cache_clear()


def _unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Any) -> str:
        raise AssertionError("the pack's text was read")

    monkeypatch.setattr("soulscan.engine.rulepack._PackReader.read_text", refuse)


def test_an_unchanged_built_in_pack_is_read_without_its_text(
        cache_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path)
    parsed = load_pack(path, trusted=True)
    _index_saved_and_forgotten()
    _unreadable(monkeypatch)
    assert load_pack(path, trusted=True) == parsed
    with pytest.raises(AssertionError):  # a user pack is always read
        load_pack(path)


def test_an_edited_built_in_pack_is_read_afresh_even_at_the_same_size(
        cache_home: Path, tmp_path: Path) -> None:
    path = _write(tmp_path)
    assert load_pack(path, trusted=True).rules[0].pattern == "evil"
    _index_saved_and_forgotten()
    path.write_text(PACK.replace("'evil'", "'vile'"), encoding="utf-8")  # same size
    assert load_pack(path, trusted=True).rules[0].pattern == "vile"
    _index_saved_and_forgotten()
    assert load_pack(path, trusted=True).rules[0].pattern == "vile"


@pytest.mark.parametrize(
    "entry",
    [
        pytest.param("junk", id="not-a-tuple"),
        pytest.param((1, 2), id="too-short"),
        pytest.param((1, 2, 3), id="name-not-text"),
        pytest.param("other-pack-of-another-file-state", id="another-file-state"),
    ],
)
def test_a_damaged_pack_index_entry_is_never_used(
        cache_home: Path, tmp_path: Path, entry: Any) -> None:
    other = tmp_path / "other"
    other.mkdir()
    other_path = _write(other, PACK.replace("demo", "other"))
    load_pack(other_path, trusted=True)
    path = _write(tmp_path)
    parsed = load_pack(path, trusted=True)
    table = pack_cache._names()
    assert table is not None
    if entry == "other-pack-of-another-file-state":  # the record of another pack, stale
        entry = (0, 0, table.new[str(other_path)][2])
    table.known = {str(path): entry}
    table.new = {}
    assert load_pack(path, trusted=True) == parsed


def test_an_unchanged_built_in_pack_is_read_without_the_loaders_code_being_hashed(
        cache_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path)
    parsed = load_pack(path, trusted=True)
    _index_saved_and_forgotten()
    pack_cache._code_digest.cache_clear()  # a fresh process

    def refuse() -> bytes:
        raise AssertionError("the loader's code was read and hashed")

    monkeypatch.setattr(pack_cache, "_code_digest", refuse)
    assert load_pack(path, trusted=True) == parsed


def test_a_changed_loader_starts_a_fresh_pack_index(
        cache_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path)
    parsed = load_pack(path, trusted=True)
    _index_saved_and_forgotten()
    states = pack_cache._code_states()
    assert states is not None and len(states) == len(pack_cache._CODE_FILES)
    monkeypatch.setattr(pack_cache, "_code_states", lambda: [*states[:-1], states[-1] + "1"])
    assert pack_cache.known_name(path) is None  # another index: this pack not in it
    assert load_pack(path, trusted=True) == parsed
    monkeypatch.setattr(pack_cache, "_code_states", lambda: None)
    pack_cache._names.cache_clear()
    assert pack_cache.known_name(path) is None  # no sources: no index at all
