"""Engine cost in machine instructions (valgrind's callgrind), which no other load can move.

Run by hand (it is a benchmark, not a test; needs ``valgrind``)::

    python bench/engine_instructions.py                   # this tree and the reference
    python bench/engine_instructions.py --before be84860  # and another revision's game state
    python bench/engine_instructions.py --hands 100       # hand starts x 7 (default 100: 700)

Each figure is instructions per decision of one warm repetition: the run with two repetitions
minus the run with one (``PYTHONHASHSEED=0``, no compiled files written), so start-up, imports
and the first, cold pass cancel out. Rollouts are ``bench/engine.py``'s (a copy of each hand's
first position played out by uniformly random ``legal_actions()`` + ``apply()``); matches are
``play_match`` with the bundled random bots. The reference is the plain engine before the game
state (11de8a4), whose ``play_match`` is the yardstick of the rollouts' ratio. Another revision
is ``git archive``-d into a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
REFERENCE = "11de8a4"


def child(tree: str, mode: str, n: int, reps: int) -> None:
    """Play ``reps`` repetitions of ``mode`` with the engine of ``tree``; print the decisions."""
    if tree == "reference":
        source = subprocess.run(
            ["git", "-C", str(_ROOT), "show", f"{REFERENCE}:arena/engine.py"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        engine = types.ModuleType("old_engine")
        sys.modules["old_engine"] = engine  # dataclasses look their module up
        exec(compile(source, "old_engine", "exec"), engine.__dict__)
    else:
        sys.path[:0] = [tree]
        from arena import engine  # type: ignore[no-redef]
    sys.path.insert(0, str(_ROOT / "bots"))
    from random_bot import Bot

    decisions = 0
    if mode == "rollouts":
        rules = engine.Rules()
        starts = [
            engine.GameState(engine.deal_for(s, k, rules), rules, (engine.first_dealer(s) + k) % 3)
            for s in range(n)
            for k in range(7)
        ]
        for _ in range(reps):
            draw = random.Random(7).random
            for start in starts:
                state = start.copy()
                while state.turn is not None:
                    legal = state.legal_actions()
                    state.apply(legal[int(draw() * len(legal))])
                decisions += len(state.log)
    else:
        for _ in range(reps):
            bots = [Bot(seed=1000 + seat) for seat in range(3)]
            for seed in range(n):
                match = engine.play_match(bots, seed=seed)
                decisions += sum(len(h.log) for h in match.hands)
    print("decisions", decisions)


def instructions(tree: str, mode: str, n: int) -> tuple[float, int]:
    """Instructions per decision of one warm repetition, and the decisions in it."""
    counted = []
    for reps in (1, 2):
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable]
            + [__file__, "--child", tree, mode, str(n), str(reps)],
            capture_output=True,
            text=True,
            # No compiled file written: else the first run of a fresh tree compiles and writes
            # them, the second loads them, and the difference loses the compiling.
            env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"},
            check=False,
        )
        total = [line for line in run.stderr.splitlines() if "Collected" in line]
        done = [line for line in run.stdout.splitlines() if line.startswith("decisions")]
        if run.returncode != 0 or not total or not done:
            sys.exit(f"error: the {mode} of {tree} failed: {(run.stderr or run.stdout)[-300:]}")
        counted.append((int(total[-1].split()[-1]), int(done[-1].split()[1])))
    (ir1, d1), (ir2, d2) = counted
    return (ir2 - ir1) / (d2 - d1), d2 - d1


def main(argv: list[str] | None = None) -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--before", metavar="REV", help="also measure the game state of git REV")
    ap.add_argument("--hands", type=int, default=100, help="seeds of 7 hand starts (rollouts)")
    ap.add_argument("--matches", type=int, default=40, help="random-bot matches per repetition")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        tree, mode, n, reps = args.child
        child(tree, mode, int(n), int(reps))
        return
    if shutil.which("valgrind") is None:
        sys.exit("error: valgrind is not installed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        trees = [("this tree", str(_ROOT))]
        if args.before:
            archive = subprocess.run(
                ["git", "-C", str(_ROOT), "archive", args.before, "arena"],
                capture_output=True,
                check=False,
            )
            if archive.returncode != 0:
                sys.exit(f"error: cannot read arena/ at {args.before!r}")
            subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
            trees.append((args.before, tmp))
        ref, _ = instructions("reference", "matches", args.matches)
        print(f"reference ({REFERENCE}) play_match: {ref:,.0f} instructions per decision")
        for name, path in trees:
            roll, decisions = instructions(path, "rollouts", args.hands)
            match, _ = instructions(path, "matches", args.matches)
            print(
                f"{name}: rollouts {roll:,.0f} instructions per decision ({decisions} decisions),"
                f" play_match {match:,.0f}; rollouts against the reference's play_match "
                f"{ref / roll:.2f}x"
            )


if __name__ == "__main__":
    main()
