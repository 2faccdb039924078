"""The compiled code of soulscan's own modules, read from one record at start-up.

A scan imports some 75 of soulscan's modules, and for each the import system looks the
name up in its directory, reads the source's status and opens and reads the ``.pyc``; a
module whose ``.pyc`` is stale and cannot be rewritten (``PYTHONDONTWRITEBYTECODE``, an
install the user cannot write to) is compiled from source again at every run, ~2 ms each.
The code ``SourceFileLoader`` would run for each is kept in one record
(``soulscan.engine.cache``) beside what makes it valid: the source's path, size and
modification time, and the modification time of the directory it was found in. A module
whose source changed, or whose directory did (a file added beside it could take its
place), is imported as usual and its entry renewed when the process ends.

Only submodules of soulscan, found where their parent package's ``__path__`` points, are
served, by a loader that is a ``SourceFileLoader`` in every other respect (source text,
resources, ``__file__``, ``__cached__``); top-level modules stay with ``sys.path``. The CLI
installs it for its own process only. An optimisation: a damaged record or entry means
importing as usual.
"""

from __future__ import annotations

import atexit
import marshal
import os
import sys
import types
from collections.abc import Sequence
from importlib.machinery import ModuleSpec, PathFinder, SourceFileLoader
from typing import Any, TypeGuard

from soulscan.engine import cache

FORMAT = 1
PACKAGE = "soulscan"
# A record holding more modules than this starts over: entries of removed modules go.
MAX_ENTRIES = 512


class _StoredCodeLoader(SourceFileLoader):
    """``SourceFileLoader`` whose module code comes from the record (read when the module
    is executed), or from the ``.pyc`` or source as usual when the stored code is not one."""

    def __init__(self, fullname: str, path: str, stored: bytes) -> None:
        super().__init__(fullname, path)
        self._stored = stored

    def get_code(self, fullname: str) -> types.CodeType | None:
        if fullname == self.name:
            code = _code_of(self._stored)
            if code is not None:
                return code
        return super().get_code(fullname)


class ModuleCodeFinder:
    """A meta path finder, consulted just before ``PathFinder``, for the submodules of
    ``package`` whose stored code is still what their source compiles to."""

    def __init__(self, table: cache.StoredTable, package: str) -> None:
        self.table = table
        self._prefix = package + "."
        # imported before this finder was there (the CLI's own entry point and this
        # module's imports): never served, so never stored
        self._imported_before = frozenset(sys.modules)

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> ModuleSpec | None:
        if path is None or not fullname.startswith(self._prefix):
            return None
        entry = self.table.known.get(fullname)
        if not _is_entry(entry):
            return None
        origin, found_in, directory_time, source_time, size, is_package, stored = entry
        if list(path) != [found_in] or _modified(found_in) != directory_time:
            return None
        try:
            status = os.stat(origin)
        except OSError:
            return None
        if status.st_mtime_ns != source_time or status.st_size != size:
            return None
        spec = ModuleSpec(fullname, _StoredCodeLoader(fullname, origin, stored), origin=origin,
                          is_package=is_package)
        spec.has_location = True  # __file__ and __cached__, as for a file found on a path
        if is_package:
            assert spec.submodule_search_locations is not None
            spec.submodule_search_locations.append(os.path.dirname(origin))
        return spec

    def invalidate_caches(self) -> None:
        """Nothing kept between look-ups (each checks the files afresh)."""

    def save(self) -> None:
        """Store the code of the modules this process imported as usual (not yet in the
        record, or changed since), once, as the process ends."""
        for name, module in list(sys.modules.items()):
            if name.startswith(self._prefix) and name not in self._imported_before:
                entry = _entry_of(name, getattr(module, "__spec__", None))
                if entry is not None:
                    self.table.new[name] = entry
        self.table.save()


def install(package: str = PACKAGE) -> None:
    """Serve the submodules of ``package`` (imported already) from the record for the
    rest of this process."""
    if not cache.in_use() or any(isinstance(f, ModuleCodeFinder) for f in sys.meta_path):
        return  # no record to read, nor to write the modules' code to at exit
    try:
        before = sys.meta_path.index(PathFinder)
    except ValueError:
        return  # an import system set up differently: left alone
    table = cache.StoredTable(_record_name(package), MAX_ENTRIES, _is_table)
    finder = ModuleCodeFinder(table, package)
    sys.meta_path.insert(before, finder)
    atexit.register(finder.save)


def _record_name(package: str) -> str:
    where = os.path.dirname(getattr(sys.modules[package], "__file__", None) or "")
    # The interpreter (its version pins the bytecode), the optimisation level (-O drops
    # asserts), and the checkout: two installs never take each other's entries.
    key = cache.interpreter_key(f"module-cache {FORMAT}", sys.implementation.cache_tag or "",
                                str(sys.flags.optimize), package, where)
    return f"modules-{key}.bin"


def _entry_of(name: str, spec: ModuleSpec | None) -> Entry | None:
    """The record's entry for a module imported as usual from its source file, or None
    (served from the record already, not from a source file, or found otherwise than
    ``PathFinder`` would find it now)."""
    if spec is None or type(spec.loader) is not SourceFileLoader or not spec.has_location:
        return None
    origin = spec.origin
    parent = sys.modules.get(name.rpartition(".")[0])
    search = list(getattr(parent, "__path__", None) or ())
    if not isinstance(origin, str) or not origin.endswith(".py") or len(search) != 1:
        return None
    is_package = spec.submodule_search_locations is not None
    found_in = os.path.dirname(os.path.dirname(origin) if is_package else origin)
    directory_time = _modified(found_in)
    if directory_time is None:
        return None
    try:
        before = os.stat(origin)
        found = PathFinder.find_spec(name, search)
        if (search != [found_in] or found is None or found.origin != origin
                or type(found.loader) is not SourceFileLoader):
            return None
        code = marshal.dumps(spec.loader.get_code(name))
        after = os.stat(origin)
    except (OSError, ImportError, ValueError, SyntaxError):
        return None
    if ((before.st_mtime_ns, before.st_size) != (after.st_mtime_ns, after.st_size)
            or _modified(found_in) != directory_time):
        return None  # changed while being read: next time
    return (origin, found_in, directory_time, before.st_mtime_ns, before.st_size, is_package,
            code)


def _modified(directory: str) -> int | None:
    try:
        return os.stat(directory).st_mtime_ns
    except OSError:
        return None


def _code_of(stored: bytes) -> types.CodeType | None:
    try:
        code = marshal.loads(stored)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


_ENTRY_TYPES = (str, str, int, int, int, bool, bytes)
# (source path, directory it was found in, that directory's and the source's modification
# times in ns, the source's size, whether it is a package, its code in marshal form)
Entry = tuple[str, str, int, int, int, bool, bytes]


def _is_entry(entry: Any) -> TypeGuard[Entry]:
    return (type(entry) is tuple and len(entry) == len(_ENTRY_TYPES)
            and all(type(field) is kind for field, kind in zip(entry, _ENTRY_TYPES)))


def _is_table(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(name, str) for name in value)
