"""Cost of deal secrecy and of the fair-play reports: HMAC per match, verify, clone, kingmaking.

Run by hand (a benchmark, not a test)::

    python bench/secrecy.py                     # 6 bots x 20 rounds = 2,400 sandboxed matches
    python bench/secrecy.py --db arena.db       # time verify and the reports on an existing db

Part 1, per match, measured side by side in one run (interleaved repetitions, medians):
the HMAC that turns a public match seed into a deal seed, the engine's deal from an int seed vs
from the 64-hex-digit deal seed, the whole schedule with and without the secret, and, for
scale, an in-process match of random bots.

Part 2, on a real database: a tournament of instant random bots played by the real thing
(sandboxed bots, 2 worker processes, SQLite), then ``verify`` (every stored deal recomputed),
the clone report and the kingmaking table, each timed 3 times in this process (medians), and
``arena verify`` once through the console script (interpreter start-up included).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from arena.engine import Rules, deal_for, play_match
from arena.matches import scheduler
from arena.matches.secrecy import deal_seed, new_secret, verify
from arena.sandbox import Limits
from arena.store import Store
from arena.tournaments.standings import clone_report, fit_standings, kingmaking_report
from arena.tournaments.tournament import plan_round_robin, register_files, run

BOT = """import random


class Bot:
    name = "instant-{k}"

    def act(self, obs):
        return random.choice(obs["legal"])
"""


class Uniform:
    """An in-process random bot (for the scale of one match)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, obs: dict[str, object]) -> object:
        legal = obs["legal"]
        assert isinstance(legal, list)
        return legal[int(self.rng.random() * len(legal))]


def per_call(fn: Callable[[int], object], n: int) -> float:
    """Microseconds per call of ``fn(i)`` over ``n`` calls."""
    t0 = time.perf_counter()
    for i in range(n):
        fn(i)
    return (time.perf_counter() - t0) / n * 1e6


def micro(repeat: int) -> None:
    secret = new_secret()
    hexes = [deal_seed(secret, i) for i in range(2000)]
    field = [scheduler.Entrant(f"bot{k}", f"{k:064x}", k) for k in range(6)]
    timings: dict[str, list[float]] = {}
    for _ in range(repeat):  # interleaved, so drift in the machine's load hits all alike
        for name, fn, n in (
            ("HMAC deal seed (us/match)", lambda i: deal_seed(secret, i), 100_000),
            ("deal_for(int seed) (us/hand)", lambda i: deal_for(i, 0), 20_000),
            ("deal_for(hex deal seed) (us/hand)", lambda i: deal_for(hexes[i % 2000], 0), 20_000),
            (
                "schedule 2,400 matches, public (ms)",
                lambda i: list(scheduler.schedule("t", field, 20, 1)),
                10,
            ),
            (
                "schedule 2,400 matches, secret (ms)",
                lambda i: list(scheduler.schedule("t", field, 20, 1, secret)),
                10,
            ),
            (
                "in-process match, random bots (us/match)",
                lambda i: play_match([Uniform(i), Uniform(i + 1), Uniform(i + 2)], seed=i),
                300,
            ),
        ):
            us = per_call(fn, n)
            timings.setdefault(name, []).append(us / 1000 if "(ms)" in name else us)
    med = {k: statistics.median(v) for k, v in timings.items()}
    for k, v in med.items():
        print(f"{k:45s} median {v:9.2f}  (runs: {', '.join(f'{x:.2f}' for x in timings[k])})")
    hmac_us = med["HMAC deal seed (us/match)"]
    match_us = med["in-process match, random bots (us/match)"]
    print(f"HMAC / in-process match: {hmac_us / match_us:.2%}")
    public, keyed = (med[f"schedule 2,400 matches, {w} (ms)"] for w in ("public", "secret"))
    print(f"schedule with secret / without: {keyed / public:.3f}x")
    deal_int = med["deal_for(int seed) (us/hand)"]
    deal_hex = med["deal_for(hex deal seed) (us/hand)"]
    print(f"deal from hex deal seed / from int seed: {deal_hex / deal_int:.3f}x")


def build(workdir: Path, bots: int, rounds: int) -> Path:
    files = []
    for k in range(bots):
        path = workdir / f"instant_{k}.py"
        path.write_text(BOT.format(k=k), encoding="utf-8")
        files.append(path)
    db = workdir / "arena.db"
    with Store(db) as store:
        versions = register_files(store, files)
        the_plan = plan_round_robin(
            store, versions, rounds=rounds, seed=1, rules=Rules(), limits=Limits().to_dict()
        )
        result = run(store, the_plan, workers=2)
        assert result.completed
        print(f"played {result.played} sandboxed matches in {result.seconds:.1f} s")
    return db


def reports(db: Path, repeat: int) -> None:
    with Store(db, create=False) as store:
        tid = store.tournament().id
        hands = store.hand_count(tid)
        table = fit_standings(store, tid)
        ratings = {s.bot: s.rating for s in table}
        timings: dict[str, list[float]] = {}
        report = None
        for _ in range(repeat):
            for name, fn in (
                ("verify", lambda: verify(store, tid)),
                ("clone report", lambda: clone_report(store, tid)),
                ("kingmaking table", lambda: kingmaking_report(store, tid, ratings)),
                ("ratings (for scale)", lambda: fit_standings(store, tid)),
            ):
                t0 = time.perf_counter()
                out = fn()
                timings.setdefault(name, []).append(time.perf_counter() - t0)
                if name == "verify":
                    report = out
        assert report is not None
        print(f"tournament {tid}: {report.matches} matches, {hands} hands; {report.line()}")
        for k, v in timings.items():
            runs = ", ".join(f"{x:.2f}" for x in v)
            print(f"{k:20s} median {statistics.median(v):6.2f} s  (runs: {runs})")
    arena = str(Path(sys.executable).with_name("arena"))
    t0 = time.perf_counter()
    done = subprocess.run([arena, "verify", "--db", str(db)], capture_output=True, text=True)
    print(f"arena verify (console script): {time.perf_counter() - t0:.2f} s: {done.stdout.strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--db", type=Path, default=None, help="time an existing database")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores shared)")
    micro(args.repeat)
    if args.db is not None:
        reports(args.db, args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = build(Path(tmp), args.bots, args.rounds)
        reports(db, args.repeat)


if __name__ == "__main__":
    main()
