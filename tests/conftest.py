"""Shared pytest configuration: the ``--regen-golden`` flag of the golden playthrough tests, a
private temporary directory per session and a private owner key per test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from tiers import slow_as_a_whole, slow_reason

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
    "xdist",
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


_REPO = Path(__file__).resolve().parent.parent
_RERUN = "ARENA_TESTS_RERUN"  # set in the environment of a session started by _rerun_in_venv


def _rerun_in_venv(config: pytest.Config, missing: list[str]) -> None:
    """Run this same pytest command in the project's environment, as ``make check`` would.

    An interpreter without the test extra (a bare ``pytest`` on a fresh clone, say) cannot
    import what the suite needs. The project's environment is the active virtualenv or
    ``./.venv``: it is set up with ``make setup-test`` when it lacks the extra (the Makefile
    target ``make check`` uses; as root on Debian it also installs the system packages), then
    the process becomes ``<venv>/bin/python -m pytest`` with the same arguments. Refuses in one
    line when that cannot be done (no ``make``, a failed setup, ``ARENA_NO_SETUP=1``, or the
    environment still lacking modules after its setup).
    """
    venv = Path(os.environ.get("VIRTUAL_ENV") or _REPO / ".venv")
    python = venv / "bin" / "python"
    hint = "run the tests with `make check`, or `pip install -e '.[test]'` first"
    refuse = f"{sys.executable} lacks {', '.join(missing)}: "
    if os.environ.get(_RERUN) or os.environ.get("ARENA_NO_SETUP"):
        raise pytest.UsageError(refuse + hint)
    if shutil.which("make") is None:
        raise pytest.UsageError(refuse + "`make` is not installed to set up ./.venv; " + hint)
    print(f"{refuse}setting up {venv} (make setup-test) and running there", file=sys.stderr)
    setup = subprocess.run(
        ["make", "--no-print-directory", "-C", str(_REPO), "setup-test"],
        stdout=sys.stderr,
        stderr=subprocess.PIPE,
    )
    if setup.returncode != 0 or not python.exists():
        last = (setup.stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1]
        raise pytest.UsageError(f"{refuse}`make setup-test` failed ({last}); {hint}")
    os.environ[_RERUN] = "1"
    os.chdir(config.invocation_params.dir)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(python, [str(python), "-m", "pytest", *config.invocation_params.args])


def pytest_configure(config: pytest.Config) -> None:
    """Run in the project's environment when this interpreter lacks the test extra
    (:func:`_rerun_in_venv`), then give the session (and every process it starts) a temporary
    directory of its own.

    Tournament workers claim a CPU each through lock files in the temporary directory, so that
    two runs on one machine never pin two workers to one CPU. A tournament running on the same
    machine as the suite would then hold the CPUs the tests expect to claim: with a private
    directory the tests' claims are their own (and they never disturb that tournament's).
    """
    missing = _missing_modules()
    if missing:
        _rerun_in_venv(config, missing)
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


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (``--dist loadgroup``)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow tests named in tests/tiers.py (the fast tier, ``make test-fast``, is
    ``-m "not slow"``), and keep the tests that share a fixture on one worker
    (:func:`shared_group`)."""
    for item in items:
        reason = slow_reason(item)
        if reason is not None:
            item.add_marker(pytest.mark.slow(reason=reason))
        group = shared_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    if _on_parallel_workers(config):
        items[:] = slow_first(items)


def _on_parallel_workers(config: pytest.Config) -> bool:
    """Whether this run hands its tests to pytest-xdist workers (this is one of them, or the
    process that starts them)."""
    return hasattr(config, "workerinput") or bool(getattr(config.option, "numprocesses", None))


def slow_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with the slow tests that share nothing ahead of the fast ones (each part in
    its order), for parallel workers.

    pytest-xdist (``--dist loadgroup``) hands out the groups first, most tests first, then the
    other tests one by one in this order, each to the first worker that runs low. The last
    tests handed out decide how long the run's tail is while the other workers sit idle: with
    the slow ones first, the tail is made of the fast ones. A group keeps its place (its tests
    run together on one worker whatever their order), and so does everything in a run in one
    process, where a file's tests stay together (a module-scoped fixture is made once).
    """

    def grouped(item: pytest.Item) -> bool:
        return item.get_closest_marker("xdist_group") is not None

    slow = [i for i in items if not grouped(i) and i.get_closest_marker("slow") is not None]
    chosen = {id(i) for i in slow}
    return slow + [i for i in items if id(i) not in chosen]


def shared_group(item: pytest.Item) -> str | None:
    """The tests ``item`` must run beside, on one worker, to share a fixture made once: its
    file when it uses a module- or class-scoped fixture (a tournament played once for the
    file) or a session-scoped one defined in the file; its folder when it uses a
    session-scoped fixture of that folder's conftest.py (tests/browser/: one site, one
    server, one Chromium); None when it shares nothing (pytest's own fixtures, this file's).

    ``make test`` runs the tests on parallel workers (pytest-xdist, ``--dist loadgroup``), each
    test going to whichever worker is free, except that the tests of one group go to one
    worker, which makes their shared fixtures once, as a run in one process would.
    """
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    file = item.nodeid.split("::")[0]
    group = None
    for defs in info.name2fixturedefs.values():
        if not defs or defs[-1].scope == "function":
            continue
        fixture = defs[-1]
        where = fixture.baseid.split("::")[0]
        if fixture.scope in ("module", "class"):
            group = group or file
        elif where not in ("", "tests"):  # session or package: defined in a file or folder
            return where
    return group


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under exactly ``-m "not slow"`` (the fast tier) the files slow as a whole are not even
    imported: every test in them would be deselected, and importing them (Dask, Selenium, ...)
    and rewriting their asserts is seconds of the tier's time."""
    if config.getoption("markexpr", "") == "not slow" and slow_as_a_whole(collection_path.name):
        return True
    return None


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
