"""Compiled dataclass methods, named tuples' expressions and persistent memos: kept across
runs, never trusted blindly.

Each case runs fresh processes (the caches live for a process and are saved at exit).
"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from soulscan.engine import cache


def _env(cache_home: Path, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOULSCAN_")}
    env["SOULSCAN_CACHE_DIR"] = str(cache_home)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    return env


def _run(code: str, cache_home: Path, tmp_path: Path) -> str:
    completed = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=True,
                               capture_output=True, text=True, timeout=120,
                               env=_env(cache_home, tmp_path))
    return completed.stdout.strip()


_DATACLASS_PROBE = """
    import sys, types
    from soulscan.engine import code_cache
    code_cache.install()
    import dataclasses

    # A class of a soulscan module (kept) and one of the host program (__main__: not kept).
    module = types.ModuleType("soulscan.probe_demo")
    sys.modules[module.__name__] = module
    exec(
        "import dataclasses\\n"
        "@dataclasses.dataclass(frozen=True)\\n"
        "class Point:\\n"
        "    x: int\\n"
        "    y: int = 2\\n"
        "    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)\\n",
        module.__dict__,
    )
    Point = module.Point

    @dataclasses.dataclass
    class Other:
        zebra_field: int

    p = Point(1)
    try:
        p.x = 5
        frozen = False
    except dataclasses.FrozenInstanceError:
        frozen = True
    known = code_cache.dataclasses.exec.known
    print(repr(p), p == Point(1, 2), hash(p) == hash(Point(1)), frozen, Other(3).zebra_field,
          len(known), any("zebra_field" in source for source in known))
"""


def test_dataclass_methods_come_from_the_cache_and_behave_the_same(tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    first = _run(_DATACLASS_PROBE, cache_home, tmp_path)
    second = _run(_DATACLASS_PROBE, cache_home, tmp_path)
    expected = "Point(x=1, y=2, tags=()) True True True 3"
    assert first == f"{expected} 0 False"  # nothing known yet: compiled, then saved at exit
    assert second.startswith(expected)
    known, other_kept = second.removeprefix(expected).split()
    assert int(known) >= 5  # __init__, __repr__, __eq__, __hash__, __setattr__, ...
    assert other_kept == "False"
    assert list(cache_home.glob("dataclass-methods-*.bin"))


def test_a_damaged_method_record_is_compiled_afresh(tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    _run(_DATACLASS_PROBE, cache_home, tmp_path)
    (record,) = cache_home.glob("dataclass-methods-*.bin")
    record.write_bytes(record.read_bytes()[:-7])
    assert _run(_DATACLASS_PROBE, cache_home, tmp_path) == (
        "Point(x=1, y=2, tags=()) True True True 3 0 False")


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param(b"junk", id="not-marshal-data"),
        pytest.param(marshal.dumps(("not", "code")), id="not-code"),
        pytest.param(b"", id="empty"),
    ],
)
def test_a_method_whose_stored_code_is_unusable_is_compiled_afresh(tmp_path: Path,
                                                                   stored: bytes) -> None:
    cache_home = tmp_path / "cache"
    _run(_DATACLASS_PROBE, cache_home, tmp_path)
    (record,) = cache_home.glob("dataclass-methods-*.bin")
    name = record.name
    env = _env(cache_home, tmp_path)
    table = _load_record(name, env)
    _store_record(name, dict.fromkeys(table, stored), env)
    assert _run(_DATACLASS_PROBE, cache_home, tmp_path).startswith(
        "Point(x=1, y=2, tags=()) True True True 3")


def _load_record(name: str, env: dict[str, str]) -> dict[str, bytes]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOULSCAN_CACHE_DIR", env["SOULSCAN_CACHE_DIR"])
        table = cache.load(name)
    assert isinstance(table, dict) and table
    return table


def _store_record(name: str, table: dict[str, bytes], env: dict[str, str]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOULSCAN_CACHE_DIR", env["SOULSCAN_CACHE_DIR"])
        cache.store(name, table)


_MEMO_MODULE = """
from soulscan.engine import cache

COMPUTED = []


@cache.persistent
def double(text: str, times: int) -> tuple[str, ...]:
    COMPUTED.append(text)
    return (text * times,) + VERSION


VERSION = ("v1",)
"""

_MEMO_PROBE = """
    import re
    import memo_demo
    print(memo_demo.double("ab", re.IGNORECASE), memo_demo.double("ab", 3), memo_demo.COMPUTED)
"""


def test_a_persistent_memo_is_reused_across_runs_until_its_module_changes(
        tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    module = tmp_path / "memo_demo.py"
    module.write_text(_MEMO_MODULE, encoding="utf-8")
    # re.IGNORECASE is 2: an int flag is a plain int in the memo's key.
    assert _run(_MEMO_PROBE, cache_home, tmp_path) == (
        "('abab', 'v1') ('ababab', 'v1') ['ab', 'ab']")
    assert _run(_MEMO_PROBE, cache_home, tmp_path) == "('abab', 'v1') ('ababab', 'v1') []"
    module.write_text(_MEMO_MODULE.replace('"v1"', '"v2"'), encoding="utf-8")
    assert _run(_MEMO_PROBE, cache_home, tmp_path) == (
        "('abab', 'v2') ('ababab', 'v2') ['ab', 'ab']")


_DEPENDENT_MEMO_MODULE = """
from soulscan.engine import cache

import memo_helper

COMPUTED = []


@cache.persistent_depending_on("memo_helper")
def shout(text: str) -> tuple[str, ...]:
    COMPUTED.append(text)
    return memo_helper.transform(text)
"""

_DEPENDENT_MEMO_PROBE = """
    import memo_dependent
    print(memo_dependent.shout("ab"), memo_dependent.COMPUTED)
"""


def test_a_memo_depending_on_another_module_starts_afresh_when_that_one_changes(
        tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    (tmp_path / "memo_dependent.py").write_text(_DEPENDENT_MEMO_MODULE, encoding="utf-8")
    helper = tmp_path / "memo_helper.py"
    helper.write_text("def transform(text):\n    return (text.upper(),)\n", encoding="utf-8")
    assert _run(_DEPENDENT_MEMO_PROBE, cache_home, tmp_path) == "('AB',) ['ab']"
    assert _run(_DEPENDENT_MEMO_PROBE, cache_home, tmp_path) == "('AB',) []"
    helper.write_text("def transform(text):\n    return (text + '!',)\n", encoding="utf-8")
    assert _run(_DEPENDENT_MEMO_PROBE, cache_home, tmp_path) == "('ab!',) ['ab']"


def test_a_memo_whose_dependency_cannot_be_read_is_kept_in_memory_only(tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    (tmp_path / "memo_dependent.py").write_text(
        _DEPENDENT_MEMO_MODULE.replace('"memo_helper")', '"memo_helper_missing")'),
        encoding="utf-8")
    (tmp_path / "memo_helper.py").write_text("def transform(text):\n    return (text,)\n",
                                             encoding="utf-8")
    for _ in range(2):
        assert _run(_DEPENDENT_MEMO_PROBE, cache_home, tmp_path) == "('ab',) ['ab']"
    assert not list(cache_home.glob("memo-*.bin"))


_LIMITED_MEMO_MODULE = """
from soulscan.engine import cache

COMPUTED = []


@cache.persistent_depending_on(limit=2)
def echo(text: str) -> tuple[str, ...]:
    COMPUTED.append(text)
    return (text,)
"""


def _limited_probe(*texts: str) -> str:
    return f"""
    import memo_limited
    for text in {texts!r}:
        memo_limited.echo(text)
    print(memo_limited.COMPUTED)
"""


def test_a_memo_past_its_limit_starts_over(tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    (tmp_path / "memo_limited.py").write_text(_LIMITED_MEMO_MODULE, encoding="utf-8")
    assert _run(_limited_probe("a", "b"), cache_home, tmp_path) == "['a', 'b']"
    assert _run(_limited_probe("a", "b"), cache_home, tmp_path) == "[]"
    # a third entry passes the limit of 2: the record keeps only what this run added
    assert _run(_limited_probe("c"), cache_home, tmp_path) == "['c']"
    assert _run(_limited_probe("a", "c"), cache_home, tmp_path) == "['a']"


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_cache_dir_others_can_write_is_not_used(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(shared))
    monkeypatch.delenv("SOULSCAN_NO_CACHE", raising=False)
    cache.store("planted.bin", {"rules": []})
    assert list(shared.iterdir()) == []
    body = marshal.dumps({"rules": []})  # a well-sealed record someone else put there
    (shared / "planted.bin").write_bytes(cache.seal(body))
    assert cache.load("planted.bin") is None
    shared.chmod(0o700)
    cache._usable_dir_for.cache_clear()
    cache._private.cache_clear()
    assert cache.load("planted.bin") == {"rules": []}  # the same record, in a private dir


def test_a_cache_dir_it_creates_is_private(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "fresh" / "soulscan"
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(home))
    monkeypatch.delenv("SOULSCAN_NO_CACHE", raising=False)
    cache.store("value.bin", (1, "two", None))
    assert cache.load("value.bin") == (1, "two", None)
    assert home.stat().st_mode & 0o077 == 0


_NAMED_TUPLE_PROBE = """
    from __future__ import annotations

    import collections, typing
    from soulscan.engine import code_cache
    code_cache.install_for_program()

    class Place(typing.NamedTuple):
        line: int
        tags: tuple[str, ...] = ()

    Pair = collections.namedtuple("Pair", "left right")
    place = Place(3)
    hints = typing.get_type_hints(Place)
    try:
        typing.ForwardRef("not an expression (")
        refused = "accepted"
    except SyntaxError as exc:
        refused = str(exc)
    table = typing.compile.__self__.table
    print(place, Place(4, ("a",)), Pair(1, right=2), Place.__new__.__defaults__,
          hints == {"line": int, "tags": tuple[str, ...]},
          typing.ForwardRef("tuple[str, ...]") == typing.ForwardRef("tuple[str, ...]"),
          refused, sorted(table.known) == sorted(set(table.known) | set(table.new)))
"""
_NAMED_TUPLE_OUTPUT = (
    "Place(line=3, tags=()) Place(line=4, tags=('a',)) Pair(left=1, right=2) ((),) True True "
    "Forward reference must be an expression -- got 'not an expression ('")


def _expression_record(cache_home: Path) -> Path:
    (record,) = cache_home.glob("expressions-*.bin")
    return record


def test_named_tuple_expressions_come_from_the_cache_and_behave_the_same(
        tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    first = _run(_NAMED_TUPLE_PROBE, cache_home, tmp_path)
    assert first == f"{_NAMED_TUPLE_OUTPUT} False"  # nothing known yet: compiled, then saved
    table = _load_record(_expression_record(cache_home).name, _env(cache_home, tmp_path))
    # each annotation, each lambda namedtuple evaluates for __new__ (the faulty text is not kept)
    assert {"int", "tuple[str, ...]", "lambda _cls, left, right: _tuple_new(_cls, (left, right))",
            "lambda _cls, line, tags: _tuple_new(_cls, (line, tags))"} <= table.keys()
    assert not any("not an expression" in source for source in table)
    assert _run(_NAMED_TUPLE_PROBE, cache_home, tmp_path) == f"{_NAMED_TUPLE_OUTPUT} True"


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda body: body[:-7], id="torn-record"),
        pytest.param(lambda body: b"soulscan-cache-2\n" + b"\0" * 40, id="foreign-record"),
    ],
)
def test_a_damaged_expression_record_is_compiled_afresh(tmp_path: Path,
                                                        damage: Callable[[bytes], bytes]) -> None:
    cache_home = tmp_path / "cache"
    _run(_NAMED_TUPLE_PROBE, cache_home, tmp_path)
    record = _expression_record(cache_home)
    record.write_bytes(damage(record.read_bytes()))
    assert _run(_NAMED_TUPLE_PROBE, cache_home, tmp_path) == f"{_NAMED_TUPLE_OUTPUT} False"


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param(b"junk", id="not-marshal-data"),
        pytest.param(marshal.dumps(("not", "code")), id="not-code"),
    ],
)
def test_an_expression_whose_stored_code_is_unusable_or_foreign_is_compiled_afresh(
        tmp_path: Path, stored: bytes) -> None:
    cache_home = tmp_path / "cache"
    _run(_NAMED_TUPLE_PROBE, cache_home, tmp_path)
    name = _expression_record(cache_home).name
    env = _env(cache_home, tmp_path)
    _store_record(name, dict.fromkeys(_load_record(name, env), stored), env)
    assert _run(_NAMED_TUPLE_PROBE, cache_home, tmp_path).startswith(_NAMED_TUPLE_OUTPUT)


def test_named_tuple_expressions_are_routed_for_the_program_only(tmp_path: Path) -> None:
    probe = """
        import builtins, collections, typing
        from soulscan.cli import main
        main(["--version"])
        print("compile" in vars(typing), "eval" in vars(collections))
    """
    assert _run(probe, tmp_path / "cache", tmp_path).splitlines()[-1] == "False False"


def test_the_program_settles_on_its_cache_directory_once(tmp_path: Path) -> None:
    probe = """
        import os
        from soulscan.engine import cache
        before = cache._usable_dir()
        cache.settle_for_program()
        os.environ["SOULSCAN_CACHE_DIR"] = os.environ["SOULSCAN_CACHE_DIR"] + "-moved"
        os.environ["SOULSCAN_NO_CACHE"] = "1"
        print(before == cache._usable_dir(), cache.in_use())
    """
    assert _run(probe, tmp_path / "cache", tmp_path) == "True True"


def test_a_caller_keeps_reading_the_cache_directory_from_the_environment(tmp_path: Path) -> None:
    probe = """
        import os
        from soulscan.cli import main
        from soulscan.engine import cache
        main(["--version"])
        os.environ["SOULSCAN_NO_CACHE"] = "1"
        print(cache._SETTLED, cache.in_use())
    """
    assert _run(probe, tmp_path / "cache", tmp_path).splitlines()[-1] == "[] False"


_MEMO_PARTS = ("memo_named", "double")  # the memoised function: its module, its name


@pytest.fixture
def memo_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A memoised function's source, in a cache directory of the test's own; the memo
    name index is forgotten after the test."""
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(tmp_path / "cache"))
    module = tmp_path / "memo_named.py"
    module.write_text(_MEMO_MODULE, encoding="utf-8")
    yield module
    cache._MEMO_NAMES.clear()


def test_a_memos_record_name_is_found_by_its_sources_state_without_reading_them(
        memo_source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, parts = memo_source, _MEMO_PARTS
    name = cache.memo_record_name(module, (), parts)
    assert name is not None and name.startswith("memo-")
    for table in cache._MEMO_NAMES.values():
        table.save()
    cache._MEMO_NAMES.clear()  # a fresh process: the index read from its record
    reads: list[Path] = []
    real_read = Path.read_bytes

    def counted(path: Path) -> bytes:
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(Path, "read_bytes", counted)
    assert cache.memo_record_name(module, (), parts) == name
    assert module not in reads  # the source was not read again
    # an edit of the same size, written later: read and hashed afresh
    module.write_text(_MEMO_MODULE.replace('"v1"', '"v9"'), encoding="utf-8")
    status = module.stat()
    os.utime(module, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000))
    edited = cache.memo_record_name(module, (), parts)
    assert module in reads and edited not in (None, name)


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param("../memo-" + "0" * 32 + ".bin", id="another-directory"),
        pytest.param("memo-" + "g" * 32 + ".bin", id="not-a-digest"),
        pytest.param("pack-names-" + "0" * 32 + ".bin", id="another-record"),
        pytest.param(("memo-" + "0" * 32 + ".bin",), id="not-text"),
    ],
)
def test_a_memo_name_index_entry_of_another_shape_is_never_used(
        memo_source: Path, stored: object) -> None:
    name = cache.memo_record_name(memo_source, (), _MEMO_PARTS)
    for table in cache._MEMO_NAMES.values():
        table.known = {key: stored for key in table.new}  # as if read from a damaged record
        table.new = {}
    assert cache.memo_record_name(memo_source, (), _MEMO_PARTS) == name
