"""Refresh time of the standings at 1k, 10k and 100k stored matches: main's code and this one,
side by side in one run.

Run by hand (a benchmark, not a test)::

    python bench/ratings.py                      # 1k, 10k, 100k matches; main's code too
    python bench/ratings.py --sizes 1000 10000 --repeat 5
    python bench/ratings.py --code after         # this code only (main's takes minutes)

A *refresh* is what ``arena run`` does at its end and ``arena standings`` when matches were
added: read the tournament's matches from the SQLite file, fit, compute every interval, write
the ``ratings`` and ``pairwise`` rows. For main's code (``git show main:arena/ratings.py``,
loaded into a temporary module, never committed) it is its ``compute`` on the rows of
``Store.seat_results``, as its ``arena standings`` did; writing its rows is left out (the new
schema would refuse them, and a few dozen rows take milliseconds). Also timed: reading the
stored standings back, which is what ``arena standings`` does when they are up to date.

The databases are real files written through :class:`arena.store.Store`: a duplicate round
robin of 8 bots (56 sets of three, six seatings each) with placings drawn from a
Plackett-Luce model with luck shared within a unit and ties (bench/coverage.py's simulator).
Times are medians of ``--repeat`` runs (main's code: one run per size unless asked), with the
other processes' load alongside, since this machine is shared.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType

import numpy as np

from arena.matches.record import MatchRecord, SeatStats
from arena.store import Store
from arena.tournaments.standings import current_standings

HERE = Path(__file__).resolve().parent


def load(name: str, path: Path) -> ModuleType:
    """A module from a file path."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def build(path: Path, matches: int, bots: int, seed: int) -> tuple[Store, str, dict[int, str]]:
    """A database with a finished tournament of about ``matches`` simulated matches."""
    cov = load("bench_coverage", HERE / "coverage.py")
    sets = len(cov.triples(bots))
    rounds = max(1, round(matches / (6 * sets)))
    theta = tuple(float(x) for x in np.linspace(0.8, -0.8, bots))
    sc = cov.Scenario("bench", theta, rounds, correlation=0.3, seat_luck=0.3, tie_second=0.1)
    out = cov.simulate(sc, np.random.default_rng(seed))
    store = Store(path)
    ids = [
        store.add_bot_version(f"bot{i}", f"class Bot: pass  # {i}", "b.py")[0].id
        for i in range(bots)
    ]
    tid = f"bench{matches:08d}"
    config = {"seed": seed, "rounds": rounds, "rules": {}, "limits": {}, "bots": []}
    store.ensure_tournament(tid, config, ids, len(out.unit))
    members = cov.triples(bots)
    records: list[MatchRecord] = []
    for m in range(len(out.unit)):
        u = int(out.unit[m])
        seated = [ids[int(b)] for b in out.bots[m]]
        places = [int(p) for p in out.places[m]]
        records.append(
            MatchRecord(
                match_id=f"{tid}-{m:07d}",
                set_key=",".join(str(ids[int(b)]) for b in members[u // rounds]),
                round=u % rounds,
                seating=m % 6,
                seed=u,
                bots=(seated[0], seated[1], seated[2]),
                scores=(10 - places[0], 10 - places[1], 10 - places[2]),
                placements=(places[0], places[1], places[2]),
                hands=(),
                truncated=False,
                faults=(),
                duration_seconds=0.01,
                stats=(SeatStats(), SeatStats(), SeatStats()),
                logs=("", "", ""),
            )
        )
        if len(records) == 5000:
            store.write_results(tid, records)
            records = []
    store.write_results(tid, records)
    store.set_status(tid, "finished")
    return store, tid, {ids[i]: f"bot{i}" for i in range(bots)}


def old_refresh(store: Store, tid: str, names: dict[int, str], ref: str) -> Callable[[], object]:
    """Main's refresh: its compute on ``Store.seat_results`` rows."""
    old = load("bench_coverage", HERE / "coverage.py").main_ratings(ref)
    rows = [dataclasses.asdict(r) for r in store.seat_results(tid)]  # main read dicts
    return lambda: old.compute(old.seat_results(rows), names)


def busy() -> float:
    """CPU seconds the whole machine has been busy so far (all cores), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall seconds of ``repeat`` calls, and the other processes' mean load (cores)."""
    walls, others = [], []
    for _ in range(repeat):
        t0, b0, c0 = time.perf_counter(), busy(), time.process_time()
        fn()
        wall = time.perf_counter() - t0
        own = time.process_time() - c0
        walls.append(wall)
        others.append(max(0.0, busy() - b0 - own) / wall)
    return statistics.median(walls), statistics.fmean(others)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--bots", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3, help="runs of this code per size")
    ap.add_argument("--before-repeat", type=int, default=1, help="runs of main's code per size")
    ap.add_argument("--code", choices=["after", "both"], default="both")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--before-ref",
        default="main",
        help="git ref whose arena/ratings.py is 'before' (once this is merged: the commit "
        "before the merge, e.g. 11de8a4)",
    )
    args = ap.parse_args(argv)
    print(
        f"{'matches':>8} {'units':>7} {'main (s)':>9} {'this (s)':>9} {'speed-up':>9} "
        f"{'read stored (s)':>16} {'other load':>11}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            store, tid, names = build(Path(tmp) / f"{size}.db", size, args.bots, args.seed)
            n = store.match_count(tid)
            units = len({r[0] for r in store.match_outcomes(tid)})
            new, load_new = timed(partial(current_standings, store, tid, refit=True), args.repeat)
            stored, _ = timed(partial(current_standings, store, tid), args.repeat)
            if args.code == "both":
                before, load_old = timed(
                    old_refresh(store, tid, names, args.before_ref), args.before_repeat
                )
                old_cell, ratio = f"{before:9.2f}", f"{before / new:8.0f}x"
            else:
                old_cell, ratio, load_old = f"{'-':>9}", f"{'-':>9}", load_new
            print(
                f"{n:>8} {units:>7} {old_cell} {new:9.3f} {ratio} {stored:16.4f} "
                f"{(load_new + load_old) / 2:10.1f}",
                flush=True,
            )
            store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
