"""Pytest fixtures for oracle-backed tests; import the ones you use into your test module:

    from support.fixtures import oracle, oracle_runtime  # noqa: F401  (pytest fixtures)

``oracle`` is one server for the whole session. When the oracle venv cannot be built (no
network, no Python venv module) the tests using it FAIL under ``CI`` (any non-empty value
but ``false``/``0``) and are skipped with the reason elsewhere.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

import pytest

from support.oracle import Oracle, OracleUnavailable
from support.runtimes import OracleRuntime
from support.spec import conformance_path, shared_dir


def running_in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason: str) -> None:
    """Fail in CI, skip elsewhere: an oracle test must never silently pass or vanish in CI."""
    if running_in_ci():
        pytest.fail(f"oracle unavailable in CI: {reason}", pytrace=False)
    pytest.skip(f"oracle unavailable: {reason}")


def require_shared() -> None:
    """Skip (never fail) when the shared material beside the checkout is absent."""
    if not conformance_path().is_file():
        pytest.skip(f"shared conformance material not found under {shared_dir()}")


_ORACLE = pytest.StashKey[dict[str, Any]]()


@pytest.fixture(scope="session")
def oracle(request: pytest.FixtureRequest) -> Oracle:
    """One server for the whole run, however many modules import this fixture.

    (Each importing module gets its own session-scoped fixture, so the server and a
    failure to build it are kept in the run's config instead.)
    """
    config = request.config
    state = config.stash.setdefault(_ORACLE, {})
    if not state:
        stack = contextlib.ExitStack()
        try:
            state["server"] = stack.enter_context(Oracle.start())
        except OracleUnavailable as exc:
            state["error"] = str(exc)
        config.add_cleanup(stack.close)
    if "error" in state:
        unavailable(state["error"])
    return state["server"]  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def oracle_runtime(oracle: Oracle) -> OracleRuntime:
    return OracleRuntime(oracle)
