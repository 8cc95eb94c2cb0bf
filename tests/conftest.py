"""Shared pytest configuration: the ``--regen-golden`` flag of the golden playthrough tests, a
private temporary directory per session and a private owner key per test."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

_SESSION_TMP: str | None = None


# What the suite imports beyond the standard library: the package's dependencies and its
# `test` extra (pyproject.toml), by import name.
_NEEDED = (
    "arena",
    "click",
    "multiprocessing_logging",
    "sqlite_utils",
    "jinja2",
    "orjson",
    "rich",
    "numpy",
    "scipy",
    "hypothesis",
    "bs4",
    "selenium",
    "choix",
    "distributed",
    "mkdocs",
)


def _missing_modules() -> list[str]:
    """The modules of :data:`_NEEDED` this interpreter cannot find."""
    import importlib.util

    return [name for name in _NEEDED if importlib.util.find_spec(name) is None]


def pytest_configure(config: pytest.Config) -> None:
    """Refuse in one line when the test extra is not installed in this interpreter, then give
    the session (and every process it starts) a temporary directory of its own.

    Tournament workers claim a CPU each through lock files in the temporary directory, so that
    two runs on one machine never pin two workers to one CPU. A tournament running on the same
    machine as the suite would then hold the CPUs the tests expect to claim: with a private
    directory the tests' claims are their own (and they never disturb that tournament's).
    """
    missing = _missing_modules()
    if missing:
        raise pytest.UsageError(
            f"{sys.executable} lacks {', '.join(missing)}: run the tests with `make check`, or "
            "install the package with its test extra first (`pip install -e '.[test]'`)"
        )
    global _SESSION_TMP
    if _SESSION_TMP is None and not hasattr(config, "workerinput"):
        _SESSION_TMP = tempfile.mkdtemp(prefix="arena-tests-")
        # Traversable by everyone, like /tmp: sandboxed bots run under uids of their own and
        # must reach the files the arena stages for them in here.
        os.chmod(_SESSION_TMP, 0o755)
        os.environ["TMPDIR"] = _SESSION_TMP
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's temporary directory."""
    if _SESSION_TMP is not None:
        shutil.rmtree(_SESSION_TMP, ignore_errors=True)


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
