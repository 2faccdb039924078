"""The methods ``dataclasses`` writes for each class, compiled once per machine.

soulscan's value types are frozen dataclasses. On CPython 3.11 ``@dataclass`` writes the
source of every generated method (``__init__``, ``__eq__``, ``__hash__``, ``__repr__``, the
frozen ``__setattr__``/``__delattr__``) and compiles each with its own ``exec``: for the
classes one ``soulscan scan`` imports, that compiling is a tenth of the start-up. The
source text fully determines the code object, so compiled code is kept on disk like a
``.pyc`` (one record, ``soulscan.engine.cache``, keyed by the interpreter) and ``exec`` is
handed the code instead of the text.

Only ``dataclasses``' own ``exec`` is routed here (a name in that module's globals); what
the methods do is unchanged. A missing or damaged record just means compiling as before.
"""

from __future__ import annotations

import builtins
import dataclasses
import marshal
import sys
import types
from typing import Any, TypeGuard

from soulscan.engine import cache

FORMAT = 3
# A record bigger than this many methods starts over: stale entries do not pile up.
MAX_ENTRIES = 4096


class _CompiledMethods:
    """``exec`` for ``dataclasses``: a stored code object for each method source seen.

    The record maps each source to its code in ``marshal`` form, unmarshalled when that
    method is built: the record holds every class's methods (those of other commands, of
    older sources), and reading all of them at each start cost more than compiling."""

    def __init__(self) -> None:
        name = f"dataclass-methods-{cache.environment_key(f'code-cache {FORMAT}')}.bin"
        self.table = cache.StoredTable(name, MAX_ENTRIES, _is_code_table)

    @property
    def known(self) -> dict[str, bytes]:
        return self.table.known

    def __call__(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        if not isinstance(source, str):
            builtins.exec(source, globals, locals)  # noqa: S102 - dataclasses' own exec, passed on
            return
        code = _code_of(self.table.known.get(source) or self.table.new.get(source))
        if code is None:
            # dataclasses has no __future__ imports: compile as its own exec would.
            code = compile(source, "<string>", "exec", dont_inherit=True)
            if _is_soulscans(globals):  # a host process's own classes are not kept
                self.table.new[source] = marshal.dumps(code)
        builtins.exec(code, globals, locals)  # noqa: S102 - the code dataclasses wrote


def _code_of(stored: bytes | None) -> types.CodeType | None:
    """The code object ``stored`` holds; None for none, or for bytes that are not one."""
    if stored is None:
        return None
    try:
        code = marshal.loads(stored)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def _is_soulscans(module_globals: Any) -> bool:
    """Whether ``dataclasses`` is building a class of soulscan (it passes the class's module
    namespace as the globals of the methods it writes)."""
    name = module_globals.get("__name__") if isinstance(module_globals, dict) else None
    return isinstance(name, str) and (name == "soulscan" or name.startswith("soulscan."))


def _is_code_table(value: Any) -> TypeGuard[dict[str, bytes]]:
    return isinstance(value, dict) and all(
        isinstance(source, str) and isinstance(code, bytes) for source, code in value.items())


def install() -> None:
    """Route ``dataclasses``' ``exec`` through the compiled-method cache (CPython 3.11-3.12:
    later releases build each class's methods in one ``exec``, a different text)."""
    if sys.version_info >= (3, 13) or isinstance(vars(dataclasses).get("exec"), _CompiledMethods):
        return
    dataclasses.exec = _CompiledMethods()  # type: ignore[attr-defined]
