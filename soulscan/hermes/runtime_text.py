"""Prompt text that belongs to hermes-agent itself, fetched from an installed copy.

The default identity, the Hermes help guidance, the active-profile line and the
CLI platform hint are the runtime's prose, not the user's files, so soulscan
does not ship them. When an interpreter that can import hermes-agent is known
(``hermes_python``, or the one behind a ``hermes`` command on PATH) a short
script runs there and asks the runtime for them; otherwise each block is a
clearly labelled placeholder naming what is missing.

The script builds the stable tier of a tool-less CLI agent whose identity is
the default (no SOUL.md read, no project files read, environment hints and the
subscription block stubbed to ""), then splits it into the named blocks. It
imports only ``agent.*`` modules and a stub ``run_agent``, so nothing is written
into the Hermes home.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from dataclasses import dataclass

RUNTIME_TIMEOUT_SECONDS = 30

IDENTITY = "DEFAULT_AGENT_IDENTITY"
DEFAULT_SOUL = "DEFAULT_SOUL_MD"
HELP_GUIDANCE = "HERMES_AGENT_HELP_GUIDANCE"
PROFILE_LINE = "active-profile line"
CLI_HINT = "PLATFORM_HINTS['cli']"

_SCRIPT = r"""
import json, sys, types
stub = types.ModuleType("run_agent")
stub.build_environment_hints = lambda: ""
stub.build_nous_subscription_prompt = lambda names: ""
sys.modules["run_agent"] = stub
from agent import prompt_builder as pb
from agent import system_prompt as sp
try:
    from hermes_cli.default_soul import DEFAULT_SOUL_MD
except Exception:
    DEFAULT_SOUL_MD = None

class ToollessCliAgent:
    load_soul_identity = False
    skip_context_files = True
    valid_tool_names = []
    model = ""
    provider = ""
    platform = "cli"
    session_id = None
    pass_session_id = False
    context_compressor = None
    _memory_store = None
    _memory_manager = None
    _environment_probe = False
    _tool_use_enforcement = "auto"

stable = sp.build_system_prompt_parts(ToollessCliAgent())["stable"]
identity = pb.DEFAULT_AGENT_IDENTITY.strip()
helps = pb.HERMES_AGENT_HELP_GUIDANCE.strip()
cli = pb.PLATFORM_HINTS.get("cli", "").strip()
head = identity + "\n\n" + helps + "\n\n"
tail = "\n\n" + cli
blocks = {"DEFAULT_AGENT_IDENTITY": identity, "HERMES_AGENT_HELP_GUIDANCE": helps}
if stable.startswith(head) and stable.endswith(tail) and len(stable) > len(head) + len(tail):
    blocks["active-profile line"] = stable[len(head):-len(tail)]
    blocks["PLATFORM_HINTS['cli']"] = cli
if DEFAULT_SOUL_MD is not None:
    blocks["DEFAULT_SOUL_MD"] = DEFAULT_SOUL_MD
try:
    from importlib.metadata import version
    ver = version("hermes-agent")
except Exception:
    ver = "unknown"
json.dump({"version": ver, "blocks": blocks}, sys.stdout)
"""


@dataclass(frozen=True)
class RuntimeText:
    """Runtime-owned blocks by name; ``error`` says why they are missing, if they are."""

    blocks: tuple[tuple[str, str], ...]
    source: str
    version: str
    error: str | None = None

    def get(self, name: str) -> str:
        """The block's text, or a placeholder naming it and the reason it is missing."""
        for key, text in self.blocks:
            if key == name:
                return text
        reason = self.error or "this hermes-agent does not provide it"
        return f"[hermes-agent runtime text: {name} — not available: {reason}]"

    def has(self, name: str) -> bool:
        return any(key == name for key, _ in self.blocks)


def _python_behind_command(command_path: str) -> str | None:
    """The interpreter named in a console script's ``#!`` line, if it is one."""
    try:
        with open(command_path, "rb") as handle:
            first = handle.readline(4096).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    parts = first[2:].split()
    if not parts:
        return None
    if os.path.basename(parts[0]) == "env" and len(parts) > 1:
        return shutil.which(parts[1])
    return parts[0] if "python" in os.path.basename(parts[0]) else None


def find_hermes_python(explicit: str | None = None) -> str | None:
    """``explicit``, else the interpreter of a ``hermes`` command on PATH, else None."""
    if explicit:
        # The probe runs with cwd "/", so a relative path must be made absolute here.
        found = shutil.which(explicit) if os.sep not in explicit else os.path.abspath(explicit)
        return found or explicit
    command = shutil.which("hermes")
    return _python_behind_command(command) if command else None


@functools.lru_cache(maxsize=16)
def _fetch(python: str, hermes_home: str) -> RuntimeText:
    env = {**os.environ, "HERMES_HOME": hermes_home, "PYTHONIOENCODING": "utf-8"}
    try:
        proc = subprocess.run(
            [python, "-c", _SCRIPT],
            capture_output=True,
            env=env,
            timeout=RUNTIME_TIMEOUT_SECONDS,
            cwd=os.path.abspath(os.sep),  # never import modules from a user directory
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return RuntimeText((), python, "", f"could not run {python}: {exc}")
    if proc.returncode != 0:
        last = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
        return RuntimeText((), python, "", f"{python} cannot import hermes-agent ({last})")
    try:
        payload = json.loads(proc.stdout.decode("utf-8"))
        blocks = tuple((str(k), str(v)) for k, v in payload["blocks"].items())
        return RuntimeText(blocks, python, str(payload.get("version", "unknown")))
    except (ValueError, KeyError, AttributeError) as exc:
        return RuntimeText((), python, "", f"unexpected reply from {python}: {exc}")


def fetch_runtime_text(
    hermes_home: str | os.PathLike[str], hermes_python: str | None = None
) -> RuntimeText:
    """The runtime's own prompt blocks for ``hermes_home`` (placeholders if no runtime)."""
    python = find_hermes_python(hermes_python)
    if python is None:
        return RuntimeText(
            (), "", "", "no hermes-agent found (pass --hermes-python or put `hermes` on PATH)"
        )
    # The probe runs with cwd "/": a relative home would name the wrong directory there.
    return _fetch(python, os.path.abspath(hermes_home))
