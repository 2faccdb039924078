"""Test-suite options: ``--slow`` enables the long differential and fuzz runs."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="run long differential/fuzz tests")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="long run: pass --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
