"""Shared pytest configuration: the ``--regen-golden`` flag of the golden playthrough tests."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register ``--regen-golden``: rewrite tests/golden/*.txt instead of diffing against them."""
    parser.addoption(
        "--regen-golden",
        action="store_true",
        default=False,
        help="rewrite the golden playthrough files under tests/golden/ from the current engine",
    )


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to rewrite the golden files."""
    return bool(request.config.getoption("--regen-golden"))
