"""bench/strength.py as a user runs it: a bad bot file (or a bad setting of one) is one error
line before any worker starts, and Ctrl-C stops a run, serial or parallel, with a report of
the sets finished."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ORACLE = REPO / "bench" / "oracle.py"
STRENGTH = REPO / "bench" / "strength.py"


def test_an_unknown_mode_is_one_error_line(tmp_path: Path) -> None:
    result = strength(tmp_path, ORACLE, ORACLE_SEES="everything")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {ORACLE}: ValueError: ORACLE_SEES must be one of all, play, bidding, hands,"
        " not 'everything'"
    ]


def test_a_broken_bot_file_stops_the_strength_bench_before_its_workers(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_here\n")
    result = strength(tmp_path, broken)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {broken}: ModuleNotFoundError: No module named 'no_such_module_here'"
    ]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_stops_a_run_with_the_sets_finished(tmp_path: Path, workers: str) -> None:
    """Serial runs ignored Ctrl-C: the workers' setup, which hands Ctrl-C to the parent, ran
    in the parent itself."""
    run = subprocess.Popen(
        [sys.executable, str(STRENGTH), "random", "random", "heuristic", "--seeds", "5000"]
        + ["--workers", workers, "--boot", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=_clean(),
    )
    assert run.stderr is not None
    assert run.stderr.readline().startswith("set 1/5000")  # running, a set finished
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0
    finished = [line for line in err.splitlines() if line.startswith("interrupted:")]
    assert len(finished) == 1
    sets = int(finished[0].split()[1])
    assert 1 <= sets < 5000
    assert out.startswith(f"{sets} duplicate sets x 6 seatings = {6 * sets} matches")


def strength(tmp_path: Path, bot: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """bench/strength.py on ``bot`` and two random bots, with 2 workers and ``env`` set."""
    return subprocess.run(
        [sys.executable, str(STRENGTH), str(bot), "random", "random"]
        + ["--seeds", "1", "--workers", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**_clean(), **env},
        timeout=120,
    )


def _clean() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "ORACLE_SEES"}
