"""The ladder's scheduler and incremental ratings against the baselines, in simulation (no
engine): how many duplicate sets each schedule needs, how honest the shown intervals are,
what a newcomer's interval says, and what a step costs.

Usage: ``python bench/ladder.py [--quick] [--sizes 30,100] [--layouts random,spaced]
[--bot-luck B] [--reps R] [--trials T] [--seed S] [--warm W] [--schedules a,b] [--no-newcomer]
[--no-cost]``.

Synthetic bots with known Plackett-Luce strengths (drawn at random, or evenly spaced) play
duplicate sets with shared deal luck, a bot-by-deal effect duplicate play cannot cancel
(``--bot-luck``) and ties (``bench/ladder_model.py``). Every schedule is rated by the same
:class:`arena.ladder.LadderRatings` on the same seeds, so only the choice of sets differs:
the ladder's rule, random triples, neighbour matchmaking, TrueSkill/openskill match quality,
an oracle fed the true strengths and (``n <= 30``) the round robin. Measured, per field size
``n`` and layout:

- **cold**: all bots join at once; the sets until Kendall's tau against the truth reaches
  0.95 (mean over the runs), until the shown top 10 is the true top 10 in the true order in
  at least 90 % of the runs (first, and from then on at every checkpoint: ``stays``); the
  longest wait of any bot; the coverage of the shown 95 % intervals; the slope of the
  ratings against the truth at a quarter of the budget and at its end.
- **newcomer**: a field warmed up by random sets (``--warm`` times ``n``), then one new bot
  under each schedule; at its 5th, 10th, 20th and 40th set the rms distance of its shown
  rating from the truth, the median half-width of its interval and how many intervals held
  the truth; the sets until its interval is narrower than ±50 and stays so.
- **cost**: the scheduler's time per step and the rating update's per set, at the largest
  ``n``.

BLAS runs on one thread (set before numpy loads): a 2-core machine shared with other jobs
ran the ``n = 1000`` fit five times slower with OpenBLAS's default threads.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import copy  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Final  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # type: ignore[import-untyped]  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder_model import (  # noqa: E402
    Picker,
    World,
    focal_random_pairs,
    ladder_rule,
    match_quality,
    neighbour_matchmaking,
    play_set,
    random_triples,
    round_robin,
    strengths,
    truth_bracketing,
    truth_neighbours,
)

from arena.ladder import SetResult  # noqa: E402
from arena.ladder.policy import Ladder  # noqa: E402
from arena.stats import BASE, ELO_SCALE  # noqa: E402

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
    centre, the plain mean of the rated bots), and intervals shown."""
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
    n: int, seed: int, spread: float, streams: tuple[int, int] = (6, 5), spaced: bool = False
) -> tuple[np.ndarray, Ladder, Run, tuple[np.random.Generator, np.random.Generator]]:
    """``n`` bots of true strengths drawn from ``seed`` (at random, or evenly ``spaced``)
    joined to a new ladder, an empty run, and the two random streams (the picks' and the
    matches') named by ``streams``."""
    truth = strengths(n, spread, seed, spaced)
    lad = Ladder(seed=seed)
    for b in range(n):
        lad.join(b)
    rngs = (np.random.default_rng([seed, streams[0]]), np.random.default_rng([seed, streams[1]]))
    return truth, lad, Run(), rngs


@dataclass(frozen=True)
class Setup:
    """The simulated world of a run: how sets are played, the true strengths' spread and
    whether they are evenly spaced or drawn at random."""

    world: World
    spread: float = 1.5
    spaced: bool = False

    def label(self) -> str:
        """The strengths' layout, as the tables print it."""
        return "spaced" if self.spaced else "random"


def cold(n: int, pick: Picker, budget: int, every: int, seed: int, setup: Setup) -> Run:
    """All bots join at step 0; checkpoints every ``every`` sets up to ``budget``."""
    truth, lad, run, rngs = field_of(n, seed, setup.spread, spaced=setup.spaced)
    true_top = np.argsort(-truth)[:TOP].tolist()
    for s in range(1, budget + 1):
        step(lad, pick, truth, rngs, setup.world, run)
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


def stays(sets: list[int], ok: list[bool]) -> str:
    """The first checkpoint from which ``ok`` holds at every later one, or ``> last``."""
    k = len(ok)
    while k and ok[k - 1]:
        k -= 1
    return str(sets[k]) if k < len(sets) else f"> {sets[-1]}" if sets else "-"


COLD: Final = ("ladder", "random triples", "neighbours", "match quality", "truth oracle")
NEW: Final = ("ladder", "random pairs", "neighbours", "match quality", "truth oracle")


def cold_picker(name: str, n: int, seed: int, setup: Setup) -> Picker:
    """The schedule ``name`` for a field of ``n`` from ``seed`` (the oracle is fed its truth)."""
    if name == "truth oracle":
        return truth_neighbours(strengths(n, setup.spread, seed, setup.spaced))
    if name == "round robin":
        return round_robin(n, seed)
    return {
        "ladder": ladder_rule,
        "random triples": random_triples,
        "neighbours": neighbour_matchmaking,
        "match quality": match_quality,
    }[name]


def cold_table(
    n: int, budget: int, reps: int, seed: int, setup: Setup, only: frozenset[str] | None = None
) -> dict[str, list[Run]]:
    """Print the cold-start line of each schedule (of ``only``, if given) at size ``n``, the
    same seeds for each."""
    every = max(10, n // 3)
    names = [*COLD, "round robin"] if n <= 30 else list(COLD)
    names = [x for x in names if only is None or x in only]
    out = {}
    for name in names:
        out[name] = [
            cold(n, cold_picker(name, n, seed + r, setup), budget, every, seed + r, setup)
            for r in range(reps)
        ]
        _print_cold(n, name, out[name], setup)
    return out


def _print_cold(n: int, name: str, runs: list[Run], setup: Setup) -> None:
    sets = runs[0].sets
    top = [statistics.mean(r.top_ok[i] for r in runs) >= 0.9 for i in range(len(sets))]
    tau = [statistics.mean(r.tau[i] for r in runs) >= 0.95 for i in range(len(sets))]
    cov = sum(r.covered for r in runs) / max(1, sum(r.rated for r in runs))
    final_tau = statistics.mean(r.tau[-1] for r in runs)
    print(
        f"cold n={n:<5} {setup.label()} {name:<15} top10: {first(sets, top):>8}"
        f"  stays: {stays(sets, top):>8}  tau>=0.95: {first(sets, tau):>8}"
        f"  tau at {sets[-1]}: {final_tau:.3f}  max wait: {max(r.max_wait for r in runs):>5}"
        f"  coverage: {cov:.3f} ({sum(r.rated for r in runs)})"
        f"  slope at {sets[len(sets) // 4]}/{sets[-1]}:"
        f" {statistics.mean(r.slope[len(sets) // 4] for r in runs):.3f}"
        f"/{statistics.mean(r.slope[-1] for r in runs):.3f}",
        flush=True,
    )


def warmed(n: int, sets: int, seed: int, setup: Setup) -> tuple[Ladder, np.ndarray]:
    """A field of ``n`` bots measured by ``sets`` random sets."""
    truth, lad, run, rngs = field_of(n, seed, setup.spread, (8, 9), setup.spaced)
    for _ in range(sets):
        step(lad, random_triples, truth, rngs, setup.world, run)
    lad.ratings.refit()
    return lad, truth


@dataclass
class Newcomer:
    """One new bot's course under one schedule: per set of its own, the shown rating's error
    against the truth, the interval's half-width (None while none is shown) and whether it
    held the truth; and the sets scheduled before its first."""

    before: int = 0
    error: list[float] = field(default_factory=list)
    half: list[float | None] = field(default_factory=list)
    held: list[bool] = field(default_factory=list)

    def narrow_at(self) -> int:
        """The first of its sets from which the interval stays narrower than ±50 for
        ``STAYS`` more (0: not within its sets)."""
        narrow = [h is not None and h < HALF_WIDTH for h in self.half]
        for k in range(len(narrow) - STAYS):
            if all(narrow[k : k + STAYS + 1]):
                return k + 1
        return 0


def newcomer(
    base: Ladder, truth: np.ndarray, name: str, trial: int, setup: Setup, sets: int
) -> Newcomer:
    """One new bot (strength drawn like the field's) joins a copy of the field and plays
    ``sets`` sets under schedule ``name``."""
    lad = copy.deepcopy(base)
    new = lad.ratings.n
    rng = np.random.default_rng([lad.seed, 100, trial])
    truth = np.append(truth, rng.normal() * setup.spread)
    lad.join(new)
    picks: dict[str, Picker] = {
        "ladder": ladder_rule,
        "random pairs": focal_random_pairs(new),
        "neighbours": neighbour_matchmaking,
        "match quality": match_quality,
        "truth oracle": truth_bracketing(new, truth),
    }
    run, rngs = Run(), (np.random.default_rng([lad.seed, 101, trial]), rng)
    got = Newcomer()
    while len(got.error) < sets:
        bots = step(lad, picks[name], truth, rngs, setup.world, run)
        if new not in bots:
            got.before += not got.error
            continue
        line = lad.ratings.standings([new])[0]
        true = BASE + ELO_SCALE * (truth[new] - float(lad.ratings.centre() @ truth))
        got.error.append(line.rating - true)
        shown = line.low is not None and line.high is not None
        got.half.append((line.high - line.low) / 2 if shown else None)  # type: ignore[operator]
        got.held.append(shown and line.low <= true <= line.high)  # type: ignore[operator]
    return got


AT: Final = (5, 10, 20, 40)
"""The newcomer's sets at which its true error and shown interval are reported."""


def newcomer_table(
    n: int, trials: int, seed: int, setup: Setup, warm: int = 10, only: frozenset[str] | None = None
) -> None:
    """Print the newcomer line of each schedule at size ``n``, the field measured first by
    ``warm * n`` random sets (``3 * warm`` sets a bot): the sets to a ±50 interval, and at
    its 5th to 40th set its rms error against the truth, its median shown half-width and
    how often the interval held the truth."""
    base, truth = warmed(n, warm * n, seed, setup)
    length = max(AT) + STAYS
    for name in (x for x in NEW if only is None or x in only):
        got = [newcomer(base, truth, name, t, setup, length) for t in range(trials)]
        reached = [g.narrow_at() for g in got if g.narrow_at()]
        med = statistics.median(reached) if reached else float("nan")
        cells = []
        for k in AT:
            rms = math.sqrt(statistics.mean(g.error[k - 1] ** 2 for g in got))
            halves = [g.half[k - 1] for g in got if g.half[k - 1] is not None]
            half = statistics.median(halves) if halves else float("nan")  # type: ignore[type-var]
            held = sum(g.held[k - 1] for g in got)
            cells.append(f"{k}: {rms:.0f}/{half:.0f}/{held}")
        print(
            f"new  n={n:<5} {setup.label()} {name:<15} sets to +-50: median {med:.1f},"
            f" max {max(reached, default=0)} ({len(reached)}/{trials} within {max(AT)})"
            f"  sets before its first: max {max(g.before for g in got)}"
            f"  set: rms error/half-width/held of {trials}  {'  '.join(cells)}",
            flush=True,
        )


def cost_table(n: int, sets: int, seed: int, setup: Setup) -> None:
    """Print the scheduler's and the update's cost per set at size ``n`` (ladder rule)."""
    truth, lad, run, rngs = field_of(n, seed, setup.spread, spaced=setup.spaced)
    scored = []
    for _ in range(sets):
        step(lad, ladder_rule, truth, rngs, setup.world, run)
    for _ in range(200):  # the steps measured: past the start, every bot provisional no more
        t0 = time.perf_counter()
        pick = lad.next_set()
        run.pick_ms.append(1000 * (time.perf_counter() - t0))
        scored.append(pick.scored)
        lad.record(SetResult(pick.bots, play_set(truth[list(pick.bots)], rngs[1], setup.world)))
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


def budget_of(n: int) -> int:
    """Sets played from a cold start at size ``n``."""
    return 40 * n if n <= 100 else 15 * n if n <= 300 else 10 * n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 12 only, short budgets (seconds)")
    ap.add_argument("--sizes", default="30,100", help="field sizes (default 30,100)")
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
        "--layouts",
        default="random,spaced",
        help="true strengths drawn at random and/or evenly spaced (default random,spaced)",
    )
    ap.add_argument(
        "--luck", type=float, default=World.luck, help="chance a seat's luck is the deal's"
    )
    ap.add_argument(
        "--bot-luck",
        type=float,
        default=0.3,
        help="chance a bot's luck in a match is its own for the whole set: the bot-by-deal"
        " effect duplicate play cannot cancel (default 0.3: a set then tells about what the"
        " model counts, bench/ladder_information.py; 0 is the old, easier world)",
    )
    ap.add_argument("--no-cost", action="store_true", help="skip the cost line")
    ap.add_argument(
        "--schedules", help="only these schedules, separated by commas (default: every one)"
    )
    ap.add_argument("--no-newcomer", action="store_true", help="skip the newcomer lines")
    ap.add_argument(
        "--budget",
        type=int,
        help="sets from a cold start (default 40 a bot up to 100 bots, 15 to 300, 10 beyond)",
    )
    args = ap.parse_args(argv)
    try:
        sizes = [12] if args.quick else [int(x) for x in args.sizes.split(",")]
    except ValueError:
        print(
            f"error: --sizes takes numbers separated by commas, not {args.sizes!r}", file=sys.stderr
        )
        return 1
    only = frozenset(args.schedules.split(",")) if args.schedules else None
    if only is not None and only - {*COLD, *NEW, "round robin"}:
        print(f"error: --schedules names unknown schedules: {args.schedules!r}", file=sys.stderr)
        return 1
    layouts = args.layouts.split(",")
    if not layouts or set(layouts) - {"random", "spaced"}:
        print(f"error: --layouts takes random and/or spaced, not {args.layouts!r}", file=sys.stderr)
        return 1
    if min(sizes) < TOP + 1 and not args.quick:
        print(f"error: every size must exceed {TOP}", file=sys.stderr)
        return 1
    world = World(luck=args.luck, bot_luck=args.bot_luck)
    reps, trials = (2, 2) if args.quick else (args.reps, args.trials)
    print(
        f"# bench/ladder.py sizes={sizes} reps={reps} trials={trials} warm={args.warm} {world}"
        f" layouts={layouts} load {load()}"
    )
    for n in sizes:
        for layout in layouts:
            setup = Setup(world, args.spread, layout == "spaced")
            budget = 240 if args.quick else args.budget or budget_of(n)
            cold_table(n, budget, reps if n < 1000 else 1, args.seed, setup, only)
            if not args.no_newcomer:
                newcomer_table(n, trials, args.seed, setup, max(1, args.warm), only)
    if not args.no_cost:
        setup = Setup(world, args.spread, layouts[0] == "spaced")
        cost_table(max(sizes), 100 if args.quick else 3 * max(sizes), args.seed, setup)
    print(f"# load {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
