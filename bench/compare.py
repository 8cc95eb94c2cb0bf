"""Error rates of the sequential test (``arena.stats.sequential``), measured on real set scores.

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
   are run on set scores drawn from it, with ``arena.stats.sequential``'s own LLR, until they decide
   (or ``--max-sets``). Reported: how often H1 was accepted at ``p = p0`` (the false-positive
   rate, against alpha) and at ``p = p1`` (the power, against 1 - beta), with Monte-Carlo
   standard errors; the mean and 90th percentile of sets to a decision; and how often the
   rate's 95 % interval, read when the test stops, contains the true ``p``: the one
   ``arena compare`` shows (``Status.ci``, a confidence sequence) and the fixed-sample one
   (``empirical_likelihood_interval``), with their mean widths. Besides ``p0`` and ``p1`` the
   true rate is also put half-way between them and 0.05 beyond ``p1``, and the default design
   is also run with at most 60 sets (many tests then end inconclusive). The *fixed n* is a
   one-sided normal (z) test's with the population's true spread; *any valid test >=* is the
   fewest mean sets any sequential test needs whose error rates hold for every distribution
   of set scores (:func:`fewest_sets`), in sets and as a share of the fixed n.

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

from arena.sandbox.botfile import bundled
from arena.stats.betting import bets, capped
from arena.stats.sequential import (
    HALF_POINTS,
    SET_SCORES,
    Design,
    half_points,
    llr,
    profile,
    replay,
    threshold,
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


def steady(dist: np.ndarray, p: float, share: float = 0.8) -> np.ndarray:
    """A low-variance pair: ``share`` of its sets land on the two scores next to ``12 p``
    (mean ``p``), the rest are the close pair tilted to ``p``."""
    k = 12 * p
    lo = int(math.floor(k))
    two = np.zeros(HALF_POINTS + 1)
    if lo >= HALF_POINTS:
        two[HALF_POINTS] = 1.0
    else:
        two[lo], two[lo + 1] = lo + 1 - k, k - lo
    result: np.ndarray = share * two + (1 - share) * tilted(dist, p)
    return result


def lopsided(edge: np.ndarray, p: float) -> np.ndarray:
    """The edge pair as played (``p`` is ignored): most sets far above one half, many won
    outright. Its fixed-sample n is the close pair's (the design a user would plan with)."""
    return edge


def sd(dist: np.ndarray) -> float:
    """The standard deviation of a set's score."""
    return math.sqrt(float(dist @ (SET_SCORES - mean(dist)) ** 2))


def fixed_n(sd0: float, sd1: float, design: Design) -> float:
    """Sets a fixed-sample (normal) test of the same error rates needs: ``((z_a sd0 + z_b
    sd1) / (p1 - p0))^2`` with the spread of a set's score at ``p0`` and at ``p1``."""
    za, zb = stats.norm.ppf(1 - design.alpha), stats.norm.ppf(1 - design.beta)
    return float(((za * sd0 + zb * sd1) / (design.p1 - design.p0)) ** 2)


def kl_inf(dist: np.ndarray, m: float, side: int) -> float:
    """How fast any valid test can gain evidence against "the rate is at most ``m``" (side +1)
    or "at least ``m``" (side -1) when set scores follow ``dist``: the least Kullback-Leibler
    divergence from ``dist`` to a distribution on [0, 1] with such a mean. By the duality of
    Honda and Takemura (2010) it is the best expected log growth of one bet,
    ``max E log(1 + side * lam * (x - m))`` over the bets a gambler can make without risking
    more than its capital: ``0 <= lam <= 1 / m`` (``1 / (1 - m)`` for side -1), since the
    next set may score 0 (or 1)."""
    top = 1 / m if side > 0 else 1 / (1 - m)

    def loss(lam: float) -> float:
        return -float(dist @ np.log1p(side * lam * (SET_SCORES - m)))

    best = optimize.minimize_scalar(loss, bounds=(0.0, top * (1 - 1e-9)), method="bounded")
    return float(-best.fun)


def fewest_sets(dist: np.ndarray, design: Design) -> float | None:
    """The fewest mean sets to a decision that *any* sequential test can need on ``dist``
    when its error rates hold for every distribution of set scores in [0, 1]: Wald's and
    Hoeffding's lower bound, the log-likelihood ratio the decision needs over the fastest
    growth :func:`kl_inf` allows. For a rate at or beyond ``p1`` (H1 must be accepted with
    chance ``1 - beta`` while "at most ``p0``" is rejected with error at most ``alpha``) and
    at or below ``p0`` (the mirror image); None between them."""
    a, b, p = design.alpha, design.beta, mean(dist)
    if p >= design.p1 - 1e-9:
        need = (1 - b) * math.log((1 - b) / a) + b * math.log(b / (1 - a))
        return need / kl_inf(dist, design.p0, +1)
    if p <= design.p0 + 1e-9:
        need = (1 - a) * math.log((1 - a) / b) + a * math.log(a / (1 - b))
        return need / kl_inf(dist, design.p1, -1)
    return None


POPULATIONS: dict[str, Any] = {
    "mixture": lambda d, p: mixture(d["close"], d["edge"], p),
    "tilted": lambda d, p: tilted(d["close"], p),
    "steady": lambda d, p: steady(d["close"], p),
    "lopsided": lambda d, p: lopsided(d["edge"], p),
}
"""Each population as a function of the played distributions and the rate ``p``."""


# --- 3. simulated tests -----------------------------------------------------------------------


def simulate(
    dist: np.ndarray, design: Design, tests: int, seed: int, chunk: int = 256
) -> dict[str, np.ndarray]:
    """Run ``tests`` sequential tests on set scores drawn from ``dist``, side by side: the
    gamblers (``arena.stats.sequential``'s own :func:`bets` and :func:`capped`, vectorised) and, on
    the same sets, the GSPRT it replaced (``llr`` between Wald's bounds).

    Returns per test: the decision (1 = H1, 0 = H0, -1 = none within ``design.max_sets``) and
    the sets it took, of each; whether the gamblers' interval at the stop contains the true
    rate (it does when neither gambler betting at the true rate reached its bound: the
    capital is monotone in the rate); and whether the verdict and the interval disagreed.
    """
    rng = np.random.default_rng(seed)
    p = mean(dist)
    cap = design.max_sets or 100_000
    wald = (math.log(design.beta / (1 - design.alpha)), math.log((1 - design.beta) / design.alpha))
    out = {
        "decision": np.full(tests, -1),
        "sets": np.full(tests, cap),
        "gsprt": np.full(tests, -1),
        "gsprt_sets": np.full(tests, cap),
    }
    covered = np.zeros(tests, dtype=bool)
    disagree = np.zeros(tests, dtype=bool)
    counts = np.zeros((tests, HALF_POINTS + 1), dtype=int)
    total, spread = np.zeros(tests), np.zeros(tests)
    # log capital: at p0 (up), p1 (down), and at the true rate (up, down)
    cap_ = np.zeros((4, tests))
    bars = (-math.log(design.alpha), -math.log(design.beta))
    live = np.ones(tests, dtype=bool)  # the gamblers' test still running
    live_g = np.ones(tests, dtype=bool)  # the GSPRT still running
    done = 0
    while (live | live_g).any() and done < cap:
        block = rng.choice(HALF_POINTS + 1, size=(tests, min(chunk, cap - done)), p=dist)
        for j in range(block.shape[1]):
            k = block[:, j]
            x = SET_SCORES[k]
            up, down = bets(done, total, spread, design.p0, design.p1)
            for row, (m, side) in enumerate(
                ((design.p0, 0), (design.p1, 1), (p, 0), (p, 1))
            ):  # fmt: skip
                u, d = capped(up, down, m)
                cap_[row] += np.where(live, np.log1p(u * (x - m) if side == 0 else -d * (x - m)), 0)
            total += x
            spread += (x - (0.5 + total) / (done + 2)) ** 2
            counts[np.arange(tests), k] += 1
            done += 1
            # arena.stats.sequential.signed: the gambler nearer its bound, as a share of it, decides
            ahead = np.maximum(cap_[0], 0) / bars[0] >= np.maximum(cap_[1], 0) / bars[1]
            h1 = live & (cap_[0] >= bars[0]) & ahead
            h0 = live & (cap_[1] >= bars[1]) & ~ahead
            stop = h1 | h0 | (live & (done >= cap))
            if stop.any():
                out["decision"][stop] = np.where(h1[stop], 1, np.where(h0[stop], 0, -1))
                out["sets"][stop] = done
                covered[stop] = (cap_[2, stop] < bars[0]) & (cap_[3, stop] < bars[1])
                # H1 with a lower end at or below p0 (or H0 with an upper end at or above p1)
                # would be a disagreement: the lower end passes p0 when cap_[0] crosses.
                disagree[stop] = (h1[stop] & (cap_[0, stop] < bars[0])) | (
                    h0[stop] & (cap_[1, stop] < bars[1])
                )
                live &= ~stop
            if live_g.any():
                value = llr(counts[live_g], design.p0, design.p1)
                who = np.flatnonzero(live_g)
                g1, g0 = value >= wald[1], value <= wald[0]
                gstop = g1 | g0 | (done >= cap)
                out["gsprt"][who[gstop]] = np.where(g1[gstop], 1, np.where(g0[gstop], 0, -1))
                out["gsprt_sets"][who[gstop]] = done
                live_g[who[gstop]] = False
            if not (live | live_g).any():
                break
    return {**out, "covered": covered, "disagree": disagree}


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
        "--population", action="append", choices=list(POPULATIONS), help="only this population"
    )
    ap.add_argument("--design", type=int, action="append", help="only the designs numbered so")
    args = ap.parse_args(argv)

    scores = load_or_play(args.sets_file, args.play, args.workers)
    dists = {pair: histogram(s) for pair, s in scores.items()}
    for pair, s in scores.items():
        d = dists[pair]
        print(
            f"{pair:>5}: {' vs '.join(PAIRS[pair][:2])} (third {PAIRS[pair][2]}), "
            f"{len(s)} sets, mean {mean(d):.4f}, sd {sd(d):.4f}, "
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
        "\n| p0 | p1 | max sets | population | true p | sd | accepts H1 | target | mean sets "
        "| / fixed n | any valid test >= | p90 sets | undecided | shown CI covered "
        f"| verdict vs CI disagree | GSPRT accepts H1 | GSPRT mean sets |\n|{'---|' * 17}"
    )
    print(header)
    t0 = time.perf_counter()
    row = 0
    for number, (p0, p1, max_sets) in enumerate(DESIGNS, 1):
        if args.design and number not in args.design:
            continue
        design = Design(p0, p1, args.alpha, args.beta, max_sets or args.max_sets)
        rates = (
            (p0, f"≤ {args.alpha}"),
            ((p0 + p1) / 2, "-"),
            (p1, f"≥ {1 - args.beta:g}"),
            (p1 + 0.05, f"≥ {1 - args.beta:g}"),
            (p1 + 0.2, f"≥ {1 - args.beta:g}"),
        )
        for family in args.population or POPULATIONS:
            make = POPULATIONS[family]
            plan = POPULATIONS["tilted" if family == "lopsided" else family]
            n_fix = fixed_n(sd(plan(dists, p0)), sd(plan(dists, p1)), design)
            edge = ((mean(dists["edge"]), f"≥ {1 - args.beta:g}"),)
            for p, target in edge if family == "lopsided" else rates:
                if family != "lopsided" and (p > 0.85 or (family == "mixture" and p > 0.75)):
                    continue  # beyond what the population can be tilted or mixed to
                dist = make(dists, p)
                if design.max_sets != args.max_sets:  # error rates are for untruncated tests
                    target = "-"
                row += 1
                r = simulate(dist, design, args.tests, args.seed * 1000 + row)
                n = args.tests
                decided = r["decision"] >= 0
                mean_sets = r["sets"][decided].mean() if decided.any() else math.nan
                g_decided = r["gsprt"] >= 0
                g_sets = r["gsprt_sets"][g_decided].mean() if g_decided.any() else math.nan
                least = fewest_sets(dist, design)
                print(
                    f"| {p0:.2f} | {p1:.2f} | {design.max_sets} | {family} | {mean(dist):.4f} "
                    f"| {sd(dist):.3f} | {rate_with_error(int((r['decision'] == 1).sum()), n)} "
                    f"| {target} | {mean_sets:.1f} | {mean_sets / n_fix:.2f} "
                    f"| {'-' if least is None else f'{least:.1f} ({least / n_fix:.2f})'} "
                    f"| {np.percentile(r['sets'], 90):.0f} | {int((~decided).sum())} "
                    f"| {rate_with_error(int(r['covered'].sum()), n)} "
                    f"| {int(r['disagree'].sum())} "
                    f"| {rate_with_error(int((r['gsprt'] == 1).sum()), n)} | {g_sets:.1f} |",
                    flush=True,
                )
    print(f"\n{row} rows of {args.tests} tests in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
