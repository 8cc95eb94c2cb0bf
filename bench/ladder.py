"""The ladder's scheduler and incremental ratings, in simulation (no engine): how many
duplicate sets each schedule needs, how honest the shown intervals are, and what a step costs.

Usage: ``python bench/ladder.py [--quick] [--sizes 30,300,1000] [--reps R] [--seed S]
[--warm W]``.

Synthetic bots with known Plackett-Luce strengths play duplicate sets with shared deal luck
and ties (``bench/ladder_model.py``). Every schedule is rated by the same
:class:`arena.ladder.LadderRatings`, so only the choice of sets differs. Measured, per field
size ``n``:

- **cold**: all bots join at once; the sets until (b) the shown top 10 is the true top 10 in
  the true order in at least 90 % of the runs and (c) Kendall's tau against the truth
  reaches 0.95 (mean over the runs), for the ladder's rule, uniformly random triples,
  rating-neighbour matchmaking and (``n <= 30``) the duplicate round robin; the largest wait
  of any bot; the coverage of the shown 95 % intervals under each schedule; the slope of
  the ratings against the truth at a quarter of the budget and at its end (above 1: the ends
  of the table shown further out than they are, the estimate's bias with few sets per bot).
- **newcomer**: a field warmed up by random sets (``--warm`` times ``n``), then one new
  bot; the sets it plays until its shown interval is narrower than ±50 rating points, and
  the sets scheduled before its first, for the ladder, the newcomer against random pairs,
  neighbour matchmaking and an oracle that knows every true strength (the newcomer between
  its nearest bots in truth: the fewest sets any choice of partners could give); and, under
  the ladder, how far the newcomers really are from the truth after 12 of their sets
  against the spread their intervals claim (an honest ±50 needs an error of about 23
  points rms).
- **cost**: the scheduler's time per step and the rating update's per set (its full fit
  apart), at the largest ``n``.

BLAS runs on one thread (set before numpy loads): a 2-core machine shared with other jobs
ran the ``n = 1000`` fit five times slower with OpenBLAS's default threads.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import copy  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # type: ignore[import-untyped]  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder_model import (  # noqa: E402
    Picker,
    World,
    focal_random_pairs,
    ladder_rule,
    neighbour_matchmaking,
    play_set,
    random_triples,
    round_robin,
    strengths,
    truth_bracketing,
)

from arena.ladder import SetResult  # noqa: E402
from arena.ladder.policy import Ladder  # noqa: E402
from arena.stats import BASE, ELO_SCALE  # noqa: E402
from arena.stats import intervals as ivals  # noqa: E402

TOP = 10
HALF_WIDTH = 50.0
STAYS = 5
"""A newcomer's interval counts as narrow once it stays so for this many more of its sets
(with a bot's first few sets the cluster-robust spread is itself noisy, and can dip once)."""


@dataclass
class Run:
    """One schedule played on one field: its checkpoints and what it cost."""

    sets: list[int] = field(default_factory=list)
    tau: list[float] = field(default_factory=list)
    top_ok: list[bool] = field(default_factory=list)
    slope: list[float] = field(default_factory=list)
    covered: int = 0
    rated: int = 0
    max_wait: int = 0
    pick_ms: list[float] = field(default_factory=list)
    update_ms: list[float] = field(default_factory=list)
    refit_ms: list[float] = field(default_factory=list)


def coverage(lad: Ladder, truth: np.ndarray) -> tuple[int, int]:
    """Shown intervals containing the truth (the true log-strength against the same
    weighted centre), and intervals shown."""
    w = lad.ratings.centre()
    true = truth[np.asarray(lad.ratings.ids)]
    centre = float(w @ true)
    hit = total = 0
    for line in lad.ratings.standings():
        if line.low is None or line.high is None:
            continue
        value = BASE + ELO_SCALE * (truth[line.bot] - centre)
        total += 1
        hit += line.low <= value <= line.high
    return hit, total


def step(
    lad: Ladder, pick: Picker, truth: np.ndarray, rngs: tuple, world: World, run: Run
) -> tuple[int, ...]:
    """Schedule, play and count one set; returns its bots."""
    prng, play = rngs
    t0 = time.perf_counter()
    triple = pick(lad, prng)
    waits = None if triple is None else [lad.wait(b) for b in triple]
    chosen = lad.next_set() if triple is None else lad.schedule(triple)
    t1 = time.perf_counter()
    if waits is None:  # the rule already scheduled it: its bots' waits ended the step before
        waits = [chosen.step - lad.entries[b].last for b in chosen.bots]
    run.max_wait = max(run.max_wait, *waits)
    fits = lad.ratings._refit_at
    lad.record(SetResult(chosen.bots, play_set(truth[list(chosen.bots)], play, world)))
    t2 = time.perf_counter()
    refit = lad.ratings._refit_at != fits
    run.pick_ms.append(1000 * (t1 - t0))
    (run.refit_ms if refit else run.update_ms).append(1000 * (t2 - t1))
    return chosen.bots


def field_of(
    n: int, seed: int, spread: float, streams: tuple[int, int] = (6, 5)
) -> tuple[np.ndarray, Ladder, Run, tuple[np.random.Generator, np.random.Generator]]:
    """``n`` bots of true strengths drawn from ``seed`` joined to a new ladder, an empty run,
    and the two random streams (the picks' and the matches') named by ``streams``."""
    truth = strengths(n, spread, seed)
    lad = Ladder(seed=seed)
    for b in range(n):
        lad.join(b)
    rngs = (np.random.default_rng([seed, streams[0]]), np.random.default_rng([seed, streams[1]]))
    return truth, lad, Run(), rngs


def cold(
    n: int, pick: Picker, budget: int, every: int, seed: int, world: World, spread: float
) -> Run:
    """All bots join at step 0; checkpoints every ``every`` sets up to ``budget``."""
    truth, lad, run, rngs = field_of(n, seed, spread)
    true_top = np.argsort(-truth)[:TOP].tolist()
    for s in range(1, budget + 1):
        step(lad, pick, truth, rngs, world, run)
        if s % every:
            continue
        theta = lad.ratings.theta
        run.sets.append(s)
        run.tau.append(float(stats.kendalltau(theta, truth)[0]))
        run.top_ok.append(np.argsort(-theta)[:TOP].tolist() == true_top)
        run.slope.append(float(np.polyfit(truth, theta, 1)[0]))
        if s >= budget // 4:  # coverage once every bot has a few sets
            hit, total = coverage(lad, truth)
            run.covered, run.rated = run.covered + hit, run.rated + total
    never = [lad.wait(b) for b in lad.active()]
    run.max_wait = max(run.max_wait, *never)
    return run


def first(sets: list[int], ok: list[bool]) -> str:
    """The first checkpoint where ``ok`` holds, or ``> last``."""
    for s, good in zip(sets, ok, strict=True):
        if good:
            return str(s)
    return f"> {sets[-1]}" if sets else "-"


def cold_table(n: int, budget: int, reps: int, seed: int, world: World, spread: float) -> None:
    """Print the cold-start line of each schedule at size ``n``."""
    every = max(10, n // 3)
    schedules: list[tuple[str, Callable[[int], Picker]]] = [
        ("ladder", lambda r: ladder_rule),
        ("random triples", lambda r: random_triples),
        ("neighbours", lambda r: neighbour_matchmaking),
    ]
    if n <= 30:  # C(n, 3) triples: only a small field has a round robin to speak of
        schedules.append(("round robin", lambda r: round_robin(n, seed + r)))
    for name, make in schedules:
        runs = [cold(n, make(r), budget, every, seed + r, world, spread) for r in range(reps)]
        _print_cold(n, name, runs)


def _print_cold(n: int, name: str, runs: list[Run]) -> None:
    sets = runs[0].sets
    top = [statistics.mean(r.top_ok[i] for r in runs) >= 0.9 for i in range(len(sets))]
    tau = [statistics.mean(r.tau[i] for r in runs) >= 0.95 for i in range(len(sets))]
    cov = sum(r.covered for r in runs) / max(1, sum(r.rated for r in runs))
    final_tau = statistics.mean(r.tau[-1] for r in runs)
    print(
        f"cold n={n:<5} {name:<15} top10: {first(sets, top):>8}  tau>=0.95: {first(sets, tau):>8}"
        f"  tau at {sets[-1]}: {final_tau:.3f}  max wait: {max(r.max_wait for r in runs):>5}"
        f"  coverage: {cov:.3f} ({sum(r.rated for r in runs)})"
        f"  slope at {sets[len(sets) // 4]}/{sets[-1]}:"
        f" {statistics.mean(r.slope[len(sets) // 4] for r in runs):.3f}"
        f"/{statistics.mean(r.slope[-1] for r in runs):.3f}",
        flush=True,
    )


def warmed(n: int, sets: int, seed: int, world: World, spread: float) -> tuple[Ladder, np.ndarray]:
    """A field of ``n`` bots measured by ``sets`` random sets."""
    truth, lad, run, rngs = field_of(n, seed, spread, (8, 9))
    for _ in range(sets):
        step(lad, random_triples, truth, rngs, world, run)
    lad.ratings.refit()
    return lad, truth


def newcomer(
    base: Ladder, truth: np.ndarray, name: str, trial: int, world: World, spread: float
) -> tuple[int, int, bool]:
    """One new bot joins a copy of the field: (sets scheduled before its first, sets it
    played until its interval stayed narrower than ±50, 0 if not within 60; whether that
    interval held its true rating)."""
    lad = copy.deepcopy(base)
    new = lad.ratings.n
    rng = np.random.default_rng([lad.seed, 100, trial])
    truth = np.append(truth, rng.normal() * spread)
    lad.join(new)
    picks: dict[str, Picker] = {
        "ladder": ladder_rule,
        "random pairs": focal_random_pairs(new),
        "neighbours": neighbour_matchmaking,
        "truth oracle": truth_bracketing(new, truth),
    }
    run, rngs = Run(), (np.random.default_rng([lad.seed, 101, trial]), rng)
    before = played = 0
    narrow: list[bool] = []
    held: list[bool] = []
    while played < 60 + STAYS and not (len(narrow) > STAYS and all(narrow[-STAYS - 1 :])):
        bots = step(lad, picks[name], truth, rngs, world, run)
        if new not in bots:
            before += played == 0
            continue
        played += 1
        line = lad.ratings.standings([new])[0]
        ok = line.low is not None and line.high is not None
        narrow.append(ok and line.high - line.low < 2 * HALF_WIDTH)
        true = BASE + ELO_SCALE * (truth[new] - float(lad.ratings.centre() @ truth))
        held.append(ok and line.low <= true <= line.high)
    for k in range(60):  # the first of its sets from which the interval stays narrow
        if all(narrow[k : k + STAYS + 1]):
            return before, k + 1, held[k]
    return before, 0, False


def newcomer_table(
    n: int, trials: int, seed: int, world: World, spread: float, warm: int = 10
) -> None:
    """Print the newcomer line of each schedule at size ``n``, the field measured first by
    ``warm * n`` random sets (``3 * warm`` sets a bot)."""
    base, truth = warmed(n, warm * n, seed, world, spread)
    for name in ("ladder", "random pairs", "neighbours", "truth oracle"):
        got = [newcomer(base, truth, name, t, world, spread) for t in range(trials)]
        reached = [p for _, p, _ in got if p]
        med = statistics.median(reached) if reached else float("nan")
        print(
            f"new  n={n:<5} {name:<15} sets to +-50: median {med:.1f},"
            f" max {max(reached, default=0)} ({len(reached)}/{trials} within 60)"
            f"  sets before its first: max {max(b for b, _, _ in got)}"
            f"  interval then held the truth: {sum(h for _, _, h in got)}/{len(reached)}",
            flush=True,
        )
    newcomer_error(base, truth, trials, world, spread)


def newcomer_error(
    base: Ladder, truth: np.ndarray, trials: int, world: World, spread: float, at: int = 12
) -> None:
    """Print how far the ladder's newcomers really are from the truth after ``at`` of their
    sets, against the spread their shown intervals claim: whether an interval of ±50 at that
    point could be honest. A z-score sd above 1 means the shown interval is not too wide."""
    errors, sds, held = [], [], 0
    for trial in range(trials):
        lad = copy.deepcopy(base)
        new = lad.ratings.n
        rng = np.random.default_rng([lad.seed, 100, trial])
        full = np.append(truth, rng.normal() * spread)
        lad.join(new)
        played, run = 0, Run()
        rngs = (np.random.default_rng([lad.seed, 101, trial]), rng)
        while played < at:
            played += new in step(lad, ladder_rule, full, rngs, world, run)
        line = lad.ratings.standings([new])[0]
        if line.low is None or line.high is None:
            continue
        true = BASE + ELO_SCALE * (full[new] - float(lad.ratings.centre() @ full))
        errors.append(line.rating - true)
        sds.append((line.high - line.low) / 2 / ivals.t_quantile(at - 1.0))
        held += line.low <= true <= line.high
    rms = float(np.sqrt(np.mean(np.square(errors))))
    z = float(np.sqrt(np.mean(np.square(np.asarray(errors) / np.asarray(sds)))))
    print(
        f"err  n={base.ratings.n:<5} ladder          after {at} sets: rms error {rms:.0f} points,"
        f" shown sd {float(np.sqrt(np.mean(np.square(sds)))):.0f} (z-score sd {z:.2f}),"
        f" interval held the truth {held}/{len(errors)}; an honest ±{HALF_WIDTH:.0f} needs an rms"
        f" error under {HALF_WIDTH / ivals.t_quantile(at - 1.0):.0f}",
        flush=True,
    )


def cost_table(n: int, sets: int, seed: int, world: World, spread: float) -> None:
    """Print the scheduler's and the update's cost per set at size ``n`` (ladder rule)."""
    truth, lad, run, rngs = field_of(n, seed, spread)
    scored = []
    for _ in range(sets):
        step(lad, ladder_rule, truth, rngs, world, run)
    for _ in range(200):  # the steps measured: past the start, every bot provisional no more
        t0 = time.perf_counter()
        pick = lad.next_set()
        run.pick_ms.append(1000 * (time.perf_counter() - t0))
        scored.append(pick.scored)
        lad.record(SetResult(pick.bots, play_set(truth[list(pick.bots)], rngs[1], world)))
    t0 = time.perf_counter()
    lad.ratings.standings()
    table = 1000 * (time.perf_counter() - t0)
    late = run.pick_ms[-200:]
    print(
        f"cost n={n:<5} pick: median {statistics.median(late):.2f} ms, max {max(late):.2f} ms,"
        f" triples scored median {statistics.median(scored):.0f}; update: median"
        f" {statistics.median(run.update_ms):.2f} ms;"
        f" full fit: mean {statistics.mean(run.refit_ms or [0.0]):.0f} ms"
        f" every {lad.ratings.refit_every} sets; table with intervals: {table:.0f} ms",
        flush=True,
    )


def load() -> str:
    """The machine's load average (other jobs share it)."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 30 only, short budgets (seconds)")
    ap.add_argument("--sizes", default="30,300,1000", help="field sizes (default 30,300,1000)")
    ap.add_argument("--reps", type=int, default=3, help="runs per schedule for the cold start")
    ap.add_argument("--trials", type=int, default=12, help="newcomers per schedule")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--warm",
        type=int,
        default=10,
        help="the newcomer's field is first measured by WARM x n random sets (default 10)",
    )
    ap.add_argument("--spread", type=float, default=1.5, help="sd of the true log-strengths")
    ap.add_argument(
        "--luck", type=float, default=World.luck, help="chance a seat's luck is the deal's"
    )
    args = ap.parse_args(argv)
    try:
        sizes = [12] if args.quick else [int(x) for x in args.sizes.split(",")]
    except ValueError:
        print(
            f"error: --sizes takes numbers separated by commas, not {args.sizes!r}", file=sys.stderr
        )
        return 1
    if min(sizes) < TOP + 1 and not args.quick:
        print(f"error: every size must exceed {TOP}", file=sys.stderr)
        return 1
    world = World(luck=args.luck)
    reps, trials = (2, 2) if args.quick else (args.reps, args.trials)
    print(
        f"# bench/ladder.py sizes={sizes} reps={reps} trials={trials} warm={args.warm} {world}"
        f" load {load()}"
    )
    for n in sizes:
        budget = 60 * n if n <= 30 else 50 * n if n <= 300 else 10 * n
        if args.quick:
            budget = 240
        cold_table(n, budget, reps if n < 1000 else 1, args.seed, world, args.spread)
        newcomer_table(n, trials, args.seed, world, args.spread, max(1, args.warm))
    cost_table(max(sizes), 100 if args.quick else 3 * max(sizes), args.seed, world, args.spread)
    print(f"# load {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
