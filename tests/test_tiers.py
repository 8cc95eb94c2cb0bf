"""The fast tier (``make test-fast``, ``pytest -m "not slow"``) is defined by name in
tests/tiers.py (tests/conftest.py marks them): every name there must still be a test file or a
test, or the tier would quietly grow back."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tiers import _SLOW_FILES, _SLOW_TESTS

TESTS = Path(__file__).resolve().parent


def _files() -> dict[str, Path]:
    return {p.name: p for p in TESTS.rglob("test_*.py")}


def test_every_slow_file_exists() -> None:
    missing = sorted(set(_SLOW_FILES) - set(_files()))
    assert not missing, f"tests/tiers.py names files that are gone: {missing}"


def stale_slow_tests(slow_tests: dict[str, str], slow_files: dict[str, str]) -> list[str]:
    """The entries of ``slow_tests`` that name no test, or a test of a file slow as a whole."""
    files = _files()
    stale = []
    for test in sorted(slow_tests):
        file, function = test.split("::")
        path = files.get(file)
        if path is None:
            stale.append(f"{test}: {file} is gone")
            continue
        names = {
            node.name
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef)
        }
        if function not in names:
            stale.append(f"{test} is gone")
        elif file in slow_files:
            stale.append(f"{test}: {file} is slow as a whole already")
    return stale


def test_every_slow_test_exists() -> None:
    stale = stale_slow_tests(_SLOW_TESTS, _SLOW_FILES)
    assert not stale, "tests/tiers.py names tests that are gone:\n" + "\n".join(stale)


def test_the_stale_check_names_every_stale_entry() -> None:
    slow = {
        "test_tiers.py::test_every_slow_test_exists": "fine",
        "test_tiers.py::no_such_test": "gone",
        "test_no_such_file.py::test_x": "file gone",
        "test_layout.py::test_imports_go_down_the_layers": "file listed whole",
    }
    assert stale_slow_tests(slow, {"test_layout.py": "slow"}) == [
        "test_layout.py::test_imports_go_down_the_layers: "
        "test_layout.py is slow as a whole already",
        "test_no_such_file.py::test_x: test_no_such_file.py is gone",
        "test_tiers.py::no_such_test is gone",
    ]


def test_the_marks_follow_the_lists() -> None:
    # Collected for real: of these files only the listed tests of test_store.py and
    # test_tiers.py are slow.
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "slow"]
        + ["tests/test_store.py", "tests/test_tiers.py"],
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    selected = [line for line in run.stdout.splitlines() if "::" in line]
    assert selected == [
        "tests/test_store.py::test_a_locked_database_is_refused",
        "tests/test_tiers.py::test_the_fast_tier_leaves_the_slow_files_unimported",
    ], run.stdout


def test_the_fast_tier_leaves_the_slow_files_unimported() -> None:
    # Under exactly -m "not slow" a file slow as a whole is not collected at all (no Dask
    # import for test_cluster.py), so its tests are not even counted as deselected; named on
    # the command line it is collected as before.
    def collect(*args: str) -> list[str]:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", *args],
            cwd=TESTS.parent,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return run.stdout.splitlines()

    def total(summary: str) -> int:  # "872/914 tests collected (42 deselected) in 4.2s"
        return int(summary.split()[0].split("/")[-1])

    fast = collect("-m", "not slow", "tests")
    everything = collect("-m", "slow or not slow", "tests")
    assert any(line.startswith("tests/test_store.py::") for line in fast), fast[-1]
    cluster = [line for line in collect("-m", "slow", "tests/test_cluster.py") if "::" in line]
    assert cluster and all(line.startswith("tests/test_cluster.py::") for line in cluster)
    # Neither selected nor deselected: not collected. (Every slow file is left out alike.)
    assert total(everything[-1]) - total(fast[-1]) >= len(cluster), (fast[-1], everything[-1])
