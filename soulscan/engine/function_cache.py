"""Pure functions of a deferred module, served by its stand-in from their stored code.

click cleans each option's help text with ``inspect.cleandoc`` while the scan command is
defined, and a scan uses nothing else of ``inspect``; yet importing ``inspect`` imports
``ast``, ``dis`` and ``opcode`` (~6% of a one-file scan's instructions). So the stand-in
for ``inspect`` (``soulscan.deferred_modules``) serves ``cleandoc`` itself: a function of
the real one's code, stored in the start-up cache (``soulscan.engine.cache``) by an
earlier run that imported ``inspect``. Any other attribute of the stand-in imports the
real module, whose functions then take the served ones' place.

A function is stored only when its code reads nothing from its module's namespace but
names this module gives it the same objects for (``sys``), has no closure and no
defaults: then the served function, with those globals and the builtins, runs exactly
as the real one. An entry is served while the import system still finds the module in
the same file (path, size, modification time) under the same interpreter; a damaged or
foreign record, or an entry of another shape, serves nothing (the module is imported at
first use, as without this cache).
"""

from __future__ import annotations

import atexit
import builtins
import marshal
import os
import sys
import types
from typing import Any, TypeGuard

from soulscan.engine import cache

FORMAT = 1
# The functions each module's stand-in serves: all a one-file scan reads of the module.
SERVED: dict[str, tuple[str, ...]] = {"inspect": ("cleandoc",)}
# The only names a served function's code may read from its module's namespace, each the
# very object it is bound to there.
_MODULE_GLOBALS: dict[str, Any] = {"sys": sys}
MAX_ENTRIES = 64

# (the module's file, its modification time in ns, its size, the function's code in
# marshal form, its docstring)
Entry = tuple[str, int, int, bytes, "str | None"]


def serve(stand_ins: dict[str, types.ModuleType]) -> None:
    """Put the served functions into the stand-ins (``module name -> stand-in``) from the
    record, and store at exit those of the modules this process imported for real."""
    if not cache.in_use():
        return
    table = cache.StoredTable(_record_name(), MAX_ENTRIES, _is_table)
    for module_name, stand_in in stand_ins.items():
        for function_name in SERVED.get(module_name, ()):
            function = _served(module_name, function_name, table.known.get(
                f"{module_name}.{function_name}"))
            if function is not None:
                stand_in.__dict__[function_name] = function
    atexit.register(_store_imported, table, tuple(stand_ins))


def _record_name() -> str:
    key = cache.interpreter_key(f"function-cache {FORMAT}", sys.implementation.cache_tag or "")
    return f"functions-{key}.bin"


def _served(module_name: str, function_name: str, entry: Any) -> types.FunctionType | None:
    """The function ``entry`` holds, while the module is still found where it was stored
    from; None otherwise."""
    if not _is_entry(entry):
        return None
    origin, modified, size, stored, doc = entry
    if _origin(module_name) != origin or _file_state(origin) != (modified, size):
        return None
    try:
        code = marshal.loads(stored)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(code, types.CodeType) or code.co_freevars:
        return None
    function = types.FunctionType(code, {**_MODULE_GLOBALS, "__builtins__": vars(builtins)},
                                  function_name)
    function.__module__ = module_name
    function.__qualname__ = function_name
    function.__doc__ = doc
    return function


def _store_imported(table: cache.StoredTable, module_names: tuple[str, ...]) -> None:
    """At exit: an entry for each served function of a module imported for real whose
    entry was missing or stale."""
    for module_name in module_names:
        module = sys.modules.get(module_name)
        if module is None or type(module) is not types.ModuleType:
            continue  # never imported (still the stand-in)
        for function_name in SERVED.get(module_name, ()):
            key = f"{module_name}.{function_name}"
            entry = _entry_of(module, function_name)
            if entry is not None and table.known.get(key) != entry:
                table.new[key] = entry
    table.save()


def _entry_of(module: types.ModuleType, function_name: str) -> Entry | None:
    """The entry of ``module.function_name``, or None when serving it could differ from
    the real function (globals read from the module, a closure, defaults)."""
    function = vars(module).get(function_name)
    origin = getattr(getattr(module, "__spec__", None), "origin", None)
    if (type(function) is not types.FunctionType or function.__closure__ is not None
            or function.__defaults__ is not None or function.__kwdefaults__ is not None
            or function.__globals__ is not vars(module) or not isinstance(origin, str)
            or _origin(module.__name__) != origin):
        return None
    namespace = vars(module)
    for name in _names_read(function.__code__):
        if name in namespace and (name not in _MODULE_GLOBALS
                                  or namespace[name] is not _MODULE_GLOBALS[name]):
            return None
    state = _file_state(origin)
    if state is None:
        return None
    return (origin, *state, marshal.dumps(function.__code__), function.__doc__)


def _names_read(code: types.CodeType) -> set[str]:
    """Every name ``code`` and the code nested in it may look up (globals among them)."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names_read(constant)
    return names


def _origin(module_name: str) -> str | None:
    """The file the import system would import ``module_name`` from now."""
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        try:
            spec = find_spec(module_name, None)
        except (ImportError, ValueError):
            return None
        if spec is not None:
            return spec.origin if isinstance(spec.origin, str) else None
    return None


def _file_state(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


_ENTRY_TYPES = (str, int, int, bytes)


def _is_entry(entry: Any) -> TypeGuard[Entry]:
    return (type(entry) is tuple and len(entry) == 5
            and all(type(field) is kind for field, kind in zip(entry, _ENTRY_TYPES))
            and (entry[4] is None or type(entry[4]) is str))


def _is_table(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(name, str) for name in value)
