"""Measured coverage of every interval the standings show, on tournaments simulated from a
known model.

Run by hand (a benchmark, not a test)::

    python bench/coverage.py                       # every scenario, 100 tournaments each
    python bench/coverage.py --code both --before-reps 200   # and main's code, side by side
    python bench/coverage.py --scenario 3-bots-10-rounds --reps 500

Each scenario is a duplicate round robin (every set of three bots, ``rounds`` deals, each
played in all six seatings) drawn from a known model; the arena's own
:func:`arena.stats.compute` (the one the terminal, ``--json`` and the site show) rates it,
and every interval is compared with the true value on the same scale:

- **rating**: the two-sided 95 % interval of each rated bot against its true rating (true
  strength minus the mean true strength of the bots the table centres on);
- **bound**: the one-sided 95 % bound of a bot that never placed above (below) the rated
  bots, against its true rating (a bot that always faults has none: any bound covers);
- **pairwise**: each placed-above interval against the true rate;
- **duplicate**: each bot's duplicate score interval (``arena.stats.duplicate.duplicate_scores``,
  what ``arena standings`` and the site show) against its exact expected duplicate score.
  The simulated points are the place's points plus the luck of the cards held in that seat
  (shared by the unit's six seatings: what duplicate scoring cancels) and noise;
- **kingmaking**: the share of tournaments in which ``arena.stats.collusion.kingmaking_rows`` (on
  the arena's own ratings) flags no pair. Nobody helps anybody in the model, so every flag
  is a false alarm; at most 5 % of tournaments may have one;
- **sequential**: ``arena compare`` of bots 0 and 1 (third: bot 2) on duplicate sets drawn
  from the same model, H0 ``p <= 0.50`` against H1 ``p >= 0.55``, at most 200 sets: the
  interval it shows when it stops (``Status.ci``) against the true placed-above rate;
  **sequential-fixed** is the fixed-sample interval read at the same moment, for comparison.

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
main's rating code (loaded from ``git show`` into a temporary package) on the same
tournaments, for the before/after table of docs/statistics.md.

Hook for more intervals: add a :class:`Check` to ``CHECKS``; it gets the standings, the
scenario's truth and the simulated tournament (:class:`Trial`), and returns (covered, total)
counts. The model itself is in ``bench/coverage_model.py``.
"""

from __future__ import annotations

import argparse
import importlib
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from arena.stats import BASE, ELO_SCALE, BotStanding, Outcomes, compute
from arena.stats.collusion import kingmaking_rows
from arena.stats.duplicate import duplicate_scores
from arena.stats.outcomes import SeatPlace
from arena.stats.sequential import (
    Design,
    SequentialTest,
    empirical_likelihood_interval,
    half_points,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from coverage_model import (  # noqa: E402  (bench/coverage_model.py)
    FAULTED,
    PERMS,
    SCENARIOS,
    Scenario,
    Truth,
    orders,
    seat_records,
    simulate,
    triples,
    truth,
)

__all__ = ["FAULTED", "PERMS", "SCENARIOS", "Scenario", "orders", "triples", "main", "run"]

# --- the checks ----------------------------------------------------------------------------


@dataclass
class Trial:
    """One simulated tournament of a scenario, with a generator for what a check draws more
    of (points, the sets of a comparison) so the tournaments themselves stay the same."""

    scenario: Scenario
    out: Outcomes
    rng: np.random.Generator
    cache: dict[str, Any] = field(default_factory=dict)


@dataclass
class Check:
    """One kind of interval: counts how many of a tournament's intervals cover the truth."""

    name: str
    run: Callable[[Sequence[Any], Truth, Trial], Counts]
    """(standings, truth, trial) -> counts."""
    of_ratings: bool = True
    """Whether it checks the standings table (else it runs once per tournament, whatever
    rating code is compared)."""


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


def check_rating(table: Sequence[Any], tr: Truth, trial: Trial | None = None) -> Counts:
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


def check_bound(table: Sequence[Any], tr: Truth, trial: Trial | None = None) -> Counts:
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


def check_pairwise(table: Sequence[Any], tr: Truth, trial: Trial | None = None) -> Counts:
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


def check_duplicate(table: Sequence[Any], tr: Truth, trial: Trial) -> Counts:
    """Every bot's duplicate-score interval against its expected duplicate score."""
    c = Counts()
    for d in duplicate_scores(seat_records(trial.out, trial.rng)):
        low, high = d.score.low, d.score.high
        if low is None or high is None:
            continue
        c.total += 1
        c.covered += low <= tr.duplicate[d.bot] <= high
        c.width += high - low
        c.widths += 1
    return c


def check_kingmaking(
    table: Sequence[Any], tr: Truth, trial: Trial, pooled_ties: bool = False
) -> Counts:
    """An honest tournament (nobody helps anybody: the model has no such effect) is not
    flagged by the kingmaking table (``arena.stats.collusion.kingmaking_rows`` on the arena's own
    ratings): one count per tournament, covered when no pair is flagged. At most 5 % of
    tournaments may be flagged (the table's family-wise level). With ``pooled_ties``, the
    expectation before (one share of each way of sharing places for every trio and order),
    on the same tournaments (``kingmaking-before``)."""
    rated = {s.bot: s.rating for s in table if s.rating is not None}
    out = trial.out
    seats = [
        SeatPlace(
            str(m),
            str(out.unit[m]),
            0,
            seat,
            out.ids[int(out.bots[m, seat])],
            int(out.places[m, seat]),
            0,
        )
        for m in range(len(out.unit))
        for seat in range(3)
    ]
    rows = kingmaking_rows(seats, rated, pooled_ties=pooled_ties)
    return Counts(int(not any(r.flagged for r in rows)), 1) if rows else Counts()


def check_kingmaking_before(table: Sequence[Any], tr: Truth, trial: Trial) -> Counts:
    """:func:`check_kingmaking` with the expectation before (pooled tie shares)."""
    return check_kingmaking(table, tr, trial, pooled_ties=True)


COMPARE: Final = Design(0.50, 0.55, max_sets=200)
"""The comparison run in each tournament: the default hypotheses, at most 200 sets."""

_pair_truth: dict[Scenario, float] = {}


def _comparison(trial: Trial) -> tuple[SequentialTest, float]:
    """``arena compare`` of bots 0 and 1 (third: bot 2), on sets drawn from the scenario until
    it decides, and the true placed-above rate of 0 over 1 (cached per tournament)."""
    if "compare" in trial.cache:
        result: tuple[SequentialTest, float] = trial.cache["compare"]
        return result
    sc = trial.scenario
    pair = replace(sc, name=f"{sc.name}-pair", theta=sc.theta[:3], rounds=40)
    if sc not in _pair_truth:
        _pair_truth[sc] = float(truth(pair).rate[0, 1])
    test = SequentialTest(COMPARE)
    while test.decision is None:
        out = simulate(pair, trial.rng)
        scores = np.zeros(out.units, dtype=int)
        for m in range(len(out.unit)):
            a, b = (int(np.flatnonzero(out.bots[m] == bot)[0]) for bot in (0, 1))
            scores[out.unit[m]] += half_points(int(out.places[m, a]), int(out.places[m, b]))
        for k in scores:
            if test.add(int(k)) is not None:
                break
    trial.cache["compare"] = test, _pair_truth[sc]
    return test, _pair_truth[sc]


def _interval_check(low: float, high: float, true: float) -> Counts:
    return Counts(int(low <= true <= high), 1, high - low, 1)


def check_sequential(table: Sequence[Any], tr: Truth, trial: Trial) -> Counts:
    """The interval ``arena compare`` shows when it stops, against the true rate."""
    test, true = _comparison(trial)
    ci = test.status().ci
    return _interval_check(ci.low, ci.high, true)


def check_sequential_fixed(table: Sequence[Any], tr: Truth, trial: Trial) -> Counts:
    """The fixed-sample interval read when the same test stops (what it showed before)."""
    test, true = _comparison(trial)
    fixed = empirical_likelihood_interval(test.counts)
    return _interval_check(fixed.low, fixed.high, true)


CHECKS = [
    Check("rating", check_rating),
    Check("bound", check_bound),
    Check("pairwise", check_pairwise),
    Check("duplicate", check_duplicate, of_ratings=False),
    Check("kingmaking", check_kingmaking),
    Check("kingmaking-before", check_kingmaking_before),
    Check("sequential", check_sequential, of_ratings=False),
    Check("sequential-fixed", check_sequential_fixed, of_ratings=False),
]
"""Every interval the arena shows."""

CHECKS_SHOWN = ("duplicate", "kingmaking", "kingmaking-before", "sequential", "sequential-fixed")
"""The checks of the second table (those that do not depend on the rating code)."""


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
    """The rating code of ``ref``, loaded from temporary files (never committed): the package
    ``arena/stats/`` (its ``arena.stats`` imports renamed), or the single module
    ``arena/ratings.py`` of refs before it was split."""
    root = Path(__file__).resolve().parent.parent

    def show(path: str) -> str | None:
        done = subprocess.run(
            ["git", "show", f"{ref}:{path}"], cwd=root, capture_output=True, text=True
        )
        return done.stdout if done.returncode == 0 else None

    name = f"ratings_before_{zlib_crc(ref)}"
    where = Path(tempfile.mkdtemp())
    single = show("arena/ratings.py")
    if single is not None:
        (where / f"{name}.py").write_text(single)
    else:
        listing = subprocess.run(
            ["git", "ls-tree", "--name-only", f"{ref}:arena/ratings"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        (where / name).mkdir()
        for file in (f for f in listing if f.endswith(".py")):
            text = show(f"arena/stats/{file}") or ""
            (where / name / file).write_text(text.replace("arena.stats", name))
    sys.path.insert(0, str(where))
    return importlib.import_module(name)


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
        if not hasattr(old, "outcomes"):  # arena/ratings.py centred on all bots: so does
            for st in table:  # its truth, minus faults
                st.bound = None
        return table

    return rate


def run(
    sc: Scenario, reps: int, seed: int, raters: dict[str, Rater], reports: bool = False
) -> dict[str, Tally]:
    """Simulate ``reps`` tournaments and check every rater's intervals on each; with
    ``reports``, also the checks that do not depend on the rating code (under the first
    rater's name)."""
    tr = truth(sc)
    tallies = {name: Tally() for name in raters}
    rng = np.random.default_rng([seed, zlib_crc(sc.name)])
    extra = np.random.default_rng([seed, zlib_crc(sc.name), 1])  # the tournaments stay the same
    for _ in range(reps):
        out = simulate(sc, rng)
        trial = Trial(sc, out, extra)
        for i, (name, rate) in enumerate(raters.items()):
            t0 = time.perf_counter()
            table = rate(out)
            tallies[name].seconds += time.perf_counter() - t0
            tallies[name].tables += 1
            for check in CHECKS:
                if check.of_ratings or (reports and i == 0):
                    tallies[name].add(check.name, check.run(table, tr, trial))
    return tallies


def zlib_crc(text: str) -> int:
    """A stable small integer from a name (seeds each scenario on its own)."""
    import zlib

    return zlib.crc32(text.encode())


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=100, help="tournaments per scenario")
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
        help="git ref whose rating code (arena/stats/) is 'before' (once this is merged: "
        "the commit before the merge)",
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
    reports: list[str] = []
    for sc in chosen:
        results = {}
        if before_rater:
            reps = args.before_reps or args.reps
            results.update(run(sc, reps, args.seed, {"before": before_rater}))
        if args.code != "before":
            results.update(run(sc, args.reps, args.seed, {"after": new_rater}, reports=True))
            cells = (
                f"{results['after'].cell(c):>15} {results['after'].width(c):>6}"
                for c in CHECKS_SHOWN
            )
            reports.append(f"{sc.name:<30} {' '.join(cells)}")
        for name, t in results.items():
            print(
                f"{sc.name:<30} {name:<7} {t.cell('rating'):>15} {t.cell('pairwise'):>15} "
                f"{t.width('rating') + ' / ' + t.width('pairwise'):>20} "
                f"{t.count('bound'):>15} {t.seconds / max(1, t.tables):>8.4f}",
                flush=True,
            )
        if reports:
            print(f"{'':<30} reports {reports[-1][31:]}", flush=True)
    if reports:
        print(
            f"\nThe reports' intervals (same tournaments): duplicate score (points), and "
            f"arena compare of bots 0 and 1 ({COMPARE.p0} / {COMPARE.p1}, at most "
            f"{COMPARE.max_sets} sets) read when it stops: the interval shown, and the "
            f"fixed-sample one; kingmaking: the share of tournaments not flagged (now, and with "
            f"the expectation before: one set of tie shares for every trio)\n"
            f"{'scenario':<30} {'duplicate':>15} {'width':>6} {'kingmaking':>15} {'':>6} "
            f"{'kingmaking before':>17} {'':>4} "
            f"{'sequential':>15} {'width':>6} {'fixed-sample':>15} {'width':>6}"
        )
        print("\n".join(reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
