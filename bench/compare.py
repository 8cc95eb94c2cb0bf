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


def skewed(p: float) -> np.ndarray:
    """A pair that usually wins its set narrowly (the score just above ``12 p``) and now and
    then loses a whole set (score 0), just often enough for a mean of ``p``: at ``p = 0.55``,
    7/12 in 94.3 % of sets and 0 in 5.7 %. What a bot with a rare deal-triggered bug looks
    like; its scores are far from symmetric, which a bet from the mean and variance alone
    misjudges."""
    top = (math.floor(HALF_POINTS * p + 1e-9) + 1) / HALF_POINTS
    result = np.zeros(HALF_POINTS + 1)
    result[round(top * HALF_POINTS)] = p / top
    result[0] += 1 - p / top
    return result


def sd(dist: np.ndarray) -> float:
    """The standard deviation of a set's score."""
    return math.sqrt(float(dist @ (SET_SCORES - mean(dist)) ** 2))


def fixed_n(sd0: float, sd1: float, design: Design) -> float:
    """Sets a fixed-sample (normal) test of the same error rates needs: ``((z_a sd0 + z_b
    sd1) / (p1 - p0))^2`` with the spread of a set's score at ``p0`` and at ``p1``."""
    za, zb = stats.norm.ppf(1 - design.alpha), stats.norm.ppf(1 - design.beta)
    return float(((za * sd0 + zb * sd1) / (design.p1 - design.p0)) ** 2)


def kl_inf(dist: np.ndarray, m: float, side: int, best: bool = False) -> float:
    """How fast any valid test can gain evidence against "the rate is at most ``m``" (side +1)
    or "at least ``m``" (side -1) when set scores follow ``dist``: the least Kullback-Leibler
    divergence from ``dist`` to a distribution on [0, 1] with such a mean. By the duality of
    Honda and Takemura (2010) it is the best expected log growth of one bet,
    ``max E log(1 + side * lam * (x - m))`` over the bets a gambler can make without risking
    more than its capital: ``0 <= lam <= 1 / m`` (``1 / (1 - m)`` for side -1), since the
    next set may score 0 (or 1). With ``best``, the maximising bet instead."""
    top = 1 / m if side > 0 else 1 / (1 - m)

    def loss(lam: float) -> float:
        return -float(dist @ np.log1p(side * lam * (SET_SCORES - m)))

    found = optimize.minimize_scalar(loss, bounds=(0.0, top * (1 - 1e-9)), method="bounded")
    return float(found.x) if best else float(-found.fun)


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
    "skewed": lambda d, p: skewed(p),
    "skewed-mirror": lambda d, p: mirrored(skewed(1 - p)),
}
"""Each population as a function of the played distributions and the rate ``p``."""


# --- 3. simulated tests -----------------------------------------------------------------------


def agrapa(sets: int, total: np.ndarray, spread: np.ndarray, design: Design) -> tuple[Any, Any]:
    """The bets of this test before (aGRAPA, the Kelly approximation ``r / (variance + r^2)``
    from the running mean and variance), for comparison with :func:`arena.stats.betting.bets`."""
    n = sets + 1.0
    mu, var = (0.5 + total) / n, (0.25 + spread) / n
    rise = np.maximum(mu, design.p1) - design.p0
    fall = design.p1 - np.minimum(mu, design.p0)
    return rise / (var + rise**2), fall / (var + fall**2)


def oracle_bets(dist: np.ndarray, design: Design) -> tuple[float, float]:
    """The best constant bets for ``dist``, known in advance (the maximisers of
    :func:`kl_inf`): a valid one-sided test no bet learnt from the sets can beat by much. Only
    the side the true rate lies on bets (at or beyond ``p1``: against ``p <= p0``; at or
    below ``p0``: against ``p >= p1``); between them, neither."""
    p = mean(dist)
    up = kl_inf(dist, design.p0, +1, best=True) if p >= design.p1 - 1e-9 else 0.0
    down = kl_inf(dist, design.p1, -1, best=True) if p <= design.p0 + 1e-9 else 0.0
    return up, down


TESTS = ("arena", "aGRAPA", "oracle")
"""The tests run side by side on the same sets: the product's, the one it replaced, the oracle."""


def simulate(
    dist: np.ndarray, design: Design, tests: int, seed: int, chunk: int = 256
) -> dict[str, np.ndarray]:
    """Run ``tests`` sequential tests on set scores drawn from ``dist``, three side by side on
    the same sets (:data:`TESTS`): the product's gamblers (``arena.stats.betting``'s own
    :func:`bets` and :func:`capped`, vectorised), the aGRAPA bets it replaced, and the oracle's
    constant bets (:func:`oracle_bets`).

    Returns per test and kind: the decision (1 = H1, 0 = H0, -1 = none within
    ``design.max_sets``) and the sets it took; for the product's test, whether its interval at
    the stop contains the true rate (it does when neither gambler betting at the true rate
    reached its bound: the capital is monotone in the rate) and whether the verdict and the
    interval disagreed.
    """
    rng = np.random.default_rng(seed)
    p = mean(dist)
    cap = design.max_sets or 100_000
    out: dict[str, np.ndarray] = {}
    for kind in TESTS:
        out[f"{kind}:decision"] = np.full(tests, -1)
        out[f"{kind}:sets"] = np.full(tests, cap)
    covered = np.zeros(tests, dtype=bool)
    disagree = np.zeros(tests, dtype=bool)
    counts = np.zeros((tests, HALF_POINTS + 1))
    total, spread = np.zeros(tests), np.zeros(tests)
    # log capital of each kind: at p0 (up), at p1 (down); the product's also at the true rate
    capital = {kind: np.zeros((2, tests)) for kind in TESTS}
    at_p = np.zeros((2, tests))
    bars = (-math.log(design.alpha), -math.log(design.beta))
    live = {kind: np.ones(tests, dtype=bool) for kind in TESTS}
    oracle = oracle_bets(dist, design)
    done = 0
    while any(v.any() for v in live.values()) and done < cap:
        block = rng.choice(HALF_POINTS + 1, size=(tests, min(chunk, cap - done)), p=dist)
        for j in range(block.shape[1]):
            k = block[:, j]
            x = SET_SCORES[k]
            chosen = {
                "arena": bets(SET_SCORES, counts, design.p0, design.p1),
                "aGRAPA": agrapa(done, total, spread, design),
                "oracle": oracle,
            }
            for kind, (up, down) in chosen.items():
                u, _ = capped(up, down, design.p0)
                _, d = capped(up, down, design.p1)
                on = live[kind]
                capital[kind][0] += np.where(on, np.log1p(u * (x - design.p0)), 0)
                capital[kind][1] += np.where(on, np.log1p(-d * (x - design.p1)), 0)
            u, d = capped(*chosen["arena"], p)
            at_p[0] += np.where(live["arena"], np.log1p(u * (x - p)), 0)
            at_p[1] += np.where(live["arena"], np.log1p(-d * (x - p)), 0)
            total += x
            spread += (x - (0.5 + total) / (done + 2)) ** 2
            counts[np.arange(tests), k] += 1
            done += 1
            for kind in TESTS:
                c, on = capital[kind], live[kind]
                # arena.stats.sequential.signed: the gambler nearer its bound decides
                ahead = np.maximum(c[0], 0) / bars[0] >= np.maximum(c[1], 0) / bars[1]
                h1 = on & (c[0] >= bars[0]) & ahead
                h0 = on & (c[1] >= bars[1]) & ~ahead
                stop = h1 | h0 | (on & (done >= cap))
                if not stop.any():
                    continue
                out[f"{kind}:decision"][stop] = np.where(h1[stop], 1, np.where(h0[stop], 0, -1))
                out[f"{kind}:sets"][stop] = done
                if kind == "arena":
                    covered[stop] = (at_p[0, stop] < bars[0]) & (at_p[1, stop] < bars[1])
                    # H1 with a lower end at or below p0 (or H0 with an upper end at or above
                    # p1) would be a disagreement: the lower end passes p0 when c[0] crosses.
                    disagree[stop] = (h1[stop] & (c[0, stop] < bars[0])) | (
                        h0[stop] & (c[1, stop] < bars[1])
                    )
                live[kind] &= ~stop
            if not any(v.any() for v in live.values()):
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


def table_row(
    r: dict[str, np.ndarray], dist: np.ndarray, design: Design, family: str, target: str, n: int
) -> str:
    """One row of the table: the product's test, the bound, the oracle and aGRAPA on one
    population. Mean sets count an undecided test at the cap (what a user waits)."""

    def summary(kind: str) -> tuple[str, float, int]:
        decision, sets = r[f"{kind}:decision"], r[f"{kind}:sets"]
        return (
            rate_with_error(int((decision == 1).sum()), n),
            sets.mean(),
            int((decision < 0).sum()),
        )

    accepts, mean_sets, undecided = summary("arena")
    _, oracle_sets, oracle_undecided = summary("oracle")
    old_accepts, old_sets, old_undecided = summary("aGRAPA")
    least = fewest_sets(dist, design)
    oracle = "-" if oracle_undecided == n else f"{oracle_sets:.1f}"
    ratio = "-" if oracle_undecided == n else f"{mean_sets / oracle_sets:.2f}"
    return (
        f"| {design.p0:.2f} | {design.p1:.2f} | {design.max_sets} | {family} | {mean(dist):.4f} "
        f"| {sd(dist):.3f} | {accepts} | {target} | {mean_sets:.1f} "
        f"| {np.percentile(r['arena:sets'], 90):.0f} | {undecided} "
        f"| {'-' if least is None else f'{least:.1f} ({mean_sets / least:.2f}x)'} "
        f"| {oracle} | {ratio} | {old_accepts} | {old_sets:.1f} | {old_undecided} "
        f"| {rate_with_error(int(r['covered'].sum()), n)} | {int(r['disagree'].sum())} |"
    )


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
    ap.add_argument("--tests", type=int, default=400, help="simulated tests per row")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument(
        "--max-sets", type=int, default=1000, help="cap per simulated test (arena compare's)"
    )
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
        "| p90 sets | undecided | any valid test >= | oracle bet: mean sets | arena / oracle "
        "| aGRAPA (before): accepts H1 | aGRAPA mean sets | aGRAPA undecided "
        f"| shown CI covered | verdict vs CI disagree |\n|{'---|' * 19}"
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
            edge = ((mean(dists["edge"]), f"≥ {1 - args.beta:g}"),)
            for p, target in edge if family == "lopsided" else rates:
                if family != "lopsided" and (p > 0.85 or (family == "mixture" and p > 0.75)):
                    continue  # beyond what the population can be tilted or mixed to
                dist = make(dists, p)
                if design.max_sets != args.max_sets:  # error rates are for untruncated tests
                    target = "-"
                row += 1
                r = simulate(dist, design, args.tests, args.seed * 1000 + row)
                print(table_row(r, dist, design, family, target, args.tests), flush=True)
    print(f"\n{row} rows of {args.tests} tests in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
