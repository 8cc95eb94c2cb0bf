"""The fast tier (``make test-fast``, ``pytest -m "not slow"``) is defined by name in
tests/tiers.py (tests/conftest.py marks them): every name there must still be a test file or a
test, or the tier would quietly grow back."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from tiers import _SLOW_FILES, _SLOW_TESTS

TESTS = Path(__file__).resolve().parent


def _files() -> dict[str, Path]:
    return {p.name: p for p in TESTS.rglob("test_*.py")}


def test_every_slow_file_exists() -> None:
    missing = sorted(set(_SLOW_FILES) - set(_files()))
    assert not missing, f"tests/tiers.py names files that are gone: {missing}"


@pytest.mark.parametrize("test", sorted(_SLOW_TESTS))
def test_every_slow_test_exists(test: str) -> None:
    file, function = test.split("::")
    path = _files().get(file)
    assert path is not None, f"{file} is gone"
    names = {
        node.name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef)
    }
    assert function in names, f"{test} is gone"
    assert file not in _SLOW_FILES, f"{file} is slow as a whole already"


def test_the_marks_follow_the_lists() -> None:
    # Collected for real: of these files only the one listed test of test_store.py is slow.
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "slow"]
        + ["tests/test_store.py", "tests/test_tiers.py"],
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    selected = [line for line in run.stdout.splitlines() if "::" in line]
    assert selected == ["tests/test_store.py::test_a_locked_database_is_refused"], run.stdout
