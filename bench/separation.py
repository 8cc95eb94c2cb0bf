"""How often ``arena run --until-separated`` calls two equally strong bots separated.

The stopping rule (:mod:`arena.stats.separation`) checks the standings after every round and stops
as soon as every pair of bots adjacent in them is separated at 95 %. Each check is another
chance for a 95 % interval to miss, so over many rounds the chance of a false "separated"
grows beyond 5 %. This script measures by how much, with the rule's own check
(:func:`arena.stats.separation.check`, the standings' real Plackett-Luce fit and intervals):

* three bots, ``x`` and ``y`` equally strong (which of them places above the other is a fair
  coin in every match) and ``z`` weaker (last in a share ``--z-last`` of its matches, else
  a random place): one set of three, 6 matches a round, as in ``arena run``;
* ``--tournaments`` such tournaments, each checked after every round up to ``--cap`` rounds.

Reported, for each cap in ``--caps``: how often the rule stopped with "separated" by then
(which, with x and y equal, is always wrong about x and y), next to how often the same check
made once, at the cap (a fixed number of rounds, looked at once), says "separated"; each
with its Monte-Carlo standard error.

Example::

    python bench/separation.py --tournaments 1000 --caps 10,20,50
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from typing import Any

from arena.stats.outcomes import MatchRow
from arena.stats.separation import check

NAMES = {1: "x", 2: "y", 3: "z"}


def one_round(rng: random.Random, r: int, z_last: float) -> list[MatchRow]:
    """Six matches of round ``r``: x and y even, z last in a share ``z_last`` of them."""
    rows: list[MatchRow] = []
    for _ in range(6):
        order = [1, 2] if rng.random() < 0.5 else [2, 1]
        z_place = 3 if rng.random() < z_last else rng.randint(1, 3)
        order.insert(z_place - 1, 3)
        place = {bot: k for k, bot in enumerate(order, 1)}
        rows.append((f"1,2,3/{r}", 1, 2, 3, place[1], place[2], place[3]))
    return rows


def tournament(seed: int, cap: int, z_last: float) -> list[bool]:
    """Whether the rule's check calls the standings separated, after each round up to
    ``cap`` (with x and y equal, every True is wrong about them)."""
    rng = random.Random(seed)
    rows: list[MatchRow] = []
    looks: list[bool] = []
    for r in range(cap):
        rows += one_round(rng, r, z_last)
        looks.append(check(NAMES, rows, r + 1).separated)
    return looks


def rate(hits: int, n: int) -> dict[str, float]:
    """A proportion with its Monte-Carlo standard error."""
    p = hits / n
    return {"rate": round(p, 4), "se": round(math.sqrt(p * (1 - p) / n), 4)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the simulation and print the table (and, with --json, the figures)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tournaments", type=int, default=1000)
    ap.add_argument("--caps", default="10,20,50", help="caps (--rounds) to report, comma-separated")
    ap.add_argument("--z-last", type=float, default=0.8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    caps = sorted(int(c) for c in args.caps.split(","))
    started = time.perf_counter()
    runs = [
        tournament(args.seed * 1_000_003 + k, caps[-1], args.z_last)
        for k in range(args.tournaments)
    ]
    n = len(runs)
    out: dict[str, Any] = {
        "tournaments": n,
        "z_last": args.z_last,
        "seconds": round(time.perf_counter() - started, 1),
        "caps": {},
    }
    print(f"{n} tournaments of x = y > z (z last in {args.z_last:.0%} of its matches)")
    print(f"{'cap':>5}  {'rule stopped, separated':>24}  {'one look at the cap':>20}")
    for cap in caps:
        rule = rate(sum(any(looks[:cap]) for looks in runs), n)  # checked every round
        once = rate(sum(looks[cap - 1] for looks in runs), n)  # checked at the cap only
        out["caps"][cap] = {"until_separated": rule, "one_look": once}
        print(
            f"{cap:>5}  {rule['rate']:>17.3f} ± {rule['se']:.3f}  "
            f"{once['rate']:>13.3f} ± {once['se']:.3f}"
        )
    print(f"({out['seconds']} s)")
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        print()
    return out


if __name__ == "__main__":
    main()
