"""Functions a deferred module's stand-in serves from stored code
(``soulscan.engine.function_cache``): the real function's behaviour, never a stale or
damaged one, and the real module at the first other use."""

from __future__ import annotations

import inspect
import json
import marshal
import os
import subprocess
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from soulscan.engine import cache, function_cache

_PROBE = """
    import json, sys
    from soulscan import deferred_modules
    deferred_modules.install()
    import click, dataclasses, inspect

    @click.command()
    @click.option("--depth", help="How deep.\\n\\n    Indented, then not.")
    def command(depth):
        \"\"\"Does nothing.\"\"\"

    early = inspect  # what click and dataclasses hold
    seen = {
        "help": command.params[0].help,
        "served": type(sys.modules["inspect"]).__name__ == "DeferredModule",
        "loaded": sorted(m for m in ("ast", "dis") if m in sys.modules),
        "cleaned": early.cleandoc("  first\\n\\t  second\\n      third\\n\\n"),
    }
    if "--other" in sys.argv:
        seen["signature"] = str(early.signature(lambda a, b=2: None))
        seen["real after"] = early.cleandoc is sys.modules["inspect"].cleandoc
        seen["real type"] = type(sys.modules["inspect"]).__name__
    print(json.dumps(seen))
"""
_CLEANED = inspect.cleandoc("  first\n\t  second\n      third\n\n")
_HELP = "How deep.\n\nIndented, then not."


def _run(cache_home: Path, *arguments: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOULSCAN_")}
    env["SOULSCAN_CACHE_DIR"] = str(cache_home)
    completed = subprocess.run([sys.executable, "-c", textwrap.dedent(_PROBE), *arguments],
                               check=True, capture_output=True, text=True, timeout=120, env=env)
    seen: dict[str, object] = json.loads(completed.stdout)
    return seen


def _record(cache_home: Path) -> Path:
    (record,) = cache_home.glob("functions-*.bin")
    return record


_NOT_SERVED = {"help": _HELP, "served": False, "loaded": ["ast", "dis"], "cleaned": _CLEANED}
_SERVED = {"help": _HELP, "served": True, "loaded": [], "cleaned": _CLEANED}


def test_cleandoc_is_served_from_the_second_run_on_without_importing_inspect(
        tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    assert _run(cache_home) == _NOT_SERVED  # imported at click's first cleandoc, then stored
    assert _record(cache_home).exists()
    assert _run(cache_home) == _SERVED
    assert _run(cache_home) == _SERVED


def test_any_other_attribute_imports_the_real_module(tmp_path: Path) -> None:
    cache_home = tmp_path / "cache"
    _run(cache_home)
    assert _run(cache_home, "--other") == {
        **_SERVED, "signature": "(a, b=2)", "real after": True, "real type": "module"}


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda body: body[:-5], id="torn-record"),
        pytest.param(lambda body: b"soulscan-cache-2\n" + b"\1" * 30, id="foreign-record"),
        pytest.param(lambda body: b"", id="empty-file"),
    ],
)
def test_a_damaged_record_serves_nothing(tmp_path: Path,
                                         damage: Callable[[bytes], bytes]) -> None:
    cache_home = tmp_path / "cache"
    _run(cache_home)
    record = _record(cache_home)
    record.write_bytes(damage(record.read_bytes()))
    assert _run(cache_home) == _NOT_SERVED
    assert _run(cache_home) == _SERVED  # stored again at the end of that run


@pytest.fixture
def cache_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "cache"
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(home))
    monkeypatch.delenv("SOULSCAN_NO_CACHE", raising=False)
    yield home


def _rewrite_entry(home: Path, change: Callable[[tuple[object, ...]], object]) -> None:
    name = _record(home).name
    table = cache.load(name)
    assert isinstance(table, dict) and "inspect.cleandoc" in table
    table["inspect.cleandoc"] = change(table["inspect.cleandoc"])
    cache.store(name, table)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda entry: (*entry[:1], entry[1] + 1, *entry[2:]), id="file-modified"),
        pytest.param(lambda entry: (*entry[:2], entry[2] + 1, *entry[3:]), id="file-resized"),
        pytest.param(lambda entry: ("/elsewhere/inspect.py", *entry[1:]), id="other-file"),
        pytest.param(lambda entry: (*entry[:3], b"junk", entry[4]), id="not-marshal-data"),
        pytest.param(lambda entry: (*entry[:3], marshal.dumps(("not", "code")), entry[4]),
                     id="not-code"),
        pytest.param(lambda entry: entry[:4], id="short-entry"),
        pytest.param(lambda entry: [*entry], id="list-entry"),
        pytest.param(lambda entry: (*entry[:4], 5), id="doc-not-text"),
    ],
)
def test_an_entry_that_is_stale_or_of_another_shape_serves_nothing(
        cache_env: Path, change: Callable[[tuple[object, ...]], object]) -> None:
    _run(cache_env)
    _rewrite_entry(cache_env, change)
    assert _run(cache_env) == _NOT_SERVED


def test_the_served_function_is_the_real_one_in_name_doc_and_code(cache_env: Path) -> None:
    entry = function_cache._entry_of(inspect, "cleandoc")
    assert entry is not None
    served = function_cache._served("inspect", "cleandoc", entry)
    assert served is not None
    assert served.__code__ == inspect.cleandoc.__code__
    assert (served.__name__, served.__qualname__, served.__module__, served.__doc__) == (
        "cleandoc", "cleandoc", "inspect", inspect.cleandoc.__doc__)


@given(st.text(alphabet=" \t\nab\u3000\x0b", max_size=40))
def test_the_served_cleandoc_cleans_as_inspects(doc: str) -> None:
    entry = function_cache._entry_of(inspect, "cleandoc")
    assert entry is not None
    served = function_cache._served("inspect", "cleandoc", entry)
    assert served is not None
    assert served(doc) == inspect.cleandoc(doc)


_MODULE = """
import sys

HELPER = len


def pure(text):
    return [len(line) < sys.maxsize for line in text.split()]


def reads_a_module_global(text):
    return HELPER(text)


def reads_one_in_a_comprehension(text):
    return [HELPER(part) for part in text]


def with_a_default(text, extra=1):
    return len(text) + extra


def with_keyword_default(text, *, extra=1):
    return len(text) + extra


def _make():
    captured = 3
    def inner(text):
        return len(text) + captured
    return inner


with_a_closure = _make()
"""


@pytest.fixture
def demo_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    (tmp_path / "served_demo.py").write_text(_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "served_demo", raising=False)
    import served_demo  # type: ignore[import-not-found]

    module: types.ModuleType = served_demo
    return module


@pytest.mark.parametrize(
    ("name", "storable"),
    [
        pytest.param("pure", True, id="sys-and-builtins-only"),
        pytest.param("reads_a_module_global", False, id="module-global"),
        pytest.param("reads_one_in_a_comprehension", False, id="global-in-nested-code"),
        pytest.param("with_a_default", False, id="default"),
        pytest.param("with_keyword_default", False, id="keyword-default"),
        pytest.param("with_a_closure", False, id="closure"),
        pytest.param("HELPER", False, id="not-a-python-function"),
        pytest.param("missing", False, id="missing"),
    ],
)
def test_only_a_function_that_runs_the_same_without_its_module_is_stored(
        demo_module: types.ModuleType, name: str, storable: bool) -> None:
    entry = function_cache._entry_of(demo_module, name)
    assert (entry is not None) == storable
    if entry is not None:
        served = function_cache._served("served_demo", name, entry)
        assert served is not None
        assert served("a bb ccc") == getattr(demo_module, name)("a bb ccc")


def test_a_module_found_elsewhere_now_is_not_served(demo_module: types.ModuleType,
                                                    tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    entry = function_cache._entry_of(demo_module, "pure")
    assert entry is not None
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "served_demo.py").write_text(_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(shadow))
    sys.path_importer_cache.clear()
    assert function_cache._served("served_demo", "pure", entry) is None
