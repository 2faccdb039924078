"""Seldom-used standard library modules behind stand-ins (``soulscan.deferred_modules``):
nothing loaded until used, then the real module, whichever way it is reached."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from soulscan import deferred_modules
from soulscan.engine import cache

_PROBE = """
    import json, sys
    from soulscan import deferred_modules
    deferred_modules.install()
    import hashlib, urllib.parse
    seen = {"loaded before use": "_hashlib" in sys.modules
            or type(sys.modules["ipaddress"]).__name__ == "module"}
    early = hashlib  # a reference taken before the real module is loaded
    seen["sha256"] = hashlib.sha256(b"soulscan").hexdigest()
    from hashlib import md5
    seen["md5"] = md5(b"soulscan").hexdigest()
    seen["real in sys.modules"] = type(sys.modules["hashlib"]).__name__ == "module"
    seen["early reads the same"] = early.sha256 is sys.modules["hashlib"].sha256
    seen["file"] = early.__file__ == sys.modules["hashlib"].__file__
    seen["bracketed host"] = urllib.parse.urlsplit("http://[::1]:80/").hostname
    import ipaddress
    seen["ip"] = str(ipaddress.ip_address("192.0.2.1"))
    print(json.dumps(seen))
"""


def test_a_stand_in_loads_the_real_module_at_first_use() -> None:
    completed = subprocess.run([sys.executable, "-c", textwrap.dedent(_PROBE)], check=True,
                               capture_output=True, text=True, timeout=60)
    assert json.loads(completed.stdout) == {
        "loaded before use": False,
        "sha256": hashlib.sha256(b"soulscan").hexdigest(),
        "md5": hashlib.md5(b"soulscan").hexdigest(),
        "real in sys.modules": True,
        "early reads the same": True,
        "file": True,
        "bracketed host": "::1",
        "ip": "192.0.2.1",
    }


def test_the_caches_own_sha256_gives_hashlibs_digests() -> None:
    # record names are these digests: the same whichever module computes them
    for data in (b"", b"soulscan", bytes(range(256)) * 300):
        assert cache.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        copied = cache.sha256(data).copy()
        copied.update(b"\0")
        assert copied.hexdigest() == hashlib.sha256(data + b"\0").hexdigest()


_CLI_PROBE = """
    import os, sys
    sys.argv = ["soulscan", "scan", sys.argv[1], "--format", "json"]
    finish = os._exit
    def report(code):
        print("openssl:", "_hashlib" in sys.modules, file=sys.stderr)
        print("inspect:", type(sys.modules["inspect"]).__name__, "ast" in sys.modules,
              file=sys.stderr)
        print("unused:", sorted(name for name in ("base64", "struct", "copy", "fnmatch", "ntpath")
                                if type(sys.modules[name]).__name__ != "DeferredModule"),
              file=sys.stderr)
        finish(code)
    os._exit = report
    from soulscan.cli import main
    sys.exit(main())
"""


def test_a_clean_files_scan_runs_without_hashlib(tmp_path: Path) -> None:
    target = tmp_path / "AGENTS.md"
    target.write_text("# Notes\n\nRun the tests before committing.\n", encoding="utf-8")
    completed = subprocess.run([sys.executable, "-c", textwrap.dedent(_CLI_PROBE), str(target)],
                               capture_output=True, text=True, timeout=120, check=False)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["files"][0]["findings"] == []
    assert "openssl: False" in completed.stderr, (
        "a clean file's scan loaded OpenSSL: a module imported at start-up reads hashlib "
        "(soulscan.deferred_modules)")


def test_a_warm_clean_files_scan_runs_without_inspect(tmp_path: Path) -> None:
    """From the second run on, ``inspect.cleandoc`` (all a scan reads of ``inspect``) is
    served from stored code: neither ``inspect`` nor ``ast`` is imported."""
    target = tmp_path / "AGENTS.md"
    target.write_text("# Notes\n\nRun the tests before committing.\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOULSCAN_")}
    env["SOULSCAN_CACHE_DIR"] = str(tmp_path / "cache")
    seen = []
    for _ in range(2):
        completed = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(_CLI_PROBE), str(target)],
            capture_output=True, text=True, timeout=120, check=False, env=env)
        assert completed.returncode == 0, completed.stderr
        assert json.loads(completed.stdout)["files"][0]["findings"] == []
        seen.append([line for line in completed.stderr.splitlines()
                     if line.startswith(("inspect:", "unused:"))])
    assert seen == [["inspect: module True", "unused: []"],
                    ["inspect: DeferredModule False", "unused: []"]]


_EACH_PROBE = """
    import importlib, json, sys
    from soulscan import deferred_modules
    deferred_modules.install()
    name, attribute = sys.argv[1], sys.argv[2]
    early = importlib.import_module(name)  # the stand-in, as a module importing it gets it
    before = type(sys.modules[name]).__name__
    value = getattr(early, attribute)
    real = sys.modules[name]
    print(json.dumps([before, type(real).__name__, value is getattr(real, attribute),
                      early.__file__ == real.__file__, real.__name__]))
"""


# Each deferred module and an attribute whose first read loads it.
_FIRST_USES = [("hashlib", "sha256"), ("ipaddress", "ip_address"), ("inspect", "signature"),
               ("base64", "b64decode"), ("struct", "unpack"), ("copy", "deepcopy"),
               ("fnmatch", "fnmatchcase"), ("ntpath", "join")]


@pytest.mark.parametrize(("name", "attribute"), _FIRST_USES)
def test_each_deferred_module_is_the_real_one_at_first_use(name: str, attribute: str) -> None:
    assert name in deferred_modules.SELDOM_USED
    completed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_EACH_PROBE), name, attribute],
        check=True, capture_output=True, text=True, timeout=60)
    assert json.loads(completed.stdout) == ["DeferredModule", "module", True, True, name]


def test_every_deferred_module_is_probed() -> None:
    probed = [name for name, _ in _FIRST_USES]
    assert sorted(deferred_modules.SELDOM_USED) == sorted(set(probed)) == sorted(probed)
