"""Measure ``TRICK_NOISE`` of ``bots/montecarlo.py``: how real makers differ from the solver.

Before play, the Monte-Carlo bot judges a bid by solving each guessed deal open-handed. Real
players do not see every card, so a real maker takes more or fewer tricks than the solver
says. This script plays duplicate matches in-process (the three bots in all 6 seatings of
every seed, as ``bench/strength.py`` does), and for every hand with a maker it rebuilds the
true deal at the first lead (bids, pick-up, discard, alone and keep applied), solves it with
:class:`arena.solver.Solver`, and counts the tricks the maker really took against the
solver's number. It prints two tables of row-normalised frequencies: the first bot as the
maker, and any other bot as the maker against it; paste them into ``TRICK_NOISE``.

Then it asks whether one table is enough: for the first bot as the maker, the mean of the real
tricks minus what the first table (the one just measured) expects, with a 95 % interval, by
the trumps the maker holds at the first lead and by the maker's seat from the dealer. A table
that fits every kind of hand gives residuals near zero in every group; a group far from zero
is a kind of hand whose bids the solver judges wrong, which a finer model of the bid (by
those features) could mend.

Lone makers are left out (they are rare); a row seen fewer than 20 times is printed with its
counts so its noise can be judged. Example::

    python bench/fit_trick_noise.py montecarlo heuristic bench/montecarlo_v1.py --seeds 40
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from strength import bot_classes, bot_name, bot_path, in_order, seatings  # noqa: E402

from arena.cards import suit_table  # noqa: E402
from arena.engine import Rules  # noqa: E402
from arena.game import GameState  # noqa: E402
from arena.solver import Solver  # noqa: E402

_CLASSES: list[Any] = []


def _setup(paths: list[str]) -> None:
    """The three bot classes :func:`hands_of` plays with, in this process."""
    _CLASSES[:] = bot_classes(paths)


Hand = tuple[int, bool, int, int, int, int]
"""One hand with a maker: (maker's bot index, anyone alone, solver's tricks, real tricks,
trumps the maker holds at the first lead, maker's seat counted from the dealer's left: 1 the
first to bid, 2 the second, 3 the dealer)."""


def hands_of(seed: int) -> list[Hand]:
    """Every hand with a maker in the 6 seatings of ``seed`` (see :data:`Hand`)."""
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
            effective = suit_table(state.trump)
            trumps = sum(1 for c in state.hands[hand.maker] if effective[c] == state.trump)
            seat = (hand.maker - hand.dealer - 1) % 3 + 1
            out.append((perm[hand.maker], bool(hand.alone), solved, real, trumps, seat))
    return out


def fitted(rows: list[tuple[int, int]]) -> list[float]:
    """The mean real tricks for each solver's number (its own number where none was seen)."""
    sums, counts = [0.0] * 6, [0] * 6
    for solved, real in rows:
        sums[solved] += real
        counts[solved] += 1
    return [sums[k] / counts[k] if counts[k] else float(k) for k in range(6)]


def residuals(rows: list[tuple[int, int, Any]]) -> dict[Any, tuple[int, float, float]]:
    """Group ``(solver's tricks, real tricks, group)`` rows and give each group's (count, mean
    of real minus the whole table's expectation, half-width of its 95 % interval)."""
    expect = fitted([(s, r) for s, r, _ in rows])
    groups: dict[Any, list[float]] = {}
    for solved, real, key in rows:
        groups.setdefault(key, []).append(real - expect[solved])
    out = {}
    for key, diffs in sorted(groups.items()):
        n = len(diffs)
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
        out[key] = (n, mean, 1.96 * (var / n) ** 0.5)
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
    try:
        paths = [str(bot_path(b)) for b in args.bots]
        bot_classes(paths)  # a broken bot file: one line, here
    except Exception as e:  # a bad name or bot file is a usage error: one line
        print(f"error: {e}", file=sys.stderr)
        return 2
    seeds = range(args.start, args.start + args.seeds)
    found: list[Hand] = []
    done = 0
    try:
        for hands in in_order(hands_of, seeds, args.workers, _setup, (paths,)):
            found.extend(hands)
            done += 1
    except KeyboardInterrupt:  # the tables of the seeds finished so far
        print(f"interrupted: {done} seeds finished", file=sys.stderr)
        if not done:
            return 1
    mine = [h for h in found if h[0] == 0 and not h[1]]
    made: list[Any] = [(h[2], h[3]) for h in mine]
    against: list[Any] = [(h[2], h[3]) for h in found if h[0] != 0 and not h[1]]
    print(f"# {len(found)} hands with a maker, {done} seeds x 6 seatings")
    print(f"    (  # {bot_name(paths[0])} as the maker")
    table(made)
    print("    ),")
    print("    (  # another player as the maker, against it")
    table(against)
    print("    ),")
    for title, at in (("trumps held", 4), ("seat from the dealer's left", 5)):
        print(f"# {bot_name(paths[0])} as the maker: real minus expected tricks by {title}")
        for key, (n, mean, half) in residuals([(h[2], h[3], h[at]) for h in mine]).items():
            print(f"#   {key}: {mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}]  ({n} hands)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
