"""Modules imported from their stored code (``soulscan.engine.module_cache``): served only
while their source and directory are unchanged, exactly as the import system would load
them, and never from a damaged record.

Each case runs fresh processes on a small package of its own (the record is read when the
finder is installed and written when the process ends).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from soulscan.engine import cache

_MODULES = ("demo_pkg.alpha", "demo_pkg.sub", "demo_pkg.sub.beta")

_PROBE = """
    import json, sys
    import demo_pkg
    from soulscan.engine import module_cache
    if sys.argv[1] == "install":
        module_cache.install("demo_pkg")
    import demo_pkg.alpha, demo_pkg.sub.beta
    seen = {}
    for name in ("demo_pkg.alpha", "demo_pkg.sub", "demo_pkg.sub.beta"):
        module = sys.modules[name]
        spec = module.__spec__
        seen[name] = {
            "served": type(spec.loader).__name__ == "_StoredCodeLoader",
            "loader": isinstance(spec.loader, __import__("importlib.machinery").machinery
                                 .SourceFileLoader),
            "file": module.__file__, "cached": module.__cached__,
            "path": getattr(module, "__path__", None), "package": module.__package__,
            "origin": spec.origin, "parent": spec.parent, "name": spec.name,
            "search": spec.submodule_search_locations, "has_location": spec.has_location,
            "source": spec.loader.get_source(name), "value": module.VALUE,
        }
    print(json.dumps(seen))
"""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(tmp_path / "cache"))  # as the runs' own
    monkeypatch.delenv("SOULSCAN_NO_CACHE", raising=False)
    root = tmp_path / "src" / "demo_pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "alpha.py").write_text("VALUE = 1\n", encoding="utf-8")
    (root / "sub" / "__init__.py").write_text("VALUE = 'sub'\n", encoding="utf-8")
    (root / "sub" / "beta.py").write_text("import os\nVALUE = os.path.basename(__file__)\n",
                                          encoding="utf-8")
    return root


def _run(package: Path, mode: str = "install") -> dict[str, dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOULSCAN_")}
    env["SOULSCAN_CACHE_DIR"] = str(package.parent.parent / "cache")
    env["PYTHONPATH"] = os.pathsep.join([str(package.parent), env.get("PYTHONPATH", "")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the source is compiled by each plain import
    completed = subprocess.run([sys.executable, "-c", textwrap.dedent(_PROBE), mode],
                               check=True, capture_output=True, text=True, timeout=120, env=env)
    seen: dict[str, dict[str, Any]] = json.loads(completed.stdout)
    return seen


def _served(seen: dict[str, dict[str, Any]]) -> list[str]:
    return [name for name, module in seen.items() if module["served"]]


def _without_served(seen: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {name: {k: v for k, v in module.items() if k != "served"}
            for name, module in seen.items()}


def _record(package: Path) -> Path:
    (record,) = (package.parent.parent / "cache").glob("modules-*.bin")
    return record


def test_a_second_run_serves_each_submodule_as_the_import_system_loads_it(
        package: Path) -> None:
    plain = _run(package, "plain")
    first = _run(package)
    assert _served(first) == []  # imported as usual, and stored at exit
    second = _run(package)
    assert _served(second) == list(_MODULES)
    assert _without_served(second) == _without_served(plain)
    assert second["demo_pkg.sub"]["path"] == [str(package / "sub")]
    assert second["demo_pkg.sub.beta"]["value"] == "beta.py"


def test_an_edited_module_is_imported_afresh_even_at_the_same_size(package: Path) -> None:
    _run(package)
    _run(package)
    (package / "alpha.py").write_text("VALUE = 7\n", encoding="utf-8")  # same size
    edited = _run(package)
    assert edited["demo_pkg.alpha"]["value"] == 7
    assert "demo_pkg.alpha" not in _served(edited)
    again = _run(package)  # its entry was renewed
    assert again["demo_pkg.alpha"]["value"] == 7 and "demo_pkg.alpha" in _served(again)


def test_a_package_added_in_place_of_a_module_is_imported_instead(package: Path) -> None:
    _run(package)
    _run(package)
    (package / "alpha").mkdir()  # a package directory comes before alpha.py
    (package / "alpha" / "__init__.py").write_text("VALUE = 5\n", encoding="utf-8")
    seen = _run(package)
    assert seen["demo_pkg.alpha"]["value"] == 5
    assert seen["demo_pkg.alpha"]["origin"] == str(package / "alpha" / "__init__.py")


def _reseal_entries(package: Path, change: Any) -> None:
    record = _record(package)
    table = cache.load(record.name)
    assert isinstance(table, dict) and table
    cache.store(record.name, {name: change(entry) for name, entry in table.items()})


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda package: _record(package).write_bytes(
            _record(package).read_bytes()[:-9]), id="torn"),
        pytest.param(lambda package: _record(package).write_bytes(b"foreign"), id="foreign"),
        pytest.param(lambda package: _reseal_entries(package, lambda entry: ("junk",)),
                     id="entries-of-another-shape"),
        pytest.param(lambda package: _reseal_entries(package, lambda entry: (*entry[:-1], b"\xff")),
                     id="code-that-does-not-unmarshal"),
        pytest.param(lambda package: _reseal_entries(
            package, lambda entry: (*entry[:-1], __import__("marshal").dumps("not code"))),
            id="code-that-is-not-code"),
    ],
)
def test_a_damaged_record_or_entry_is_never_used(package: Path, damage: Any) -> None:
    plain = _run(package, "plain")
    _run(package)  # stores the record
    damage(package)
    assert _without_served(_run(package)) == _without_served(plain)


def test_the_cli_imports_soulscan_through_the_record(tmp_path: Path) -> None:
    target = tmp_path / "AGENTS.md"
    target.write_text("# Notes\n\nRun the tests before committing.\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOULSCAN_")}
    env["SOULSCAN_CACHE_DIR"] = str(tmp_path / "cache")
    command = [sys.executable, "-m", "soulscan", "scan", str(target), "--format", "json"]
    outputs = [subprocess.run(command, capture_output=True, text=True, timeout=120, env=env,
                              cwd=tmp_path, check=False) for _ in range(2)]
    assert [run.returncode for run in outputs] == [0, 0]
    assert outputs[0].stdout == outputs[1].stdout
    assert list((tmp_path / "cache").glob("modules-*.bin"))


def test_with_the_cache_turned_off_nothing_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    from soulscan.engine import module_cache

    monkeypatch.setenv("SOULSCAN_NO_CACHE", "1")
    before = list(sys.meta_path)
    try:
        module_cache.install()
        assert sys.meta_path == before  # no finder, and no code gathered at exit for nothing
    finally:
        sys.meta_path[:] = before
