"""More evidence per set? The same sets rated from their places and from their scores, side by
side, in the bench's world: sets to Kendall's tau >= 0.95 and the coverage of the shown 95 %
intervals of each.

Usage: ``python bench/ladder_scores.py [--quick] [--sizes 30,100] [--reps R] [--bot-luck B]
[--schedules ladder,random triples] [--seed S]``.

The places are rated by :class:`arena.ladder.LadderRatings` (the ladder's model); the scores
by :class:`ScoreRatings`, a linear model of duplicate scores: in each set a bot's mean score
over the six matches, less the mean of the three, is its strength less the mean of the
three's plus noise; least squares, with the cluster-robust (jackknife) variance over sets, the
same centre (the plain mean of the bots with two sets or more) and the same Student t as the
ladder's table. The score of a match is the bot's performance in it
(:func:`ladder_model.play_set_scored`): its log-strength plus its luck, of which the places are
the order, so the scores' strengths are on the places' scale and the truth is known for both.
That is the most a score consistent with Plackett-Luce places can tell; what real points tell
beyond places is measured on a real ladder's database (``bench/ladder_information.py --db``).
The schedule is driven by the places' ratings in every run, so both estimators rate the very
same sets.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # type: ignore[import-untyped]  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder_model import (  # noqa: E402
    Picker,
    World,
    ladder_rule,
    play_set_scored,
    random_triples,
    strengths,
)

from arena.ladder import SetResult  # noqa: E402
from arena.ladder.policy import Ladder  # noqa: E402
from arena.stats import BASE, ELO_SCALE  # noqa: E402
from arena.stats import intervals as ivals  # noqa: E402

CENTRE = np.eye(3) - 1.0 / 3.0


class ScoreRatings:
    """Strengths from duplicate scores: per set, each bot's mean score less the set's mean
    is ``theta_i - mean(theta of the three)`` plus noise. Batch least squares over every set
    (the strengths' mean fixed at 0), intervals from the cluster-robust variance over sets
    in its jackknife form, against the plain mean of the bots with two sets or more."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.bots: list[tuple[int, int, int]] = []
        self.y: list[np.ndarray] = []
        self.theta = np.zeros(n)
        self.sets = np.zeros(n, dtype=np.int64)

    def add(self, bots: tuple[int, int, int], scores: np.ndarray) -> None:
        """One set: its bots and their scores per match ``(matches, 3)``."""
        mean = np.asarray(scores, float).mean(axis=0)
        self.bots.append(bots)
        self.y.append(mean - mean.mean())
        self.sets[list(bots)] += 1

    def fit(self, jackknife: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The strengths (mean 0) and their cluster-robust covariance (each set's residual
        scaled by its own leverage, as the ladder's table does, or the plain sandwich)."""
        t = np.asarray(self.bots, dtype=np.int64)
        y = np.asarray(self.y)
        a = np.zeros((self.n, self.n))
        np.add.at(a, (t[:, :, None], t[:, None, :]), np.broadcast_to(CENTRE, (len(t), 3, 3)))
        b = np.bincount(t.ravel(), y.ravel(), minlength=self.n)
        # a's null space: the mean (and any bot without a set); cut roundoff's tiny eigenvalues
        inv = np.linalg.pinv(a, rcond=1e-10, hermitian=True)
        theta = inv @ b
        resid = y - (theta[t] - theta[t].mean(axis=1, keepdims=True))
        hat = CENTRE @ inv[t[:, :, None], t[:, None, :]] @ CENTRE
        star = (
            (np.linalg.pinv(np.eye(3) - hat) @ resid[:, :, None])[:, :, 0] if jackknife else resid
        )
        star -= star.mean(axis=1, keepdims=True)
        meat = np.zeros((self.n, self.n))
        np.add.at(meat, (t[:, :, None], t[:, None, :]), star[:, :, None] * star[:, None, :])
        self.theta = theta
        return theta, inv @ meat @ inv

    def intervals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each bot's estimate against the centre, its 95 % half-width (nan: not shown, under
        two sets) and the centre's weights."""
        theta, cov = self.fit()
        rated = self.sets >= ivals.MIN_UNITS
        w = (rated if rated.any() else np.ones(self.n, bool)).astype(float)
        w /= w.sum()
        contrast = np.eye(self.n) - w[None, :]
        var = np.einsum("ij,jk,ik->i", contrast, cov, contrast)
        q = np.asarray([ivals.t_quantile(float(max(s, 2) - 1)) for s in self.sets])
        half = np.where(rated, q * np.sqrt(np.maximum(var, 0)), np.nan)
        return theta - w @ theta, half, w


@dataclass
class Side:
    """One estimator's checkpoints in one run."""

    tau: list[float] = field(default_factory=list)
    covered: int = 0
    rated: int = 0


def covered(est: np.ndarray, half: np.ndarray, truth: np.ndarray, w: np.ndarray) -> tuple[int, int]:
    """Intervals (``est ± half``, logits against the centre ``w``) holding the truth, and shown."""
    true = truth - w @ truth
    shown = ~np.isnan(half)
    return int((np.abs(est - true)[shown] <= half[shown]).sum()), int(shown.sum())


def run(
    n: int, pick: Picker, budget: int, every: int, seed: int, world: World
) -> tuple[list[int], Side, Side]:
    """One field played ``budget`` sets under ``pick`` (the ladder's places drive it): the
    checkpoints, and the places' and the scores' tau and coverage."""
    truth = strengths(n, 1.5, seed, spaced=False)
    lad = Ladder(seed=seed)
    for b in range(n):
        lad.join(b)
    prng, play = np.random.default_rng([seed, 6]), np.random.default_rng([seed, 5])
    scores = ScoreRatings(n)
    sets, places, scored = [], Side(), Side()
    for s in range(1, budget + 1):
        triple = pick(lad, prng)
        chosen = lad.next_set() if triple is None else lad.schedule(triple)
        result, perf = play_set_scored(truth[list(chosen.bots)], play, world)
        lad.record(SetResult(chosen.bots, result))
        scores.add(chosen.bots, perf)
        if s % every:
            continue
        sets.append(s)
        est, half, w = scores.intervals()
        places.tau.append(float(stats.kendalltau(lad.ratings.theta, truth)[0]))
        scored.tau.append(float(stats.kendalltau(est, truth)[0]))
        if s >= budget // 4:
            lines = lad.ratings.standings(list(range(n)))
            pw = lad.ratings.centre()
            pe = np.asarray([(x.rating - BASE) / ELO_SCALE for x in lines])
            ph = np.asarray(
                [
                    np.nan if x.low is None or x.high is None else (x.high - x.low) / 2 / ELO_SCALE
                    for x in lines
                ]
            )
            for side, cells in (
                (places, covered(pe, ph, truth, pw)),
                (scored, covered(est, half, truth, w)),
            ):
                side.covered += cells[0]
                side.rated += cells[1]
    return sets, places, scored


def first(sets: list[int], runs: list[Side]) -> str:
    """The first checkpoint at which the mean tau of the runs reaches 0.95."""
    for i, s in enumerate(sets):
        if statistics.mean(r.tau[i] for r in runs) >= 0.95:
            return str(s)
    return f"> {sets[-1]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 12, short budgets (seconds)")
    ap.add_argument("--sizes", default="30,100")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bot-luck", type=float, default=0.3)
    ap.add_argument("--schedules", default="ladder,random triples")
    ap.add_argument("--budget", type=int, help="sets per run (default 40 a bot)")
    args = ap.parse_args(argv)
    picks = {"ladder": ladder_rule, "random triples": random_triples}
    names = args.schedules.split(",")
    if set(names) - set(picks):
        print(
            f"error: --schedules takes ladder and/or random triples, not {args.schedules!r}",
            file=sys.stderr,
        )
        return 1
    sizes = [12] if args.quick else [int(x) for x in args.sizes.split(",")]
    reps = 2 if args.quick else args.reps
    world = World(bot_luck=args.bot_luck)
    print(f"# bench/ladder_scores.py sizes={sizes} reps={reps} {world}")
    for n in sizes:
        budget = 240 if args.quick else args.budget or 40 * n
        every = max(10, n // 3)
        for name in names:
            got = [run(n, picks[name], budget, every, args.seed + r, world) for r in range(reps)]
            sets = got[0][0]
            for label, k in (("places", 1), ("scores", 2)):
                sides = [g[k] for g in got]
                cov = sum(x.covered for x in sides) / max(1, sum(x.rated for x in sides))
                print(
                    f"n={n:<4} {name:<15} {label}  tau>=0.95: {first(sets, sides):>7}"
                    f"  tau at {sets[-1]}: {statistics.mean(x.tau[-1] for x in sides):.3f}"
                    f"  coverage: {cov:.3f} ({sum(x.rated for x in sides)})",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
