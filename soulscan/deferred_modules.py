"""Standard library modules a scan imports but seldom uses, loaded when first used.

``hashlib`` loads OpenSSL when imported (~2 ms of a one-file scan's start) and
``ipaddress`` builds its classes (~1 ms), yet a scan of a clean file uses neither:
soulscan's modules import ``hashlib`` for digests that only findings, suppressions,
baselines and SOUL.md need (the start-up caches use the interpreter's own SHA-256,
``soulscan.engine.cache.sha256``), and ``pathlib`` imports ``urllib.parse``, which imports
``ipaddress`` for one check of bracketed hosts. ``inspect`` (with ``ast``, ``dis`` and
``opcode``, ~2.5 ms) is imported by ``dataclasses`` and click, and a scan calls only its
``cleandoc`` (click, on each option's help): the stand-in serves that function itself from
stored code (``soulscan.engine.function_cache``). ``base64`` (with ``struct``), ``copy``,
``fnmatch`` and ``ntpath`` come with the hardened decoders, ``dataclasses`` and ``pathlib``
for what a clean file's scan never does (decoding a blob, ``asdict``, globbing, Windows
paths).

The CLI puts a stand-in for each in ``sys.modules`` before anything imports it. Reading
any attribute of a stand-in imports the real module, which takes its place in
``sys.modules``; the stand-in's namespace is filled with the real module's, so a module
that imported the stand-in goes on reading the same functions and classes. For the
program only: a caller's process keeps its modules as they are.
"""

from __future__ import annotations

import sys
import types
from typing import Any

SELDOM_USED = ("hashlib", "ipaddress", "inspect", "base64", "struct", "copy", "fnmatch", "ntpath")


class DeferredModule(types.ModuleType):
    """Stands in for a module until one of its attributes is read."""

    def __getattr__(self, attribute: str) -> Any:
        return getattr(load(self), attribute)


def load(stand_in: DeferredModule) -> types.ModuleType:
    """The real module ``stand_in`` stands for, imported now; the stand-in then reads as it."""
    name = stand_in.__name__
    if sys.modules.get(name) is stand_in:
        del sys.modules[name]
    real = __import__(name)
    stand_in.__dict__.update(vars(real))
    return real


def install() -> None:
    """Stand-ins for the seldom-used modules not imported yet, serving the functions of
    theirs that the start-up cache holds."""
    stand_ins: dict[str, types.ModuleType] = {}
    for name in SELDOM_USED:
        if name not in sys.modules:
            sys.modules[name] = stand_ins[name] = DeferredModule(name)
    # imported after the stand-ins are in place: it imports pathlib, hence ipaddress
    from soulscan.engine import function_cache

    function_cache.serve(stand_ins)
