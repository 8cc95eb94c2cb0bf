"""Benchmark: a duplicate set (six matches) of three bots whose hosts are cold, against a warm set.

Run by hand (numbers go to docs/benchmarks.md), e.g.::

    python bench/cold.py                          # instant bots, 6 rounds of 3 sets per mode
    python bench/cold.py --bot bots/heuristic.py  # copies of a real bot (distinct versions)
    python bench/cold.py --rounds 8 --sets 4

In one process, alternating, blocks of ``--sets`` duplicate sets (the six seatings of one deal)
in three modes:

* ``warm``: the same three bots every set; their hosts are warm.
* ``cold``: three bots new to the worker every set (as in a ladder of many bots), in a pool
  keeping its spare hosts (``BotPool(spare_hosts=3)``, the default).
* ``cold, no spares``: the same in a pool without spares (``spare_hosts=0``): every new bot
  starts a host of its own, as before spare hosts.

Both pools are full (``--max-zygotes`` bots each) before timing, so a new bot also evicts the
least recently used host, as in a long ladder. A block's wall time and CPU run until the spare
hosts it started have finished setting themselves up, so the hosts a cold set uses up are
counted in full (in a ladder they start while the next set plays). CPU is that of this process
and everything it starts, bots and hosts included, from a ``cpuacct`` cgroup of its own (as
root on cgroup v1; otherwise not shown). "Instant" bots answer ``obs["legal"][-1]`` at once,
so the figures are the sandbox's, not the bots' thinking.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from arena.sandbox import BotPool, BotSource, Limits  # noqa: E402

INSTANT = "class Bot:\n    def act(self, obs):\n        return obs['legal'][-1]\n"
LIMITS = Limits(decision_seconds=2.0)
_CPUACCT = Path("/sys/fs/cgroup/cpuacct")


class Cpu:
    """CPU time of this process and all it starts: a cpuacct cgroup of its own (v1, root)."""

    def __init__(self) -> None:
        self.dir: Path | None = None
        if os.geteuid() == 0 and (_CPUACCT / "cgroup.procs").exists():
            d = _CPUACCT / f"euchre-arena-bench-{os.getpid()}"
            try:
                d.mkdir()
                (d / "cgroup.procs").write_text("0")
                self.dir = d
            except OSError:
                self.dir = None

    def ms(self) -> float | None:
        if self.dir is None:
            return None
        return int((self.dir / "cpuacct.usage").read_text()) / 1e6

    def close(self) -> None:
        if self.dir is not None:
            (_CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
            try:
                self.dir.rmdir()
            except OSError:
                pass


def _cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total


def settle(pool: BotPool, patience: float = 20.0) -> None:
    """Wait until the pool's spare hosts are set up: their processes use no more CPU."""
    deadline = time.monotonic() + patience
    last = -1
    while time.monotonic() < deadline:
        pids = [pid for z in pool._spares for pid in z.pids()]
        ticks = _cpu_ticks(pids)
        # bwrap, its pid-1 and the host (three processes), all asleep, CPU unchanged.
        ready = all(len(z.pids()) >= 3 for z in pool._spares)
        if ready and ticks == last:
            return
        last = ticks
        time.sleep(0.05)


def play_set(pool: BotPool, bots: list[BotSource], seed: int) -> None:
    """The six seatings of one deal."""
    for perm in itertools.permutations(range(3)):
        out = pool.play_match([bots[i] for i in perm], seed)
        assert not out.faults, [str(f) for f in out.faults]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", help="a bot file to copy (default: an instant bot)")
    ap.add_argument("--rounds", type=int, default=6, help="alternations of the three modes")
    ap.add_argument("--sets", type=int, default=3, help="duplicate sets per block")
    ap.add_argument("--max-zygotes", type=int, default=8, help="warm hosts a pool keeps")
    args = ap.parse_args()
    text = Path(args.bot).read_text() if args.bot else INSTANT
    counter = itertools.count()

    def new_bot() -> BotSource:  # a distinct version: a host of its own
        return BotSource("bot", text + f"\n# version {next(counter)}\n")

    cpu = Cpu()
    spares = BotPool(LIMITS, max_zygotes=args.max_zygotes)
    plain = BotPool(LIMITS, max_zygotes=args.max_zygotes, spare_hosts=0)
    warm_bots = [new_bot() for _ in range(3)]
    seeds = itertools.count(1)
    try:
        for pool in (spares, plain):  # fill both, so new bots evict as in a long ladder
            for _ in range(args.max_zygotes // 3 + 2):
                play_set(pool, [new_bot() for _ in range(3)], next(seeds))
            play_set(pool, warm_bots, next(seeds))
            settle(pool)
        modes: dict[str, Callable[[], None]] = {
            "warm": lambda: play_set(spares, warm_bots, next(seeds)),
            "cold": lambda: play_set(spares, [new_bot() for _ in range(3)], next(seeds)),
            "cold, no spares": lambda: play_set(plain, [new_bot() for _ in range(3)], next(seeds)),
        }
        wall: dict[str, list[float]] = {m: [] for m in modes}
        used: dict[str, list[float]] = {m: [] for m in modes}
        for _ in range(args.rounds):
            for mode, run in modes.items():
                c0, t0 = cpu.ms(), time.perf_counter()
                for _ in range(args.sets):
                    run()
                settle(spares)
                t1, c1 = time.perf_counter(), cpu.ms()
                wall[mode].append((t1 - t0) * 1e3 / args.sets)
                if c0 is not None and c1 is not None:
                    used[mode].append((c1 - c0) / args.sets)
    finally:
        spares.close()
        plain.close()
        cpu.close()
    load = os.getloadavg()[0]
    print(f"per duplicate set (6 matches), medians of {args.rounds} blocks of {args.sets} sets;")
    print(f"bots: {args.bot or 'instant'}; load average {load:.1f}")
    w_wall = statistics.median(wall["warm"])
    w_cpu = statistics.median(used["warm"]) if used["warm"] else None
    for mode in modes:
        line = f"{mode:16} wall {statistics.median(wall[mode]):7.1f} ms"
        line += f" ({statistics.median(wall[mode]) / w_wall:.2f}x warm)"
        if used[mode] and w_cpu:
            m = statistics.median(used[mode])
            line += f"   CPU {m:7.1f} ms ({m / w_cpu:.2f}x warm)"
        print(line)


if __name__ == "__main__":
    main()
