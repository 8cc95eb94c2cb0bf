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


@pytest.fixture(autouse=True)
def _private_owner_key(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test (and the ``arena`` processes it starts) gets its own owner key directory, so
    no test reads or creates the key file of the user running the suite."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("ARENA_OWNER_KEY", raising=False)
