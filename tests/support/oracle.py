"""Client for the real Hermes Agent 0.19.0 runtime (the *oracle*).

The runtime lives in its own venv, ``<repo>/.oracle`` (built by ``scripts/ensure-oracle``),
and is only ever reached through a subprocess running :mod:`tests.support.oracle_server`
under ``.oracle/bin/python -I``, so neither soulscan nor the dev venv can see its modules.

    with Oracle.start() as oracle:
        oracle.call("scan_for_threats", text="ignore previous instructions", scope="all")
        oracle.batch([{"op": "scan_for_threats", ...}, ...])   # one round trip

``call`` returns the value or raises :class:`OracleCallError` carrying the runtime's
exception type and message; ``batch`` returns raw responses (``{"ok", "value"|"error"}``).
If the venv cannot be built, :func:`oracle_unavailable_reason` says why; the pytest fixture
(:mod:`tests.support.fixtures`) turns that into a failure in CI and a skip elsewhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

REPO_ROOT = Path(__file__).resolve().parents[2]
ORACLE_VENV = REPO_ROOT / ".oracle"
ORACLE_PYTHON = ORACLE_VENV / "bin" / "python"
ENSURE_SCRIPT = REPO_ROOT / "scripts" / "ensure-oracle"
SERVER = Path(__file__).resolve().with_name("oracle_server.py")
HERMES_VERSION = "0.19.0"


class OracleUnavailable(RuntimeError):
    """The oracle venv is missing and could not be built."""


class OracleCallError(Exception):
    """The runtime raised; ``type`` and ``message`` are its exception's."""

    def __init__(self, op: str, type_name: str, message: str) -> None:
        super().__init__(f"oracle {op}: {type_name}: {message}")
        self.op = op
        self.type = type_name
        self.message = message


def ensure_oracle(timeout: float = 600) -> None:
    """Build ``.oracle`` via ``scripts/ensure-oracle`` (fast no-op when it is healthy)."""
    try:
        proc = subprocess.run(
            [str(ENSURE_SCRIPT)], capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OracleUnavailable(f"scripts/ensure-oracle could not run: {exc}") from exc
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise OracleUnavailable(
            f"scripts/ensure-oracle failed (exit {proc.returncode}): " + " | ".join(tail)
        )


class Oracle:
    """A running oracle server; use :meth:`start` as a context manager."""

    def __init__(self, proc: subprocess.Popen[str], errors: IO[str]) -> None:
        self._proc = proc
        self._errors = errors
        self.calls = 0

    @classmethod
    @contextmanager
    def start(cls, *, build: bool = True) -> Iterator[Oracle]:
        if build:
            ensure_oracle()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONHASHSEED": "0",  # set-iteration order of invisible findings is reproducible
            "PYTHONIOENCODING": "utf-8",
            "LANG": "C.UTF-8",
            "HOME": os.environ.get("HOME", "/root"),
        }
        # The runtime's own stderr chatter goes to a file, read back only to explain a crash.
        errors = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 (closed in close())
        proc = subprocess.Popen(
            [str(ORACLE_PYTHON), "-I", str(SERVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            encoding="utf-8",
            env=env,
            cwd=str(ORACLE_VENV),
        )
        oracle = cls(proc, errors)
        try:
            version = oracle.call("ping")["hermes_agent"]
            if version != HERMES_VERSION:
                raise OracleUnavailable(f"oracle runs hermes-agent {version}, not {HERMES_VERSION}")
            yield oracle
        finally:
            oracle.close()

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._errors.close()

    def _round_trip(self, request: dict[str, Any]) -> Any:
        stdin: IO[str] | None = self._proc.stdin
        stdout: IO[str] | None = self._proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(request, ensure_ascii=True) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            self._proc.wait()
            self._errors.seek(0)
            tail = " | ".join(self._errors.read().strip().splitlines()[-3:])
            raise OracleUnavailable(f"oracle server exited (code {self._proc.returncode}): {tail}")
        return json.loads(line)

    def call(self, op: str, **args: Any) -> Any:
        """One runtime call; its value, or :class:`OracleCallError` if the runtime raised."""
        self.calls += 1
        return _unwrap(op, self._round_trip({"op": op, **args}))

    def batch(self, requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Many calls in one round trip; raw ``{"ok", "value"|"error"}`` responses in order."""
        self.calls += len(requests)
        return list(self._round_trip({"batch": list(requests)})["batch"])

    def batch_values(self, requests: Sequence[dict[str, Any]]) -> list[Any]:
        """Like :meth:`batch`, raising on the first runtime error."""
        return [_unwrap(r["op"], resp) for r, resp in zip(requests, self.batch(requests))]


def _unwrap(op: str, response: dict[str, Any]) -> Any:
    if response["ok"]:
        return response["value"]
    error = response["error"]
    raise OracleCallError(op, error["type"], error["message"])
