"""The methods ``dataclasses`` writes for each class, and the expressions ``typing`` and
``collections.namedtuple`` compile for each named tuple, compiled once per machine.

soulscan's value types are frozen dataclasses. On CPython 3.11 ``@dataclass`` writes the
source of every generated method (``__init__``, ``__eq__``, ``__hash__``, ``__repr__``, the
frozen ``__setattr__``/``__delattr__``) and compiles each with its own ``exec``: for the
classes one ``soulscan scan`` imports, that compiling is a tenth of the start-up. The
source text fully determines the code object, so compiled code is kept on disk like a
``.pyc`` (one record, ``soulscan.engine.cache``, keyed by the interpreter) and ``exec`` is
handed the code instead of the text.

Only ``dataclasses``' own ``exec`` is routed here (a name in that module's globals); what
the methods do is unchanged. A missing or damaged record just means compiling as before.

Each ``typing.NamedTuple`` field's annotation (a string under ``from __future__ import
annotations``) is compiled by ``typing.ForwardRef``, and each named tuple's ``__new__`` by
``namedtuple``'s ``eval`` of a lambda's text: ~110 small compiles, ~2 ms of a one-file
scan. ``install_for_program`` routes those two (``compile`` and ``eval`` in the globals of
``typing`` and ``collections``) through a second record, for the program only.
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


class _CompiledExpressions:
    """``compile`` for ``typing`` and ``eval`` for ``collections``: the code of each
    expression text (``eval`` mode, ``<string>``) read from a record, compiled on a miss.

    Both modules have no ``__future__`` imports, so their own calls compile with no
    inherited flags: ``dont_inherit`` does the same here. Any other call (another mode or
    file name, flags, code objects) goes to the builtin as it came."""

    def __init__(self) -> None:
        name = f"expressions-{cache.environment_key(f'expression-cache {FORMAT}')}.bin"
        self.table = cache.StoredTable(name, MAX_ENTRIES, _is_code_table)

    def code(self, source: str) -> types.CodeType:
        """The code of the expression ``source``, as ``compile(source, "<string>", "eval")``
        called from a module without ``__future__`` imports gives it."""
        code = _code_of(self.table.known.get(source) or self.table.new.get(source))
        if code is None:
            code = compile(source, "<string>", "eval", dont_inherit=True)
            self.table.new[source] = marshal.dumps(code)
        return code

    def compile(self, source: Any, filename: Any, mode: Any, flags: int = 0,
                dont_inherit: bool = False, optimize: int = -1) -> Any:
        if (type(source) is str and filename == "<string>" and mode == "eval" and flags == 0
                and optimize == -1):
            return self.code(source)
        # typing's own flags are none: inheriting them or not is the same
        return builtins.compile(source, filename, mode, flags, True, optimize)

    def eval(self, source: Any, *namespaces: Any) -> Any:
        if type(source) is str:
            return builtins.eval(self.code(source), *namespaces)
        return builtins.eval(source, *namespaces)


def install_for_program() -> None:
    """Route ``typing.ForwardRef``'s ``compile`` and ``namedtuple``'s ``eval`` through the
    expression record: for the program only (a caller's process keeps both modules as they
    are), on CPython before 3.13 like the dataclass methods (a later release may compile
    these texts otherwise)."""
    import collections
    import typing

    if sys.version_info >= (3, 13) or not cache.in_use():
        return
    if isinstance(getattr(vars(typing).get("compile"), "__self__", None), _CompiledExpressions):
        return
    expressions = _CompiledExpressions()
    typing.compile = expressions.compile  # type: ignore[attr-defined]
    collections.eval = expressions.eval  # type: ignore[attr-defined]


def install() -> None:
    """Route ``dataclasses``' ``exec`` through the compiled-method cache (CPython 3.11-3.12:
    later releases build each class's methods in one ``exec``, a different text)."""
    if sys.version_info >= (3, 13) or isinstance(vars(dataclasses).get("exec"), _CompiledMethods):
        return
    dataclasses.exec = _CompiledMethods()  # type: ignore[attr-defined]
