"""Error rates of the sequential test (``arena.sequential``), measured on real set scores.

1. **Real set scores.** Duplicate sets are played in-process with the engine and the bundled
   bots, each a fresh seed in all six seatings, the third seat the bundled heuristic (the
   default third of ``arena compare``), the ``random`` module seeded per (seed, seat) as the
   sandbox does. A set's score is A's half-points over B (0..12). Three pairs:

   * ``edge``: heuristic (A) against random (B), a large edge;
   * ``close``: montecarlo (A) against heuristic (B), a small real edge;
   * ``copy``: heuristic against a renamed copy of itself.

2. **Populations with a known rate.** A population is a finite list of real set scores, drawn
   from with replacement, so its mean *is* the long-run rate ``p`` of the simulated pair,
   exactly. To put the mean exactly on ``p0`` and on ``p1``:

   * ``mixture``: the ``close`` sets and their mirror images (B's score, ``12 - k``) in equal
     numbers have mean exactly 1/2 (a close pair whose labels a coin hides). For ``p > 1/2``
     a share ``w = (p - 1/2) / (m - 1/2)`` of the ``edge`` population (mean ``m``) is mixed
     in: a pair that is even on most deals and clearly better on some (below 1/2, the
     mirrored ``edge`` sets);
   * ``tilted``: the ``close`` sets reweighted by ``exp(t k)``, ``t`` solved so the mean is
     ``p`` to 1e-12: the distribution nearest the real one (in Kullback-Leibler divergence)
     that has mean ``p``.

3. **Simulated tests.** For every (p0, p1) choice and population, ``--tests`` sequential tests
   are run on set scores drawn from it, with ``arena.sequential``'s own LLR, until they decide
   (or ``--max-sets``). Reported: how often H1 was accepted at ``p = p0`` (the false-positive
   rate, against alpha) and at ``p = p1`` (the power, against 1 - beta), with Monte-Carlo
   standard errors; the mean and 90th percentile of sets to a decision; and how often the
   rate's 95 % interval, read when the test stops, contains the true ``p``: the one
   ``arena compare`` shows (``Status.ci``, a confidence sequence) and the fixed-sample one
   (``rate_interval``), with their mean widths. Besides ``p0`` and ``p1`` the true rate is
   also put half-way between them and 0.05 beyond ``p1``, and the default design is also run
   with at most 60 sets (many tests then end inconclusive).

Example::

    python bench/compare.py --sets-file bench/data/compare_sets.json     # reuse played sets
    python bench/compare.py --play 400 --sets-file new.json --tests 4000  # play them again
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy import optimize, stats

from arena.botfile import bundled
from arena.sequential import (
    HALF_POINTS,
    LEVEL,
    SET_SCORES,
    ConfidenceSequence,
    Design,
    half_points,
    llr,
    profile,
    rate_interval,
    replay,
    stakes,
    threshold,
    wager,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import strength  # noqa: E402  (bench/strength.py: plays one seed in all six seatings)

PAIRS: dict[str, tuple[str, str, str]] = {
    "edge": ("heuristic", "random_bot", "heuristic"),
    "close": ("montecarlo", "heuristic", "heuristic"),
    "copy": ("heuristic", "heuristic", "heuristic"),
}
"""Bots by seat index (A, B, third) of each played pair."""

FIRST_SEED = {"edge": 100_000, "close": 200_000, "copy": 300_000}

PAIRS_OF_HYPOTHESES = ((0.50, 0.55), (0.50, 0.60), (0.45, 0.55))
"""The (p0, p1) choices measured."""

DESIGNS: tuple[tuple[float, float, int | None], ...] = (
    *((p0, p1, None) for p0, p1 in PAIRS_OF_HYPOTHESES),
    (0.50, 0.55, 60),
)
"""The designs measured: each (p0, p1) up to ``--max-sets``, and the default one stopped at
60 sets (many tests then end inconclusive, a stopping time of another kind)."""


# --- 1. real set scores -----------------------------------------------------------------------


def set_score(played: dict[str, Any]) -> int:
    """A's half-points over B in one set played by :func:`strength.play_set`."""
    return sum(half_points(places[0], places[1]) for places in played["places"])


def play(pair: str, sets: int, workers: int) -> list[int]:
    """Play ``sets`` duplicate sets of ``pair``; return their scores in seed order."""
    paths = [str(bundled(name)) for name in PAIRS[pair]]
    seeds = range(FIRST_SEED[pair], FIRST_SEED[pair] + sets)
    played = strength.in_order(strength.play_set, seeds, workers, strength.setup, (paths, {}))
    return [set_score(s) for s in played]


def load_or_play(path: Path | None, sets: int, workers: int) -> dict[str, list[int]]:
    """The played scores of every pair: from ``path`` when it has them, else played now."""
    data: dict[str, list[int]] = {}
    if path is not None and path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))["scores"]
    for pair in PAIRS:
        if pair not in data:
            t0 = time.perf_counter()
            data[pair] = play(pair, sets if pair != "copy" else min(sets, 100), workers)
            print(f"played {len(data[pair])} {pair} sets in {time.perf_counter() - t0:.0f} s")
            if path is not None:
                meta = {"pairs": PAIRS, "first_seed": FIRST_SEED}
                path.write_text(json.dumps({**meta, "scores": data}), encoding="utf-8")
    return data


# --- 2. populations ---------------------------------------------------------------------------


def histogram(scores: Sequence[int]) -> np.ndarray:
    """Probabilities of the 13 set scores in ``scores``."""
    counts = np.bincount(np.asarray(scores), minlength=HALF_POINTS + 1)
    result: np.ndarray = counts / counts.sum()
    return result


def mean(dist: np.ndarray) -> float:
    """The mean set score (the rate) of a distribution over the 13 outcomes."""
    return float(dist @ SET_SCORES)


def mirrored(dist: np.ndarray) -> np.ndarray:
    """B's view of the same sets: score ``k`` becomes ``12 - k``."""
    result: np.ndarray = dist[::-1]
    return result


def mixture(close: np.ndarray, edge: np.ndarray, p: float) -> np.ndarray:
    """The symmetrised close pair, with a share of the edge pair (or of its mirror image, for
    ``p`` below 1/2) mixed in to make the mean exactly ``p``."""
    even = 0.5 * (close + mirrored(close))
    lift = edge if p >= 0.5 else mirrored(edge)
    w = (p - 0.5) / (mean(lift) - 0.5)
    if not 0 <= w <= 1:
        raise ValueError(f"the edge pair (mean {mean(edge):.3f}) cannot move the mean to {p}")
    result: np.ndarray = (1 - w) * even + w * lift
    return result


def tilted(dist: np.ndarray, p: float) -> np.ndarray:
    """``dist`` reweighted by ``exp(t k)`` with ``t`` such that the mean is ``p``."""

    def shifted(t: float) -> np.ndarray:
        w = dist * np.exp(t * (SET_SCORES - SET_SCORES @ dist))
        result: np.ndarray = w / w.sum()
        return result

    t = optimize.brentq(lambda t: mean(shifted(t)) - p, -60, 60, xtol=1e-14)
    return shifted(t)


# --- 3. simulated tests -----------------------------------------------------------------------


def simulate(
    dist: np.ndarray, design: Design, tests: int, seed: int, widths: int = 400, chunk: int = 256
) -> dict[str, np.ndarray]:
    """Run ``tests`` sequential tests on set scores drawn from ``dist``, side by side.

    Returns per test: the decision (1 = H1, 0 = H0, -1 = none within ``design.max_sets``), the
    sets it took, whether the interval shown at the stop (the confidence sequence, ``cs``)
    and the fixed-sample one (``el``) contained the true rate; and, for the first ``widths``
    tests, the width of each at the stop.
    """
    rng = np.random.default_rng(seed)
    p = mean(dist)
    cap = design.max_sets or 100_000
    counts = np.zeros((tests, HALF_POINTS + 1), dtype=int)
    decision = np.full(tests, -1)
    sets = np.full(tests, cap)
    covered = {k: np.zeros(tests, dtype=bool) for k in ("cs", "el")}
    width = {k: np.full(min(widths, tests), np.nan) for k in ("cs", "el")}
    # The confidence sequence's state: the gamblers' log capital at the true rate (all tests)
    # and on the whole grid (the first ``widths`` tests, for the width), and the running sums
    # its bets are made from: exactly arena.sequential.ConfidenceSequence, vectorised.
    total, spread = np.zeros(tests), np.zeros(tests)
    at_p = np.zeros((2, tests))
    grid = [ConfidenceSequence() for _ in range(min(widths, tests))]
    threshold_cs = math.log(1.0 / (1.0 - LEVEL))
    active = np.arange(tests)
    done = 0
    while active.size and done < cap:
        # Draw a block of sets for the tests still running, then walk through it set by set.
        block = rng.choice(HALF_POINTS + 1, size=(active.size, min(chunk, cap - done)), p=dist)
        for j in range(block.shape[1]):
            k = block[:, j]
            x = SET_SCORES[k]
            up, down = stakes(np.full(active.size, p), wager(done, spread[active]))
            at_p[0, active] += np.log1p(up * (x - p))
            at_p[1, active] += np.log1p(-down * (x - p))
            total[active] += x
            spread[active] += (x - (0.5 + total[active]) / (done + 2)) ** 2
            for i in np.flatnonzero(active < len(grid)):
                grid[active[i]].add(float(x[i]))
            counts[active, k] += 1
            done += 1
            value = llr(counts[active], design.p0, design.p1)
            h1, h0 = value >= design.upper, value <= design.lower
            stop = h1 | h0 | (done >= cap)
            if stop.any():
                who = active[stop]
                decision[who] = np.where(h1[stop], 1, np.where(h0[stop], 0, -1))
                sets[who] = done
                # The fixed-sample interval is {s : 2 l(s) <= threshold}, and l grows away
                # from the centre: it contains p exactly when 2 l(p) is within the threshold.
                covered["el"][who] = 2 * profile(counts[who], p) <= threshold(done)
                mixed = np.logaddexp(at_p[0, who], at_p[1, who]) - math.log(2.0)
                covered["cs"][who] = mixed < threshold_cs
                for i in who[who < len(grid)]:
                    low, high = grid[i].interval()
                    width["cs"][i] = high - low
                    low, high = rate_interval(counts[i])
                    width["el"][i] = high - low
                active, block = active[~stop], block[~stop]
            if not active.size:
                break
    return {
        "decision": decision,
        "sets": sets,
        **{f"covered_{k}": v for k, v in covered.items()},
        **{f"width_{k}": v for k, v in width.items()},
    }


def rate_with_error(hits: int, n: int) -> str:
    """``hits / n`` with its Monte-Carlo standard error."""
    r = hits / n
    return f"{r:.3f} ± {math.sqrt(r * (1 - r) / n):.3f}"


def fixed_sample_coverage(
    dist: np.ndarray, sizes: Sequence[int], tests: int, seed: int
) -> list[tuple[int, str, str]]:
    """How often the 95 % interval contains the true rate after a fixed number of sets: with
    the F calibration the arena uses, and with the plain chi-square one for comparison."""
    rng = np.random.default_rng(seed)
    p = mean(dist)
    chi2 = float(stats.chi2.ppf(0.95, 1))
    out = []
    for n in sizes:
        loss = 2 * profile(rng.multinomial(n, dist, size=tests), p)
        f_hits, chi_hits = int((loss <= threshold(n)).sum()), int((loss <= chi2).sum())
        out.append((n, rate_with_error(f_hits, tests), rate_with_error(chi_hits, tests)))
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(
        description="False-positive rate, power and sets to a decision of the sequential "
        "test, on resampled real duplicate-set scores.",
        epilog="Example: python bench/compare.py --sets-file bench/data/compare_sets.json",
    )
    ap.add_argument("--sets-file", type=Path, help="played set scores: reused if present")
    ap.add_argument("--play", type=int, default=400, help="sets to play per pair (default 400)")
    ap.add_argument("--workers", type=int, default=2, help="processes for playing (default 2)")
    ap.add_argument("--tests", type=int, default=4000, help="simulated tests per row")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--max-sets", type=int, default=20_000, help="cap per simulated test")
    ap.add_argument("--seed", type=int, default=1, help="simulation seed")
    ap.add_argument(
        "--widths", type=int, default=400, help="tests per row whose interval widths are averaged"
    )
    args = ap.parse_args(argv)

    scores = load_or_play(args.sets_file, args.play, args.workers)
    dists = {pair: histogram(s) for pair, s in scores.items()}
    for pair, s in scores.items():
        d = dists[pair]
        sd = math.sqrt(d @ (SET_SCORES - mean(d)) ** 2)
        print(
            f"{pair:>5}: {' vs '.join(PAIRS[pair][:2])} (third {PAIRS[pair][2]}), "
            f"{len(s)} sets, mean {mean(d):.4f}, sd {sd:.4f}, "
            f"counts {np.bincount(s, minlength=HALF_POINTS + 1).tolist()}"
        )
    for p0, p1 in PAIRS_OF_HYPOTHESES:
        test = replay(Design(p0, p1, args.alpha, args.beta), scores["copy"])
        print(
            f"copy, p0 {p0:.2f} p1 {p1:.2f}: {test.decision or 'undecided'} after {test.sets} sets"
        )

    print("\nFixed-sample coverage of the 95 % interval (close pair tilted to p1 = 0.55):")
    print("| sets | F(1, n-1) calibration (used) | chi-square calibration |\n|---|---|---|")
    for n, f_cov, chi_cov in fixed_sample_coverage(
        tilted(dists["close"], 0.55), (5, 10, 20, 50, 100, 300), args.tests, 7
    ):
        print(f"| {n} | {f_cov} | {chi_cov} |")
    header = (
        f"\n| p0 | p1 | max sets | population | true p | accepts H1 | target | mean sets "
        f"| p90 sets | undecided | fixed-sample CI covered | shown CI covered "
        f"| mean width fixed / shown |\n|{'---|' * 13}"
    )
    print(header)
    t0 = time.perf_counter()
    row = 0
    for p0, p1, max_sets in DESIGNS:
        design = Design(p0, p1, args.alpha, args.beta, max_sets or args.max_sets)
        rates = (
            (p0, f"α = {args.alpha}"),
            ((p0 + p1) / 2, "-"),
            (p1, f"1-β = {1 - args.beta:g}"),
            (p1 + 0.05, f"≥ {1 - args.beta:g}"),
        )
        for family in ("mixture", "tilted"):
            for p, target in rates:
                if family == "mixture":
                    dist = mixture(dists["close"], dists["edge"], p)
                else:
                    dist = tilted(dists["close"], p)
                if design.max_sets != args.max_sets:  # error rates are for untruncated tests
                    target = "-"
                row += 1
                r = simulate(dist, design, args.tests, args.seed * 1000 + row, args.widths)
                n = args.tests
                decided = r["decision"] >= 0
                mean_sets = f"{r['sets'][decided].mean():.0f}" if decided.any() else "-"
                print(
                    f"| {p0:.2f} | {p1:.2f} | {design.max_sets} | {family} | {mean(dist):.4f} "
                    f"| {rate_with_error(int((r['decision'] == 1).sum()), n)} | {target} "
                    f"| {mean_sets} | {np.percentile(r['sets'], 90):.0f} "
                    f"| {int((~decided).sum())} "
                    f"| {rate_with_error(int(r['covered_el'].sum()), n)} "
                    f"| {rate_with_error(int(r['covered_cs'].sum()), n)} "
                    f"| {np.nanmean(r['width_el']):.3f} / {np.nanmean(r['width_cs']):.3f} |",
                    flush=True,
                )
    print(f"\n{row} rows of {args.tests} tests in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
