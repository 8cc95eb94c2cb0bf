"""Measure ``TRICK_NOISE`` of ``bots/montecarlo.py``: how real makers differ from the solver.

Before play, the Monte-Carlo bot judges a bid by solving each guessed deal open-handed. Real
players do not see every card, so a real maker takes more or fewer tricks than the solver
says. This script plays duplicate matches in-process (the three bots in all 6 seatings of
every seed, as ``bench/strength.py`` does), and for every hand with a maker it rebuilds the
true deal at the first lead (bids, pick-up, discard, alone and keep applied), solves it with
:class:`arena.solver.Solver`, and counts the tricks the maker really took against the
solver's number. It prints two tables of row-normalised frequencies: the first bot as the
maker, and any other bot as the maker against it; paste them into ``TRICK_NOISE``.

Lone makers are left out (they are rare); a row seen fewer than 20 times is printed with its
counts so its noise can be judged. Example::

    python bench/fit_trick_noise.py montecarlo heuristic bench/montecarlo_v1.py --seeds 40
"""

from __future__ import annotations

import argparse
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from strength import bot_name, bot_path, seatings  # noqa: E402

from arena.botfile import load_bot_class  # noqa: E402
from arena.engine import Rules  # noqa: E402
from arena.game import GameState  # noqa: E402
from arena.solver import Solver  # noqa: E402

_CLASSES: list[Any] = []


def _init(paths: list[str]) -> None:
    """Load the three bot classes, once per worker process."""
    _CLASSES[:] = [load_bot_class(p) for p in paths]


def hands_of(seed: int) -> list[tuple[int, bool, int, int]]:
    """(maker's bot index, maker alone, solver's tricks, real tricks) for every hand with a
    maker in the 6 seatings of ``seed``."""
    out = []
    for perm, match in seatings(_CLASSES, seed, Rules()):
        for hand in match.hands:
            if hand.maker is None:
                continue
            state = GameState(hand.deal, match.rules, hand.dealer, hand.scores_before)
            for _seat, _phase, action in hand.log:
                if state.phase == "play":
                    break
                state.apply(action)
            if state.phase != "play":
                continue  # thrown in before the first lead
            solved = Solver.for_state(state).solve_state(state)
            real = hand.tricks_won[hand.maker]
            out.append((perm[hand.maker], bool(hand.alone), solved, real))
    return out


def table(rows: list[tuple[int, int]]) -> None:
    """Print the row-normalised frequencies of real tricks (columns) by the solver's tricks
    (rows), as Python tuples."""
    counts = [[0] * 6 for _ in range(6)]
    for solved, real in rows:
        counts[solved][real] += 1
    for k, row in enumerate(counts):
        n = sum(row)
        freq = [round(c / n, 2) for c in row] if n else [1.0 if j == k else 0.0 for j in range(6)]
        note = f"  # {n} hands" + (": few, judge by hand" if n < 20 else "")
        print(f"        ({', '.join(map(str, freq))}),{note}")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bots", nargs=3, help="three bot files or bundled names; the first is measured")
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--start", type=int, default=60000)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    paths = [str(bot_path(b)) for b in args.bots]
    seeds = range(args.start, args.start + args.seeds)
    if args.workers > 1:
        with Pool(args.workers, initializer=_init, initargs=(paths,)) as pool:
            found = [r for rs in pool.map(hands_of, seeds, chunksize=1) for r in rs]
    else:
        _init(paths)
        found = [r for seed in seeds for r in hands_of(seed)]
    made: list[Any] = [(s, r) for who, alone, s, r in found if who == 0 and not alone]
    against: list[Any] = [(s, r) for who, alone, s, r in found if who != 0 and not alone]
    print(f"# {len(found)} hands with a maker, {args.seeds} seeds x 6 seatings")
    print(f"    (  # {bot_name(paths[0])} as the maker")
    table(made)
    print("    ),")
    print("    (  # another player as the maker, against it")
    table(against)
    print("    ),")
    return 0


if __name__ == "__main__":
    sys.exit(main())
