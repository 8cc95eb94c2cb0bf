"""Speed of the open-hand solver (arena.solver): solve time from the first trick, and nodes/s.

Run by hand (a benchmark, not a test)::

    python bench/solver.py                  # 300 positions per row, about a minute
    python bench/solver.py --positions 1000 --seed 7

Positions are real hands at their first lead: seeded deals (``arena.engine.deal_for``) bid by
the bundled heuristic bot, so makers hold the hands makers hold (random bids would give
lopsided, easy hands). A row per deck, for hands with all three players and for a lone
defender against the maker (two players). For each position a fresh :class:`Solver` is timed
(CPU seconds of this process) on:

* ``solve``: the maker's tricks with best play (one alpha-beta search, full window);
* ``values``: the exact value of every legal card of the leader (what a PIMC bot asks);
* ``null``: "does the maker take 3?" (a null window: what a bot asks when only making or
  being euchred matters).

Printed: median, 99th percentile and maximum milliseconds, mean nodes (cards played in the
search) and nodes per CPU-second.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(_ROOT / "bots")]

from heuristic import Bot as Heuristic  # noqa: E402

from arena.engine import deal_for  # noqa: E402
from arena.game import GameState  # noqa: E402
from arena.rules import Rules  # noqa: E402
from arena.solver import Solver  # noqa: E402


def first_leads(rules: Rules, lone: bool, n: int, seed: int) -> list[GameState]:
    """``n`` states at their first lead: heuristic bids; with ``lone`` a defender goes alone."""
    random.seed(seed)
    bots = [Heuristic(), Heuristic(), Heuristic()]
    out: list[GameState] = []
    k = 0
    while len(out) < n:
        state = GameState(deal_for(seed, k, rules), rules, dealer=k % 3)
        k += 1
        while state.phase != "play" and not state.is_over():
            seat: int = state.turn  # type: ignore[assignment]
            if state.phase == "alone":
                first_defender = seat != state.maker and not state.alone
                state.apply("alone" if lone and first_defender else "pass")
                continue
            action = bots[seat].act(state.observation(seat))
            state.apply(action)
        if not state.is_over() and (state.sitting_out is not None) == lone:
            out.append(state)
    return out


def measure(states: list[GameState], how: str) -> dict[str, Any]:
    """Time ``how`` (solve, values or null) on a fresh solver for each state."""
    times, nodes = [], []
    for state in states:
        solver = Solver.for_state(state)
        leader: int = state.turn  # type: ignore[assignment]
        c0 = time.process_time()
        if how == "solve":
            solver.solve(state.hands, leader)
        elif how == "values":
            solver.card_values(state.hands, leader)
        else:
            solver.solve(state.hands, leader, (), 2, 3)
        times.append(time.process_time() - c0)
        nodes.append(solver.nodes)
    times.sort()
    return {
        "p50": 1e3 * statistics.median(times),
        "p99": 1e3 * times[min(len(times) - 1, int(0.99 * len(times)))],
        "max": 1e3 * times[-1],
        "nodes": statistics.fmean(nodes),
        "rate": sum(nodes) / max(sum(times), 1e-9),
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description="Solve time and nodes/s of arena.solver.")
    ap.add_argument("--positions", type=int, default=300, help="positions per row")
    ap.add_argument("--seed", type=int, default=1, help="seed of the deals")
    args = ap.parse_args(argv)
    print(f"{args.positions} first-lead positions per row, heuristic bids, seed {args.seed}")
    head = f"{'deck':>4} {'players':>7} {'query':>6} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}"
    print(f"{head} {'nodes':>7} {'nodes/s':>9}")
    for size in (24, 25, 32):
        for lone in (False, True):
            states = first_leads(Rules(deck=size), lone, args.positions, args.seed)
            for how in ("solve", "values", "null"):
                r = measure(states, how)
                print(
                    f"{size:>4} {2 if lone else 3:>7} {how:>6} {r['p50']:>7.2f} {r['p99']:>7.2f}"
                    f" {r['max']:>7.2f} {r['nodes']:>7.0f} {r['rate']:>9.0f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
