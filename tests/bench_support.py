"""Running a script of ``bench/`` as a user does, for the tests of the benches."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"


def run_bench(script: str, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """``python bench/<script> <args>`` in ``cwd``, its output captured as text."""
    return subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )
