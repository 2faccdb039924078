"""Two interchangeable implementations of the Hermes entry points under test.

:class:`SoulscanRuntime` calls ``soulscan.hermes``; :class:`OracleRuntime` calls the real
Hermes 0.19.0 through :class:`tests.support.oracle.Oracle`. Both expose the same methods
with the soulscan signatures (explicit ``hermes_home``, ``(text, warnings)`` tuples), and
both raise :class:`CallError` when the implementation raises, so a conformance case or a
differential input is replayed by one piece of code against either side.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from support.oracle import Oracle, OracleCallError

# Where the soulscan entry points may live: the package first, then its modules.
_SOULSCAN_MODULES = (
    "soulscan.hermes",
    "soulscan.hermes.scanner",
    "soulscan.hermes.frontmatter",
    "soulscan.hermes.truncation",
    "soulscan.hermes.soul",
    "soulscan.hermes.context",
    "soulscan.hermes.hints",
)


class CallError(Exception):
    """The implementation raised: ``type`` is ``"ValueError"`` for any ValueError subclass."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(f"{type_name}: {message}")
        self.type = type_name
        self.message = message


def soulscan_entry(name: str) -> Callable[..., Any]:
    """A ``soulscan.hermes`` entry point, found in the package or one of its modules."""
    missing: list[str] = []
    for module_name in _SOULSCAN_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            missing.append(module_name)
            continue
        if hasattr(module, name):
            return getattr(module, name)  # type: ignore[no-any-return]
    raise AttributeError(f"soulscan.hermes has no {name!r} (absent modules: {missing})")


def _soulscan_call(name: str, *args: Any, **kwargs: Any) -> Any:
    func = soulscan_entry(name)
    try:
        return func(*args, **kwargs)
    except ValueError as exc:
        raise CallError("ValueError", str(exc)) from exc


class SoulscanRuntime:
    name = "soulscan"

    def scan_for_threats(self, text: str, scope: str) -> list[str]:
        return list(_soulscan_call("scan_for_threats", text, scope))

    def first_threat_message(self, text: str, scope: str) -> str | None:
        return _soulscan_call("first_threat_message", text, scope)  # type: ignore[no-any-return]

    def scan_context_content(self, text: str, filename: str) -> str:
        return _soulscan_call("scan_context_content", text, filename)  # type: ignore[no-any-return]

    def strip_yaml_frontmatter(self, text: str) -> str:
        return _soulscan_call("strip_yaml_frontmatter", text)  # type: ignore[no-any-return]

    def context_file_max_chars(self, *, hermes_home: Path, context_length: Any) -> int:
        return _soulscan_call(  # type: ignore[no-any-return]
            "context_file_max_chars", hermes_home=hermes_home, context_length=context_length
        )

    def truncate_content(self, text: str, label: str, *, hermes_home: Path, max_chars: Any,
                         context_length: Any, read_path: Any) -> tuple[str, list[str]]:  # fmt: skip
        output, warnings = _soulscan_call(
            "truncate_content", text, label, hermes_home=hermes_home, max_chars=max_chars,
            context_length=context_length, read_path=read_path,
        )  # fmt: skip
        return output, list(warnings)

    def load_soul_md(
        self, *, hermes_home: Path, context_length: Any
    ) -> tuple[str | None, list[str]]:
        result, warnings = _soulscan_call(
            "load_soul_md", hermes_home=hermes_home, context_length=context_length
        )
        return result, list(warnings)

    def build_context_files_prompt(self, cwd: Path, *, hermes_home: Path, skip_soul: bool,
                                   context_length: Any) -> tuple[str, list[str]]:  # fmt: skip
        prompt, warnings = _soulscan_call(
            "build_context_files_prompt", cwd, hermes_home=hermes_home, skip_soul=skip_soul,
            context_length=context_length,
        )  # fmt: skip
        return prompt, list(warnings)

    def subdir_hints(self, working_dir: Path, calls: Sequence[dict[str, Any]], *,
                     home: Path | None = None) -> list[str | None]:  # fmt: skip
        tracker = soulscan_entry("SubdirectoryHints")(working_dir)
        return [tracker.check_tool_call(call["tool"], call["args"]) for call in calls]


class OracleRuntime:
    """The same interface over the real runtime; ``home`` is the user home for ``~``."""

    name = "hermes"

    def __init__(self, oracle: Oracle) -> None:
        self.oracle = oracle

    def _call(self, op: str, **args: Any) -> Any:
        args = {k: str(v) if isinstance(v, Path) else v for k, v in args.items()}
        if "hermes_home" in args:
            args.setdefault("home", str(Path(args["hermes_home"]).parent / "home"))
        try:
            return self.oracle.call(op, **args)
        except OracleCallError as exc:
            raise CallError(exc.type, exc.message) from exc

    def scan_for_threats(self, text: str, scope: str) -> list[str]:
        return self._call("scan_for_threats", text=text, scope=scope)  # type: ignore[no-any-return]

    def first_threat_message(self, text: str, scope: str) -> str | None:
        return self._call("first_threat_message", text=text, scope=scope)  # type: ignore[no-any-return]

    def scan_context_content(self, text: str, filename: str) -> str:
        return self._call("scan_context_content", text=text, filename=filename)  # type: ignore[no-any-return]

    def strip_yaml_frontmatter(self, text: str) -> str:
        return self._call("strip_yaml_frontmatter", text=text)  # type: ignore[no-any-return]

    def context_file_max_chars(self, *, hermes_home: Path, context_length: Any) -> int:
        return self._call(  # type: ignore[no-any-return]
            "max_chars", hermes_home=hermes_home, context_length=context_length
        )

    def truncate_content(self, text: str, label: str, *, hermes_home: Path, max_chars: Any,
                         context_length: Any, read_path: Any) -> tuple[str, list[str]]:  # fmt: skip
        value = self._call(
            "truncate_content", text=text, label=label, hermes_home=hermes_home,
            max_chars=max_chars, context_length=context_length, read_path=read_path,
        )  # fmt: skip
        return value["output"], value["warnings"]

    def load_soul_md(
        self, *, hermes_home: Path, context_length: Any
    ) -> tuple[str | None, list[str]]:
        value = self._call("load_soul_md", hermes_home=hermes_home, context_length=context_length)
        return value["result"], value["warnings"]

    def build_context_files_prompt(self, cwd: Path, *, hermes_home: Path, skip_soul: bool,
                                   context_length: Any) -> tuple[str, list[str]]:  # fmt: skip
        value = self._call(
            "build_context_files_prompt", cwd=cwd, hermes_home=hermes_home,
            skip_soul=skip_soul, context_length=context_length,
        )  # fmt: skip
        return value["prompt"], value["warnings"]

    def subdir_hints(self, working_dir: Path, calls: Sequence[dict[str, Any]], *,
                     home: Path | None = None) -> list[str | None]:  # fmt: skip
        extra = {"home": str(home)} if home is not None else {}
        return self._call(  # type: ignore[no-any-return]
            "subdir_hints", working_dir=working_dir, calls=list(calls), **extra
        )
