"""Measured coverage of every interval the standings show, on tournaments simulated from a
known model.

Run by hand (a benchmark, not a test)::

    python bench/coverage.py                       # every scenario, 2000 tournaments each
    python bench/coverage.py --code both --before-reps 200   # and main's code, side by side
    python bench/coverage.py --scenario 3-bots-10-rounds --reps 500

Each scenario is a duplicate round robin (every set of three bots, ``rounds`` deals, each
played in all six seatings) drawn from a known model; the arena's own
:func:`arena.ratings.compute` (the one the terminal, ``--json`` and the site show) rates it,
and every interval is compared with the true value on the same scale:

- **rating**: the two-sided 95 % interval of each rated bot against its true rating (true
  strength minus the mean true strength of the bots the table centres on);
- **bound**: the one-sided 95 % bound of a bot that never placed above (below) the rated
  bots, against its true rating (a bot that always faults has none: any bound covers);
- **pairwise**: each placed-above interval against the true rate.

The model, per match: with probability ``seat_luck`` the deal decides (the seats are ordered
by a Plackett-Luce draw on the seat strengths, shared by the unit's six seatings, so the luck
follows the seat: duplicate play's negative correlation); else with probability
``correlation`` the unit's shared bot order is copied (the deal suits the same bot in every
seating: positive correlation); else a fresh Plackett-Luce draw on the bots' strengths. Then
the top two share first place with probability ``tie_first``, the bottom two share second
with ``tie_second``. A faulted bot is always last. The *true* strengths are those the
Plackett-Luce fit converges to on infinitely many such matches (the fit on the exact expected
counts): with seat luck they are flatter than the drawing strengths, and they are what the
standings estimate. The true placed-above rate is computed exactly the same way.

Coverage is reported with its Monte-Carlo standard error (tournaments are the independent
replicates; the bots and pairs of one tournament are averaged first). ``--code both`` also runs
main's ``arena/ratings.py`` (loaded from ``git show`` into a temporary module) on the same
tournaments, for the before/after table of docs/statistics.md.

Hook for more intervals (issue 15: the duplicate score, the sequential test's estimate): add
a :class:`Check` to ``CHECKS``; it gets the standings, the scenario's truth and the simulated
outcomes, and returns (covered, total) counts.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from arena.ratings import BASE, ELO_SCALE, BotStanding, Outcomes, compute
from arena.ratings.model import Choices, fit_choices

PERMS = list(itertools.permutations(range(3)))
FAULTED = -math.inf


@dataclass(frozen=True)
class Scenario:
    """A tournament model: log-strengths (``FAULTED`` for a bot that always faults) and luck."""

    name: str
    theta: tuple[float, ...]
    rounds: int
    correlation: float = 0.0
    seat_luck: float = 0.0
    seats: tuple[float, float, float] = (0.3, 0.0, -0.3)
    tie_first: float = 0.0
    tie_second: float = 0.0

    @property
    def n(self) -> int:
        """Number of bots."""
        return len(self.theta)


SCENARIOS = [
    Scenario("3-bots-10-rounds", (0.5, 0.0, -0.5), 10),
    Scenario("3-bots-50-rounds", (0.5, 0.0, -0.5), 50),
    Scenario("4-bots-10-correlated", (0.6, 0.2, 0.0, -0.6), 10, correlation=0.5),
    Scenario(
        "5-bots-20-ties-seat-luck",
        (0.8, 0.3, 0.0, -0.2, -0.8),
        20,
        seat_luck=0.4,
        tie_first=0.03,
        tie_second=0.1,
    ),
    Scenario(
        "6-bots-10-everything",
        (0.9, 0.5, 0.2, 0.0, -0.4, -1.0),
        10,
        correlation=0.3,
        seat_luck=0.3,
        tie_first=0.03,
        tie_second=0.1,
    ),
    Scenario(
        "6-bots-50-everything",
        (0.9, 0.5, 0.2, 0.0, -0.4, -1.0),
        50,
        correlation=0.3,
        seat_luck=0.3,
        tie_first=0.03,
        tie_second=0.1,
    ),
    Scenario("4-bots-20-faulted", (0.4, 0.0, -0.4, FAULTED), 20, correlation=0.3, tie_second=0.1),
    Scenario("5-bots-10-weak-bot", (0.5, 0.2, 0.0, -0.3, -5.5), 10, correlation=0.3),
    Scenario("4-bots-30-duplicate-luck", (0.3, 0.1, 0.0, -0.3), 30, seat_luck=0.7),
    Scenario("3-bots-10-deal-decides", (0.5, 0.0, -0.5), 10, seat_luck=0.9),
    Scenario("3-bots-10-strong-correlation", (0.5, 0.0, -0.5), 10, correlation=0.8),
]
"""3-6 bots, 10-50 rounds; with and without correlation inside a unit, ties, seat luck, a
bot that always faults and one that rarely places above anybody. The last two are stress
cases: measured on the bundled bots, the deal decides every match between two copies of one
deterministic bot, and the six seatings of a unit are nearly independent otherwise (design
effect 1.16 for heuristic against random, i.e. a within-unit correlation near 0.03, where
``correlation=0.8`` has about 0.8)."""


# --- the model -----------------------------------------------------------------------------


def triples(n: int) -> np.ndarray:
    """Every set of three bots, ``(sets, 3)``."""
    return np.asarray(list(itertools.combinations(range(n), 3)), dtype=np.int64)


def simulate(sc: Scenario, rng: np.random.Generator) -> Outcomes:
    """One tournament drawn from the scenario, as the arena's :class:`Outcomes`."""
    sets = triples(sc.n)
    units = len(sets) * sc.rounds
    members = np.repeat(sets, sc.rounds, axis=0)  # (units, 3)
    perm = np.asarray(PERMS)  # (6, 3): seat -> member slot
    unit = np.repeat(np.arange(units), 6)
    slot = np.tile(perm, (units, 1))  # (matches, 3)
    bots = np.take_along_axis(members[unit], slot, axis=1)
    theta = np.asarray(sc.theta)
    faulted = np.isinf(theta[bots])
    strength = np.where(faulted, 0.0, theta[bots])
    m = len(unit)
    shared_bot = rng.gumbel(size=(units, 3))
    shared_seat = rng.gumbel(size=(units, 3))
    fresh = strength + rng.gumbel(size=(m, 3))
    copied = strength + np.take_along_axis(shared_bot[unit], slot, axis=1)
    by_seat = np.asarray(sc.seats) + shared_seat[unit]
    u = rng.random(m)[:, None]
    key = np.where(
        u < sc.seat_luck, by_seat, np.where(u < sc.seat_luck + sc.correlation, copied, fresh)
    )
    key = np.where(faulted, -np.inf, key)
    order = np.argsort(-key, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(3)[None, :].repeat(m, 0), axis=1)
    places = rank + 1
    ok = ~faulted
    top_two = np.take_along_axis(ok, order[:, :2], axis=1).all(axis=1)
    bottom_two = np.take_along_axis(ok, order[:, 1:], axis=1).all(axis=1)
    v = rng.random(m)
    tie1 = (v < sc.tie_first) & top_two
    tie2 = (v >= sc.tie_first) & (v < sc.tie_first + sc.tie_second) & bottom_two
    places = np.where(tie1[:, None] & (places == 2), 1, places)
    places = np.where(tie2[:, None] & (places == 3), 2, places)
    both_faulted = faulted.sum(axis=1) == 2
    places = np.where(both_faulted[:, None] & (places == 3), 2, places)
    faults = np.bincount(bots[faulted], minlength=sc.n)
    return Outcomes(tuple(range(sc.n)), unit, bots, places, faults, units)


def orders(sc: Scenario, seated: Sequence[int]) -> list[tuple[tuple[int, ...], float]]:
    """Exact distribution of one match's finishing order (best first) for bots seated at
    seats 0, 1, 2; faulted bots always last."""
    theta = [sc.theta[b] for b in seated]
    alive = [s for s in range(3) if not math.isinf(theta[s])]
    dead = [s for s in range(3) if math.isinf(theta[s])]

    def pl(weights: list[float]) -> dict[tuple[int, ...], float]:
        out = {}
        for o in itertools.permutations(alive):
            p, left = 1.0, list(alive)
            for s in o:
                p *= math.exp(weights[s]) / sum(math.exp(weights[r]) for r in left)
                left.remove(s)
            out[o] = p
        return out

    by_bot, by_seat = pl(theta), pl(list(sc.seats))
    return [
        (
            tuple(seated[s] for s in o + tuple(dead)),
            sc.seat_luck * by_seat[o] + (1 - sc.seat_luck) * by_bot[o],
        )
        for o in by_bot
    ]


@dataclass
class Truth:
    """The scenario's true log-strengths (``-inf`` for a faulted bot) and placed-above rates."""

    theta: np.ndarray
    rate: np.ndarray  # rate[a, b]: a placed above b (ties one half)


def truth(sc: Scenario) -> Truth:
    """Exact expected choices and pairwise results of one round, and the fit on them."""
    n = sc.n
    counts: dict[tuple[int, ...], float] = {}
    above = np.zeros((n, n))
    met = np.zeros((n, n))
    for members in triples(n):
        for perm in PERMS:
            seated = [int(members[s]) for s in perm]
            dead = {b for b in seated if math.isinf(sc.theta[b])}
            for o, p in orders(sc, seated):
                x, y, z = o
                t1 = sc.tie_first if not ({x, y} & dead) else 0.0
                t2 = sc.tie_second if not ({y, z} & dead) else 0.0
                if {y, z} <= dead:
                    t1, t2 = 0.0, 1.0
                for places, q in (((1, 1, 3), t1), ((1, 2, 2), t2), ((1, 2, 3), 1 - t1 - t2)):
                    if q <= 0:
                        continue
                    w = p * q
                    if places[0] < places[1]:
                        key = (x, *sorted((y, z)))
                        counts[key] = counts.get(key, 0.0) + w
                        if places[1] < places[2]:
                            counts[(y, z, -1)] = counts.get((y, z, -1), 0.0) + w
                    for i, j in itertools.permutations(range(3), 2):
                        a, b = o[i], o[j]
                        met[a, b] += w
                        above[a, b] += w * (
                            1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                        )
    alive = [b for b in range(n) if not math.isinf(sc.theta[b])]
    index = {b: i for i, b in enumerate(alive)}
    rows, weights = [], []
    for key, w in counts.items():
        if key[0] in index and key[1] in index:
            rows.append([index[key[0]], index[key[1]], index.get(key[2], -1)])
            weights.append(w)
    fitted = fit_choices(Choices(np.asarray(rows), np.asarray(weights)), len(alive))
    theta = np.full(n, -np.inf)
    theta[alive] = fitted
    with np.errstate(invalid="ignore"):
        return Truth(theta, above / met)


# --- the checks ----------------------------------------------------------------------------


@dataclass
class Check:
    """One kind of interval: counts how many of a tournament's intervals cover the truth."""

    name: str
    run: Callable[[Sequence[Any], Truth], Counts]
    """(standings, truth) -> counts."""


@dataclass
class Counts:
    """A tournament's intervals of one kind: how many cover, of how many; summed widths of
    the two-sided ones, and how many those are."""

    covered: int = 0
    total: int = 0
    width: float = 0.0
    widths: int = 0


def _rated(table: Sequence[Any]) -> list[Any]:
    return [s for s in table if getattr(s, "bound", None) is None and _ok(s.rating_low)]


def _centre(table: Sequence[Any], tr: Truth) -> float:
    """The true strength at the centre of the table's scale: the same weighted mean of the
    same bots as the table's own centre (main's code: the plain mean of every bot)."""
    rated = [s for s in table if getattr(s, "weight", 1.0) > 0 and s.rating is not None]
    weights = np.asarray([getattr(s, "weight", 1.0) for s in rated])
    return float(np.dot(weights, [tr.theta[s.bot] for s in rated]) / weights.sum())


def _ok(x: float | None) -> bool:
    return x is not None and not math.isnan(x)


def check_rating(table: Sequence[Any], tr: Truth) -> Counts:
    """Every rating interval and one-sided bound shown, against the true rating (true
    strength minus the true centre). A bound counts here too: whether a weak bot gets an
    interval or a bound depends on its luck, and coverage is over both outcomes. A bot that
    always faults is left out, like a pair with a true rate of 0 or 1: any bound covers it."""
    c = Counts()
    if not _rated(table):
        return c
    centre = _centre(table, tr)
    if not math.isfinite(centre):  # main's code centres on a faulted bot too: undefined
        return c
    for s in table:
        true = BASE + (tr.theta[s.bot] - centre) * ELO_SCALE
        if math.isinf(true):  # a bot that always faults: every bound covers it
            continue
        low, high = s.rating_low, s.rating_high
        bound = getattr(s, "bound", None)
        if bound is None and _ok(low) and _ok(high):
            c.width += high - low
            c.widths += 1
        elif not (bound == "upper" and _ok(high) or bound == "lower" and _ok(low)):
            continue
        c.total += 1
        c.covered += (not _ok(low) or low <= true) and (not _ok(high) or true <= high)
    return c


def check_bound(table: Sequence[Any], tr: Truth) -> Counts:
    """The one-sided bounds alone (a part of ``rating``), given that a bound was shown. A
    bot that always faults (true strength minus infinity) is left out, since every bound
    covers it. Not a coverage figure: like any exact test, a bound shown only after a rare
    run of losses misses more often than not; what it guarantees is that a bound that
    misses is shown in at most 5 % of tournaments (so ``rating`` stays at 95 %)."""
    c = Counts()
    if not _rated(table):
        return c
    centre = _centre(table, tr)
    if not math.isfinite(centre):  # main's code centres on a faulted bot too: undefined
        return c
    for s in table:
        bound = getattr(s, "bound", None)
        true = BASE + (tr.theta[s.bot] - centre) * ELO_SCALE
        if math.isinf(true):
            continue
        if bound == "upper" and _ok(s.rating_high):
            c.total += 1
            c.covered += true <= s.rating_high
        elif bound == "lower" and _ok(s.rating_low):
            c.total += 1
            c.covered += true >= s.rating_low
    return c


def check_pairwise(table: Sequence[Any], tr: Truth) -> Counts:
    """Placed-above intervals against the true rate. Pairs whose true rate is exactly 0 or 1
    (against a bot that always faults) are left out: any interval reaching the boundary
    covers them, which says nothing about calibration."""
    c = Counts()
    for s in table:
        for o, p in s.above.items():
            low, high = (p.low, p.high) if hasattr(p, "low") else (p["low"], p["high"])
            if not (_ok(low) and _ok(high)) or tr.rate[s.bot, o] in (0.0, 1.0):
                continue
            c.total += 1
            c.covered += low - 1e-12 <= tr.rate[s.bot, o] <= high + 1e-12
            c.width += high - low
            c.widths += 1
    return c


CHECKS = [
    Check("rating", check_rating),
    Check("bound", check_bound),
    Check("pairwise", check_pairwise),
]
"""Every interval the standings show. Issue 15's duplicate score and sequential-test
estimate get a Check each here when they exist."""


# --- running -------------------------------------------------------------------------------


@dataclass
class Tally:
    """Per check: the per-tournament coverage fractions and widths."""

    fractions: dict[str, list[float]] = field(default_factory=dict)
    widths: dict[str, list[float]] = field(default_factory=dict)
    shown: dict[str, list[int]] = field(default_factory=dict)
    tables: int = 0
    seconds: float = 0.0

    def add(self, name: str, c: Counts) -> None:
        """Record one tournament."""
        if c.total:
            self.fractions.setdefault(name, []).append(c.covered / c.total)
            self.shown.setdefault(name, [0, 0])
            self.shown[name][0] += c.covered
            self.shown[name][1] += c.total
        if c.widths:
            self.widths.setdefault(name, []).append(c.width / c.widths)

    def count(self, name: str) -> str:
        """``covered/shown`` over all tournaments."""
        covered, total = self.shown.get(name, [0, 0])
        return f"{covered}/{total}" if total else "-"

    def cell(self, name: str) -> str:
        """``0.951 ± 0.005 (n)`` or ``-``."""
        f = self.fractions.get(name, [])
        if not f:
            return "-"
        se = float(np.std(f, ddof=1) / math.sqrt(len(f))) if len(f) > 1 else math.nan
        return f"{np.mean(f):.3f} ± {se:.3f}"

    def width(self, name: str) -> str:
        """Mean interval width."""
        w = self.widths.get(name, [])
        return f"{np.mean(w):.3g}" if w else "-"


Rater = Callable[[Outcomes], Sequence[Any]]


def new_rater(out: Outcomes) -> Sequence[BotStanding]:
    """The arena's own standings."""
    return compute(out, {b: f"b{b}" for b in out.ids})


def main_ratings(ref: str = "main") -> Any:
    """The rating module of ``ref`` (``git show ref:arena/ratings.py``), loaded from a
    temporary file (never committed)."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(
        ["git", "show", f"{ref}:arena/ratings.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "ratings_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ratings_before", path)
    assert spec and spec.loader
    old = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = old  # dataclasses look their module up while it loads
    spec.loader.exec_module(old)
    return old


def old_rater(ref: str = "main") -> Rater:
    """Main's standings (see :func:`main_ratings`) on simulated outcomes."""
    old = main_ratings(ref)

    def rate(out: Outcomes) -> Sequence[Any]:
        seats = [
            old.SeatResult(
                f"m{m}", str(out.unit[m]), int(out.bots[m, s]), int(out.places[m, s]), False
            )
            for m in range(len(out.unit))
            for s in range(3)
        ]
        table = old.compute(seats, {b: f"b{b}" for b in out.ids})
        for st in table:  # the old code centres on all bots: so does its truth, minus faults
            st.bound = None
        return table

    return rate


def run(sc: Scenario, reps: int, seed: int, raters: dict[str, Rater]) -> dict[str, Tally]:
    """Simulate ``reps`` tournaments and check every rater's intervals on each."""
    tr = truth(sc)
    tallies = {name: Tally() for name in raters}
    rng = np.random.default_rng([seed, zlib_crc(sc.name)])
    for _ in range(reps):
        out = simulate(sc, rng)
        for name, rate in raters.items():
            t0 = time.perf_counter()
            table = rate(out)
            tallies[name].seconds += time.perf_counter() - t0
            tallies[name].tables += 1
            for check in CHECKS:
                tallies[name].add(check.name, check.run(table, tr))
    return tallies


def zlib_crc(text: str) -> int:
    """A stable small integer from a name (seeds each scenario on its own)."""
    import zlib

    return zlib.crc32(text.encode())


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000, help="tournaments per scenario")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", action="append", help="only this scenario (repeatable)")
    ap.add_argument(
        "--code",
        choices=["after", "before", "both"],
        default="after",
        help="rate with this branch's code (after), main's (before) or both",
    )
    ap.add_argument("--before-reps", type=int, help="tournaments for main's (slow) code")
    ap.add_argument(
        "--before-ref",
        default="main",
        help="git ref whose arena/ratings.py is 'before' (once this is merged: the commit "
        "before the merge, e.g. 11de8a4)",
    )
    args = ap.parse_args(argv)
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    if not chosen:
        print(f"no such scenario; known: {', '.join(s.name for s in SCENARIOS)}", file=sys.stderr)
        return 2
    print(f"95 % intervals: observed coverage ± Monte-Carlo s.e. over {args.reps} tournaments")
    print(
        f"{'scenario':<30} {'code':<7} {'rating':>15} {'pairwise':>15} "
        f"{'width (Elo / rate)':>20} {'bounds covered':>15} {'s/table':>8}"
    )
    before_rater = old_rater(args.before_ref) if args.code != "after" else None
    for sc in chosen:
        results = {}
        if before_rater:
            reps = args.before_reps or args.reps
            results.update(run(sc, reps, args.seed, {"before": before_rater}))
        if args.code != "before":
            results.update(run(sc, args.reps, args.seed, {"after": new_rater}))
        for name, t in results.items():
            print(
                f"{sc.name:<30} {name:<7} {t.cell('rating'):>15} {t.cell('pairwise'):>15} "
                f"{t.width('rating') + ' / ' + t.width('pairwise'):>20} "
                f"{t.count('bound'):>15} {t.seconds / max(1, t.tables):>8.4f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
