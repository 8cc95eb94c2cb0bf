"""Tournament throughput: time to play and store a round robin of 6 instant bots, 1 vs 2 workers.

Run by hand (a benchmark, not a test)::

    python bench/tournament.py                # 5 rounds: 600 matches per run, 3 runs each
    python bench/tournament.py --rounds 1 --repeat 1

Each worker starts its own zygote per bot (about 0.15 s of CPU each, paid once per worker),
so short runs understate the speed-up; 600 matches make that start-up a small share.

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
from pathlib import Path

from arena.engine import Rules
from arena.sandbox import Limits
from arena.store import Store
from arena.tournaments.tournament import plan_round_robin, register_files, run

BOT = """import random


class Bot:
    name = "instant-{k}"

    def act(self, obs):
        return random.choice(obs["legal"])
"""


def busy_seconds() -> float:
    """CPU seconds the whole machine has been busy so far (all cores), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def one_run(
    workdir: Path, files: list[Path], rounds: int, workers: int, tag: str
) -> tuple[float, float, float]:
    """Play (and store) the whole tournament into a fresh database.

    Returns the wall seconds of playing and storing, the CPU seconds of this process and all
    its descendants (workers, bot zygotes and bots; the final standings included), and the
    cores that *other* processes kept busy meanwhile.
    """
    store = Store(workdir / f"{tag}.db")
    limits = Limits()
    versions = register_files(store, files)
    the_plan = plan_round_robin(
        store, versions, rounds=rounds, seed=1, rules=Rules(), limits=limits
    )
    t0, busy0 = os.times(), busy_seconds()
    result = run(store, the_plan, workers=workers)
    t1, busy1 = os.times(), busy_seconds()
    assert result.completed and result.played == the_plan.total
    store.close()
    # result.seconds: from the first match submitted to the last one stored, workers started
    # and stopped included; the standings computed afterwards (serial, in the parent) are not.
    seconds = result.seconds
    ours = sum(t1[:4]) - sum(t0[:4])
    return seconds, ours, max(0.0, (busy1 - busy0) - ours) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds (120 matches each)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per worker count")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        workdir = Path(tmp)
        files = []
        for k in range(6):
            path = workdir / f"instant_{k}.py"
            path.write_text(BOT.format(k=k), encoding="utf-8")
            files.append(path)
        runs: dict[int, list[tuple[float, float, float]]] = {1: [], 2: []}
        for rep in range(args.repeat):
            for workers in (1, 2):
                runs[workers].append(
                    one_run(workdir, files, args.rounds, workers, f"w{workers}-{rep}")
                )
    matches = 20 * 6 * args.rounds
    print(f"{matches} matches of 6 instant bots (C(6,3)=20 sets x {args.rounds} rounds x 6)")
    for workers, rs in runs.items():
        med = statistics.median(r[0] for r in rs)
        cpu = statistics.median(r[1] for r in rs) / matches * 1000
        others = statistics.median(r[2] for r in rs)
        print(
            f"  {workers} worker{'s' if workers > 1 else ' '}: median {med:6.2f} s "
            f"({matches / med:5.1f} matches/s), {cpu:4.1f} ms CPU per match; other processes "
            f"kept {others:.1f} of {os.cpu_count()} cores busy; runs: "
            + ", ".join(f"{r[0]:.2f}" for r in rs)
        )
    speedup = statistics.median(r[0] for r in runs[1]) / statistics.median(r[0] for r in runs[2])
    print(f"  speed-up with 2 workers: {speedup:.2f}x (target >= 1.8x)")
    print(f"  python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
