"""Which rate interval: Wilson on effective matches against the empirical likelihood.

The arena had two functions called ``rate_interval``: Wilson's interval on the effective number
of matches (the placed-above table of the standings) and the empirical-likelihood interval of
the mean set score (kept beside the sequential test). This script measures both on the same
simulated rates, where both apply: units of six matches (a duplicate set of a pair), each unit
with its own chance drawn around the true rate (the deal suits one bot: matches of a unit are
correlated), a share of the matches ending in a shared place (half a point). It prints, per
number of units and true rate, how often each interval contains the true rate (nominal 0.95)
and its mean width. docs/statistics.md quotes the figures.

Example::

    python bench/rate_interval.py --tests 2000
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.stats.sequential import HALF_POINTS, empirical_likelihood_interval  # noqa: E402
from arena.stats.vocabulary import rate_interval, rate_variance  # noqa: E402

MATCHES = HALF_POINTS // 2
"""Matches in one unit (six seatings)."""


def simulate(
    rng: np.random.Generator, units: int, rate: float, spread: float, ties: float
) -> np.ndarray:
    """Half-points (0..12) of ``units`` units around the true ``rate``: each unit's chance of
    placing above is Beta with mean ``rate`` and concentration ``spread``; a share ``ties``
    of the matches is shared (one half-point)."""
    above = (rate - ties / 2) / (1 - ties)  # the chance of placing above, given no tie
    chance = rng.beta(above * spread, (1 - above) * spread, size=units)
    tie = rng.random((units, MATCHES)) < ties
    won = rng.random((units, MATCHES)) < chance[:, None]
    return np.asarray((np.where(tie, 1, 2 * won)).sum(axis=1))


def all_or_nothing(
    rng: np.random.Generator, units: int, rate: float, share: float = 0.5
) -> np.ndarray:
    """Half-points of ``units`` units whose true rate is ``rate``, a ``share`` of them
    all-or-nothing (all six matches won with chance ``rate``, else all six lost: the deal
    decides every seating the same way), the rest six independent matches of chance ``rate``:
    the statistics audit's worst data for the rate interval (skewed unit scores whose rare
    failure a sample of 30 units often does not contain)."""
    whole = rng.random(units) < share
    all_six = np.where(rng.random(units) < rate, HALF_POINTS, 0)
    each = 2 * (rng.random((units, MATCHES)) < rate).sum(axis=1)
    return np.asarray(np.where(whole, all_six, each))


def both(points: np.ndarray) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two intervals of one simulated rate: ``((low, high) Wilson, (low, high) EL)``."""
    above = points / 2.0
    together = np.full(len(points), float(MATCHES))
    rate, variance, g = rate_variance(above, together)
    wilson = rate_interval(rate, variance, g, float(together.sum()), 1.0)
    assert wilson is not None
    counts = np.bincount(points, minlength=HALF_POINTS + 1)
    el = empirical_likelihood_interval(counts)
    return (wilson.low, wilson.high), (el.low, el.high)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", type=int, default=2000, help="simulated rates per row")
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument(
        "--units", type=int, nargs="*", default=[3, 5, 10, 30], help="units per rate (table 1)"
    )
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    se = math.sqrt(0.95 * 0.05 / args.tests)
    print(f"{args.tests} simulated rates per row; coverage ± {se:.3f} (one standard error)")
    print(f"{'units':>5} {'rate':>5} {'deal':>6} {'ties':>5} | {'Wilson-neff':>18} | {'EL':>18}")
    print(
        f"{'':>5} {'':>5} {'':>6} {'':>5} | {'cover':>8} {'width':>9} | {'cover':>8} {'width':>9}"
    )
    for units in args.units:
        for rate in (0.5, 0.7, 0.9):
            for spread, deal in ((4.0, "strong"), (50.0, "weak")):
                ties = 0.1
                hits = np.zeros(2)
                widths = np.zeros(2)
                for _ in range(args.tests):
                    for k, (lo, hi) in enumerate(both(simulate(rng, units, rate, spread, ties))):
                        hits[k] += lo <= rate <= hi
                        widths[k] += hi - lo
                cover, width = hits / args.tests, widths / args.tests
                print(
                    f"{units:>5} {rate:>5.2f} {deal:>6} {ties:>5.2f} | "
                    f"{cover[0]:>8.3f} {width[0]:>9.3f} | {cover[1]:>8.3f} {width[1]:>9.3f}"
                )
    print("\nHalf the units all-or-nothing (the deal decides all six matches), no ties:")
    for units in (10, 30, 100):
        for rate in (0.7, 0.9):
            hits, widths = np.zeros(2), np.zeros(2)
            for _ in range(args.tests):
                for k, (lo, hi) in enumerate(both(all_or_nothing(rng, units, rate))):
                    hits[k] += lo <= rate <= hi
                    widths[k] += hi - lo
            cover, width = hits / args.tests, widths / args.tests
            print(
                f"{units:>5} {rate:>5.2f} {'a-o-n':>6} {0:>5.2f} | "
                f"{cover[0]:>8.3f} {width[0]:>9.3f} | {cover[1]:>8.3f} {width[1]:>9.3f}"
            )
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
