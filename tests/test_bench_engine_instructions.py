"""bench/engine_instructions.py: its child plays the rollouts and matches it counts, and it says
in one line when valgrind is missing (the counting itself runs under valgrind, by hand)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from arena import engine

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "engine_instructions.py"


def _child(*args: str) -> int:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--child", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return int(run.stdout.split()[-1])


def test_the_child_counts_the_decisions_it_plays() -> None:
    # The same rollouts in-process: 2 seeds x 7 hand starts, played out at random.
    rules = engine.Rules()
    draw = random.Random(7).random
    expected = 0
    for s in range(2):
        for k in range(7):
            state = engine.GameState(
                engine.deal_for(s, k, rules), rules, (engine.first_dealer(s) + k) % 3
            )
            while state.turn is not None:
                legal = state.legal_actions()
                state.apply(legal[int(draw() * len(legal))])
            expected += len(state.log)
    assert _child(str(ROOT), "rollouts", "2", "1") == expected
    assert _child(str(ROOT), "rollouts", "2", "2") == 2 * expected
    # Matches, with this tree and with the reference engine (the same bots, other rules code).
    assert _child(str(ROOT), "matches", "1", "1") > 0
    assert _child("reference", "matches", "1", "1") > 0


def test_without_valgrind_it_is_one_error_line(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": str(tmp_path)},
    )
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == "error: valgrind is not installed (apt-get install valgrind)\n"
