"""A bare interpreter (pytest, nothing else) runs the suite in the project's environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_pytest_without_the_test_extra_reruns_in_the_projects_environment(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", str(bare)], check=True)
    subprocess.run(
        [str(bare / "bin" / "python"), "-m", "pip", "install", "-q", "pytest"], check=True
    )
    # The project's environment is the one running this suite (VIRTUAL_ENV, as the Makefile
    # reads it); the bare one has pytest only.
    env = {**os.environ, "VIRTUAL_ENV": sys.prefix}
    env.pop("ARENA_TESTS_RERUN", None)
    env.pop("ARENA_NO_SETUP", None)
    args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_cards.py", "-k", "deck"]
    run = subprocess.run(
        [str(bare / "bin" / "python"), *args], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert f"{bare / 'bin' / 'python'} lacks " in run.stderr and "click" in run.stderr
    assert "setting up" in run.stderr
    assert " passed" in run.stdout and "deselected" in run.stdout
    # Told not to set anything up, it refuses in one line instead, exit code 4 (usage error).
    refused = subprocess.run(
        [str(bare / "bin" / "python"), *args],
        cwd=REPO,
        env={**env, "ARENA_NO_SETUP": "1"},
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 4
    errors = [line for line in refused.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "lacks " in errors[0] and "make check" in errors[0], errors
