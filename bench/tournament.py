"""Tournament throughput: wall time of a round robin of 6 instant bots with 1 and 2 workers.

Run by hand (a benchmark, not a test)::

    python bench/tournament.py                # 2 rounds: 240 matches per run, ~1 min
    python bench/tournament.py --rounds 1 --repeat 1

Everything is the real thing: the bots are sandboxed processes from ``arena.sandbox``, the
matches run in forked worker processes, and every batch is written to a fresh SQLite file by
the parent. The six bots answer at once (uniform random legal actions, each with its own
name), so the figure measures the arena's cost per match, not the bots' thinking.
The configurations take turns (1 worker, 2 workers, 1, 2, ...) so that drift in this shared
machine's load hits both alike; the median wall time of each is reported, with the speed-up
(target: 2 workers >= 1.8x one worker on 2 cores) and the other processes' load meanwhile.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from arena.engine import Rules
from arena.sandbox import Limits
from arena.store import Store
from arena.tournament import plan, register_files, run

BOT = """import random


class Bot:
    name = "instant-{k}"

    def act(self, obs):
        return random.choice(obs["legal"])
"""


def one_run(workdir: Path, files: list[Path], rounds: int, workers: int, tag: str) -> float:
    """Wall seconds of playing (and storing) the whole tournament into a fresh database."""
    store = Store(workdir / f"{tag}.db")
    limits = Limits().to_dict()
    versions = register_files(store, files)
    the_plan = plan(store, versions, rounds=rounds, seed=1, rules=Rules(), limits=limits)
    started = time.perf_counter()
    result = run(store, the_plan, workers=workers, console=Console(quiet=True))
    seconds = time.perf_counter() - started
    assert result.completed and result.played == the_plan.total
    store.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds (120 matches each)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per worker count")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        workdir = Path(tmp)
        files = []
        for k in range(6):
            path = workdir / f"instant_{k}.py"
            path.write_text(BOT.format(k=k), encoding="utf-8")
            files.append(path)
        times: dict[int, list[float]] = {1: [], 2: []}
        load_before = os.getloadavg()[0]
        for rep in range(args.repeat):
            for workers in (1, 2):
                times[workers].append(
                    one_run(workdir, files, args.rounds, workers, f"w{workers}-{rep}")
                )
        load_after = os.getloadavg()[0]
    matches = 20 * 6 * args.rounds
    print(f"{matches} matches of 6 instant bots (C(6,3)=20 sets x {args.rounds} rounds x 6)")
    for workers, ts in times.items():
        med = statistics.median(ts)
        print(
            f"  {workers} worker{'s' if workers > 1 else ' '}: median {med:6.2f} s "
            f"({matches / med:5.1f} matches/s)  runs: {', '.join(f'{t:.2f}' for t in ts)}"
        )
    speedup = statistics.median(times[1]) / statistics.median(times[2])
    print(f"  speed-up with 2 workers: {speedup:.2f}x (target >= 1.8x)")
    print(
        f"  load average before/after: {load_before:.1f}/{load_after:.1f} on {os.cpu_count()} cores"
    )
    print(f"  python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
