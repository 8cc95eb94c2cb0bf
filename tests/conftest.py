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


# The fast tier (`make test-fast`: `pytest -m "not slow"`), for the edit-test loop: the game,
# the rules, the solver, the statistics, the store and the site's data, in under 3 minutes on 2
# cores. Marked `slow` here, in one place, with the reason: whole files that run the command
# line, real sandboxes, worker pools, clusters, browsers or simulations, and the single heavy
# tests of otherwise fast files. A test may also carry `@pytest.mark.slow` itself. CI (`make
# check`) runs everything.
_SLOW_FILES: dict[str, str] = {
    "test_cli_doctor.py": "the command line in subprocesses, with live sandboxed matches",
    "test_cli_errors.py": "the command line in subprocesses",
    "test_cli_faults.py": "sandboxed tournaments through the command line",
    "test_cli_hostile.py": "hostile bots in sandboxed tournaments through the command line",
    "test_cli_newcomer.py": "a newcomer's whole session through the command line",
    "test_cli_runlock.py": "two tournaments racing through the command line",
    "test_cli_tournament.py": "sandboxed tournaments through the command line",
    "test_sandbox.py": "real sandboxed bot processes",
    "test_sandbox_attacks.py": "a real sandboxed match per hostile bot",
    "test_sandbox_channels.py": "real sandboxed bots trying channels to each other",
    "test_cluster.py": "a local Dask cluster",
    "test_tournament_run.py": "sandboxed tournaments on worker processes",
    "test_compare.py": "sandboxed comparisons until the sequential test stops",
    "test_secrecy.py": "tournaments and deal verification through the command line",
    "test_secrecy_attack.py": "a sandboxed bot hunting for the deals",
    "test_separation.py": "tournaments played until the bots separate",
    "test_site_install.py": "a non-editable install in a fresh virtualenv",
    "test_site_serve.py": "a real HTTP server",
    "test_rerun_in_venv.py": "pytest rerun in a fresh environment",
    "test_play.py": "arena play in a pseudo-terminal",
    "test_ratings_cli.py": "tournaments through the command line",
    "test_sequential_coverage.py": "simulations of the sequential test's coverage",
    "test_ratings_coverage.py": "simulations of the rating intervals' coverage",
    "test_bench_bid_calibration.py": "benchmark scripts on worker processes",
    "test_bench_oracle.py": "benchmark scripts on worker processes",
    "test_bench_strength.py": "benchmark scripts on worker processes",
    "test_bench_trick_noise.py": "benchmark scripts on worker processes",
    "test_site_browser.py": "headless Chromium",
    "test_site_compare.py": "headless Chromium",
    "test_site_layout.py": "headless Chromium",
}
_SLOW_TESTS: dict[str, str] = {
    "test_engine_properties.py::test_random_legal_matches": "thousands of random matches",
    "test_docs.py::test_docs_site_builds_in_strict_mode": "builds the documentation site",
    "test_docs.py::test_help_points_to_the_docs": "every command's --help in a subprocess",
    "test_reports.py::test_standings_prints_and_exports_the_same_reports": "a tournament",
    "test_bots.py::test_every_phase_and_variant_is_answered_legally": "every phase and variant",
    "test_bots.py::test_heuristic_beats_random_in_a_small_duplicate_set": "a duplicate set",
    "test_bots.py::test_deterministic_across_processes_and_hash_seeds": "fresh interpreters",
    "test_bots.py::test_decisions_stay_under_the_sandbox_limit_at_default_settings": "full search",
    "test_bots.py::test_montecarlo_decides_the_same_whatever_its_clock_reads_below_the_"
    "safety_cap": "full searches under two clocks",
    "test_site_xss.py::test_no_injected_markup_anywhere": "every page of a hostile tournament",
    "test_site.py::test_pages_use_nothing_remote": "every page of a rendered site",
    "test_site.py::test_serve_renders_a_missing_site_first": "renders and serves a site",
    "test_store.py::test_a_locked_database_is_refused": "waits out the lock's timeout",
}


def slow_reason(item: pytest.Item) -> str | None:
    """Why ``item`` is left out of the fast tier (None: it is in it)."""
    file = item.path.name
    test = f"{file}::{getattr(item, 'originalname', item.name)}"
    return _SLOW_FILES.get(file) or _SLOW_TESTS.get(test)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow tests of :data:`_SLOW_FILES` and :data:`_SLOW_TESTS` (the fast tier is
    ``-m "not slow"``)."""
    for item in items:
        reason = slow_reason(item)
        if reason is not None:
            item.add_marker(pytest.mark.slow(reason=reason))


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
