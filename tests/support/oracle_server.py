"""JSON-lines RPC server in front of the real Hermes Agent 0.19.0 runtime.

Run ONLY by the oracle venv's interpreter, isolated (``.oracle/bin/python -I
oracle_server.py``), so it imports the runtime's top-level ``tools`` / ``agent`` packages
and never soulscan or the dev venv. The test process (:mod:`tests.support.oracle`) writes
one JSON request per line to stdin and reads one JSON response per line from stdout:

    request   {"op": "<name>", ...arguments}     or  {"batch": [request, ...]}
    response  {"ok": true, "value": ...}          or  {"ok": false, "error": {"type", "message"}}
              (a batch answers {"batch": [response, ...]})

Every request that touches the runtime's home carries ``hermes_home`` (and ``home``, the
user home used for ``~``): the runtime reads ``HERMES_HOME`` from ``os.environ`` on every
call (``hermes_constants.get_hermes_home``), so it is set per request, and the config
caches keyed on the config path (``hermes_cli.config``) plus the memo of homes already
seeded are cleared, so each request behaves like a fresh process. Truncation warnings live
in a ContextVar, so every request runs in a fresh ``contextvars`` context and drains them.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The runtime logs warnings and may print; the protocol owns the real stdout.
_PROTOCOL_OUT = sys.stdout
sys.stdout = sys.stderr
logging.disable(logging.CRITICAL)
# Never pick up a machine-wide managed scope (/etc/hermes) or managed mode.
os.environ["HERMES_MANAGED_DIR"] = str(Path(os.devnull) / "no-managed-scope")
os.environ.pop("HERMES_MANAGED", None)

from agent import file_safety
from agent import prompt_builder as pb
from agent.subdirectory_hints import SubdirectoryHintTracker
from hermes_cli import config as hermes_config
from tools import (
    memory_tool,
    threat_patterns,
)

_CACHES = ("_LOAD_CONFIG_CACHE", "_RAW_CONFIG_CACHE", "_LAST_EXPANDED_CONFIG_BY_PATH",
           "_HERMES_HOME_ENSURED", "_CONFIG_PARSE_WARNED")  # fmt: skip


def _enter_home(request: dict[str, Any]) -> None:
    if request.get("hermes_home"):
        os.environ["HERMES_HOME"] = request["hermes_home"]
    if request.get("home"):
        os.environ["HOME"] = request["home"]
    for name in _CACHES:
        cache = getattr(hermes_config, name, None)
        if cache is not None:
            cache.clear()


def _warned(call: Callable[[], Any]) -> tuple[Any, list[str]]:
    pb.drain_truncation_warnings()
    value = call()
    return value, list(pb.drain_truncation_warnings())


# --------------------------------------------------------------------------- scanner


def op_scan_for_threats(r: dict[str, Any]) -> Any:
    return threat_patterns.scan_for_threats(r["text"], r["scope"])


def op_scan_many(r: dict[str, Any]) -> Any:
    """Many texts x scopes in one request: ``[[ids or {"error"}] per scope] per text``."""
    out = []
    for text in r["texts"]:
        row = []
        for scope in r["scopes"]:
            try:
                row.append(threat_patterns.scan_for_threats(text, scope))
            except Exception as exc:  # noqa: BLE001 - reported as data
                row.append({"error": type(exc).__name__, "message": str(exc)})
        out.append(row)
    return out


def op_first_threat_message(r: dict[str, Any]) -> Any:
    return threat_patterns.first_threat_message(r["text"], r.get("scope", "strict"))


def op_scan_context_content(r: dict[str, Any]) -> Any:
    return pb._scan_context_content(r["text"], r["filename"])


def op_strip_yaml_frontmatter(r: dict[str, Any]) -> Any:
    return pb._strip_yaml_frontmatter(r["text"])


# --------------------------------------------------------------------------- loaders


def op_max_chars(r: dict[str, Any]) -> Any:
    return pb._get_context_file_max_chars(r.get("context_length"))


def op_truncate_content(r: dict[str, Any]) -> Any:
    output, warnings = _warned(
        lambda: pb._truncate_content(
            r["text"], r["label"], max_chars=r.get("max_chars"),
            context_length=r.get("context_length"), read_path=r.get("read_path"),
        )
    )  # fmt: skip
    return {"output": output, "warnings": warnings}


def op_load_soul_md(r: dict[str, Any]) -> Any:
    result, warnings = _warned(lambda: pb.load_soul_md(r.get("context_length")))
    return {"result": result, "warnings": warnings}


def op_build_context_files_prompt(r: dict[str, Any]) -> Any:
    prompt, warnings = _warned(
        lambda: pb.build_context_files_prompt(
            r["cwd"], skip_soul=r.get("skip_soul", False), context_length=r.get("context_length")
        )
    )
    return {"prompt": prompt, "warnings": warnings}


def op_subdir_hints(r: dict[str, Any]) -> Any:
    tracker = SubdirectoryHintTracker(working_dir=r["working_dir"])
    return [tracker.check_tool_call(call["tool"], call["args"]) for call in r["calls"]]


# --------------------------------------------------------------------------- memory


def op_memory_session(r: dict[str, Any]) -> Any:
    """A store with ``limits``, ``load_from_disk()``, then each op (see the README table)."""
    limits = r.get("limits") or {}
    store = memory_tool.MemoryStore(
        memory_char_limit=limits.get("memory", 2200), user_char_limit=limits.get("user", 1375)
    )
    load_error = None
    try:
        store.load_from_disk()
    except Exception as exc:  # noqa: BLE001 - the runtime's own failure is the answer
        load_error = {"type": type(exc).__name__, "message": str(exc)}
    results = [_memory_op(store, op) for op in r.get("ops", [])]
    return {
        "results": results,
        "load_error": load_error,
        "live": {"memory": list(store.memory_entries), "user": list(store.user_entries)},
        "snapshot": {t: store.format_for_system_prompt(t) for t in ("memory", "user")},
    }


def _memory_op(store: Any, op: dict[str, Any]) -> Any:
    call = op["call"]
    if call == "add":
        return store.add(op["target"], op["content"])
    if call == "replace":
        return store.replace(op["target"], op["old_text"], op["content"])
    if call == "remove":
        return store.remove(op["target"], op["old_text"])
    if call == "batch":
        return store.apply_batch(op["target"], op["operations"])
    if call == "tool":
        return json.loads(memory_tool.memory_tool(store=store, **op["args"]))
    if call == "load":
        store.load_from_disk()
        return None
    if call == "reset_failures":
        store.reset_consolidation_failures()
        return None
    raise ValueError(f"unknown memory call {call!r}")


# --------------------------------------------------------------------------- file safety


def op_container_mirror(r: dict[str, Any]) -> Any:
    args = (r["path"], r.get("mirror_prefix"))
    return {
        "result": file_safety.classify_container_mirror_target(*args),
        "warning": file_safety.get_container_mirror_warning(*args),
    }


def op_sandbox_mirror(r: dict[str, Any]) -> Any:
    return {
        "result": file_safety.classify_sandbox_mirror_target(r["path"]),
        "warning": file_safety.get_sandbox_mirror_warning(r["path"]),
    }


def op_write_denied(r: dict[str, Any]) -> Any:
    return {
        "denied": file_safety.is_write_denied(r["path"]),
        "error": file_safety.get_write_denied_error(r["path"]),
    }


def op_read_blocked(r: dict[str, Any]) -> Any:
    return {"error": file_safety.get_read_block_error(r["path"])}


# --------------------------------------------------------------------------- memory differential
# (issue 3: tests/test_differential_memory.py; kept apart from the conformance ops above)


def _memory_file_state(memories: Path) -> dict[str, Any]:
    """Both memory files as base64 bytes (None when absent) and the backup names present."""
    import base64

    files = {}
    for name in ("MEMORY.md", "USER.md"):
        path = memories / name
        files[name] = base64.b64encode(path.read_bytes()).decode("ascii") if path.is_file() else None
    backups = sorted(p.name for p in memories.glob("*.bak.*")) if memories.is_dir() else []
    return {"files": files, "backups": backups}


def op_memory_trace(r: dict[str, Any]) -> Any:
    """Run ``steps`` on one store and record, after each step, everything observable.

    A step is a ``_memory_op`` op, or ``{"call": "write_file", "name", "b64"}`` (an outside
    writer replacing a memory file's bytes). Each record holds the result (or the exception
    type and message the runtime raised), the live lists, the snapshot and the file state.
    With ``clock`` (unix seconds) the tool's clock stands still for the whole sequence.
    """
    if "clock" not in r:
        return _memory_trace(r)
    import types

    # Drift backups are named by int(time.time()): two in one sequence share a name only
    # when they fall in the same second. A fixed clock makes that collision certain.
    real_time = memory_tool.time
    memory_tool.time = types.SimpleNamespace(time=lambda: float(r["clock"]))
    try:
        return _memory_trace(r)
    finally:
        memory_tool.time = real_time


def _memory_trace(r: dict[str, Any]) -> Any:
    import base64

    limits = r.get("limits") or {}
    store = memory_tool.MemoryStore(
        memory_char_limit=limits.get("memory", 2200), user_char_limit=limits.get("user", 1375)
    )
    memories = Path(r["hermes_home"]) / "memories"
    trace = []
    for step in [{"call": "load"}, *r["steps"]]:
        try:
            if step["call"] == "write_file":
                memories.mkdir(parents=True, exist_ok=True)
                (memories / step["name"]).write_bytes(base64.b64decode(step["b64"]))
                outcome: Any = None
            else:
                outcome = _memory_op(store, step)
        except Exception as exc:  # noqa: BLE001 - the runtime's failure is the observation
            outcome = {"raised": type(exc).__name__, "message": str(exc)}
        trace.append({
            "result": outcome,
            "live": {"memory": list(store.memory_entries), "user": list(store.user_entries)},
            "snapshot": {t: store.format_for_system_prompt(t) for t in ("memory", "user")},
            **_memory_file_state(memories),
        })  # fmt: skip
    return trace


def op_file_safety_probe(r: dict[str, Any]) -> Any:
    """Every file-safety verdict for each of ``paths`` under this HERMES_HOME / HOME."""
    out = []
    for path in r["paths"]:
        out.append({
            "cross_profile": file_safety.classify_cross_profile_target(path),
            "cross_profile_warning": file_safety.get_cross_profile_warning(path),
            "sandbox": file_safety.classify_sandbox_mirror_target(path),
            "container": file_safety.classify_container_mirror_target(path, r.get("mirror_prefix")),
            "write_denied": file_safety.get_write_denied_error(path),
            "read_blocked": file_safety.get_read_block_error(path),
        })  # fmt: skip
    return out


def op_prompt_parts(r: dict[str, Any]) -> Any:
    """``build_system_prompt_parts`` for a tool-less CLI agent, as the prompt cases run it.

    Environment hints and the subscription block are stubbed to "" and the date is fixed
    (``date``: ISO), through a stand-in ``run_agent`` module that is removed afterwards.
    """
    import datetime
    import types

    import hermes_time
    from agent import system_prompt

    stub = types.ModuleType("run_agent")
    stub.load_soul_md = pb.load_soul_md
    stub.build_context_files_prompt = pb.build_context_files_prompt
    stub.build_environment_hints = lambda: ""
    stub.build_nous_subscription_prompt = lambda names: ""
    flags = r.get("agent") or {}
    store = None
    if flags.get("memory_enabled", True) or flags.get("user_profile_enabled", True):
        store = memory_tool.MemoryStore(
            memory_char_limit=flags.get("memory_char_limit", 2200),
            user_char_limit=flags.get("user_char_limit", 1375),
        )
        try:
            store.load_from_disk()
        except Exception:  # noqa: BLE001, S110 - the agent swallows this too
            pass

    class Agent:
        load_soul_identity = flags.get("load_soul_identity", False)
        skip_context_files = flags.get("skip_context_files", False)
        valid_tool_names: tuple[str, ...] = ()
        model = flags.get("model", "")
        provider = flags.get("provider", "")
        platform = "cli"
        session_id = None
        pass_session_id = False
        context_compressor = types.SimpleNamespace(context_length=flags.get("context_length"))
        _memory_store = store
        _memory_enabled = flags.get("memory_enabled", True)
        _user_profile_enabled = flags.get("user_profile_enabled", True)
        _memory_manager = None
        _environment_probe = False
        _tool_use_enforcement = "auto"

    fixed = datetime.datetime.fromisoformat(r["date"])
    saved = sys.modules.get("run_agent"), hermes_time.now, os.environ.get("TERMINAL_CWD")
    sys.modules["run_agent"] = stub
    hermes_time.now = lambda: fixed
    os.environ["TERMINAL_CWD"] = r["cwd"]
    try:
        parts, warnings = _warned(lambda: system_prompt.build_system_prompt_parts(
            Agent(), system_message=r.get("system_message")))  # fmt: skip
    finally:
        if saved[0] is None:
            sys.modules.pop("run_agent", None)
        else:
            sys.modules["run_agent"] = saved[0]
        hermes_time.now = saved[1]
        if saved[2] is None:
            os.environ.pop("TERMINAL_CWD", None)
        else:
            os.environ["TERMINAL_CWD"] = saved[2]
    return {**parts, "warnings": warnings}


def op_legacy_soul_templates(r: dict[str, Any]) -> Any:
    """The comment-only SOUL.md scaffolds the runtime upgrades in place (test data only)."""
    from hermes_cli import default_soul

    return list(default_soul._LEGACY_TEMPLATE_SOULS)


def op_ping(r: dict[str, Any]) -> Any:
    from importlib.metadata import version

    return {"hermes_agent": version("hermes-agent"), "hash_seed": os.environ.get("PYTHONHASHSEED")}


OPS: dict[str, Callable[[dict[str, Any]], Any]] = {
    name[3:]: func for name, func in globals().items() if name.startswith("op_")
}


def handle(request: dict[str, Any]) -> dict[str, Any]:
    if "batch" in request:
        return {"batch": [handle(item) for item in request["batch"]]}
    try:
        op = OPS[request["op"]]
        _enter_home(request)
        value = contextvars.copy_context().run(op, request)
        return {"ok": True, "value": value}
    except Exception as exc:  # noqa: BLE001 - every runtime error is data for the client
        return {"ok": False, "error": {"type": type(exc).__name__, "message": str(exc)}}


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        response = handle(json.loads(line))
        _PROTOCOL_OUT.write(json.dumps(response, ensure_ascii=True) + "\n")
        _PROTOCOL_OUT.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
