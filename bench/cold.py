"""Benchmark: a duplicate set (six matches) of three bots whose hosts are cold, against a warm set.

Run by hand (numbers go to docs/benchmarks.md), e.g.::

    python bench/cold.py                          # instant bots, 6 rounds of 3 sets per mode
    python bench/cold.py --bot bots/heuristic.py  # copies of a real bot (distinct versions)
    python bench/cold.py --rounds 8 --sets 4
    python bench/cold.py --against ../before  # and the code of another checkout, alternated
    python bench/cold.py --hosts 10 --rounds 3 --against ../before  # one host's life, by phase

Blocks of ``--sets`` duplicate sets (the six seatings of one deal), alternating, in three
modes (each checkout in a process of its own; one from before spare hosts plays the first two,
its "cold" being today's "cold, no spares"):

* ``warm``: the same three bots every set; their hosts are warm.
* ``cold``: three bots new to the worker every set (as in a ladder of many bots), in a pool
  keeping its spare hosts (``BotPool(spare_hosts=3)``, the default).
* ``cold, no spares``: the same in a pool without spares (``spare_hosts=0``): every new bot
  starts a host of its own, as before spare hosts.

Both pools are full (``--max-zygotes`` bots each) before timing, so a new bot also evicts the
least recently used host, as in a long ladder. Within a block each cold set takes the spares
the sets before it started (so a block is the steady state of a ladder); a block's CPU runs
until the spares it started last have finished setting themselves up (so every host a cold
set uses up is counted in full; the CPU this script spends polling for that is left out), its
wall time until its last match. CPU is that of this process
and everything it starts, bots and hosts included, from a ``cpuacct`` cgroup of its own (as
root on cgroup v1; otherwise not shown). "Instant" bots answer ``obs["legal"][-1]`` at once,
so the figures are the sandbox's, not the bots' thinking.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

# The checkout to measure: this one, or BENCH_TREE (--against runs the old one so).
sys.path.insert(0, os.environ.get("BENCH_TREE") or os.path.join(os.path.dirname(__file__), ".."))

from procstat import cpu_ticks  # noqa: E402  (bench/procstat.py)

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


def settle(pool: BotPool, patience: float = 20.0) -> None:
    """Wait until the pool's spare hosts are set up: their processes use no more CPU."""
    deadline = time.monotonic() + patience
    last = -1
    while time.monotonic() < deadline:
        spares = getattr(pool, "_spares", [])  # none before spare hosts
        ticks = cpu_ticks([pid for z in spares for pid in z.pids()])
        # bwrap, its pid-1 and the host (three processes), all asleep, CPU unchanged.
        ready = all(len(z.pids()) >= 3 for z in spares)
        if ready and ticks == last:
            return
        last = ticks
        time.sleep(0.05)


def play_set(pool: BotPool, bots: list[BotSource], seed: int) -> None:
    """The six seatings of one deal."""
    for perm in itertools.permutations(range(3)):
        out = pool.play_match([bots[i] for i in perm], seed)
        assert not out.faults, [str(f) for f in out.faults]


class Runner:
    """The three modes of one checkout, in this process: pools filled, then a block per call."""

    def __init__(self, text: str, max_zygotes: int, sets: int) -> None:
        self.text, self.sets = text, sets
        self.counter = itertools.count()
        self.seeds = itertools.count(1)
        self.cpu = Cpu()
        try:  # a checkout from before spare hosts has no such setting: its pools start hosts
            self.spares = BotPool(LIMITS, max_zygotes=max_zygotes, spare_hosts=3)  # type: ignore[call-arg]
            self.plain = BotPool(LIMITS, max_zygotes=max_zygotes, spare_hosts=0)  # type: ignore[call-arg]
        except TypeError:
            self.spares = BotPool(LIMITS, max_zygotes=max_zygotes)
            self.plain = self.spares
        self.warm_bots = [self.new_bot() for _ in range(3)]
        for pool in {id(p): p for p in (self.spares, self.plain)}.values():
            for _ in range(max_zygotes // 3 + 2):  # full, so new bots evict as in a long ladder
                play_set(pool, [self.new_bot() for _ in range(3)], next(self.seeds))
            play_set(pool, self.warm_bots, next(self.seeds))
            settle(pool)
        self.modes: dict[str, Callable[[], None]] = {
            "warm": lambda: play_set(self.spares, self.warm_bots, next(self.seeds)),
            "cold": lambda: play_set(self.spares, self.fresh(), next(self.seeds)),
            "cold, no spares": lambda: play_set(self.plain, self.fresh(), next(self.seeds)),
        }

    def new_bot(self) -> BotSource:  # a distinct version: a host of its own
        return BotSource("bot", self.text + f"\n# version {next(self.counter)}\n")

    def fresh(self) -> list[BotSource]:
        return [self.new_bot() for _ in range(3)]

    def block(self, mode: str) -> tuple[float, float | None]:
        """Wall and CPU milliseconds per set of one block of ``mode``."""
        c0, t0 = self.cpu.ms(), time.perf_counter()
        for _ in range(self.sets):
            self.modes[mode]()
        t1 = time.perf_counter()
        own = time.thread_time()
        settle(self.spares)  # the spares it started: their CPU counted, their wait not
        own = (time.thread_time() - own) * 1e3  # this script's polling: neither arena nor bot
        c1 = self.cpu.ms()
        cpu = (c1 - c0 - own) / self.sets if c0 is not None and c1 is not None else None
        return (t1 - t0) * 1e3 / self.sets, cpu

    def close(self) -> None:
        self.spares.close()
        self.plain.close()
        self.cpu.close()


def host_lives(count: int) -> dict[str, float]:
    """CPU milliseconds (this process and all it starts) of one bot host's life, by phase,
    medians of ``count``: started and given an instant bot (a spare's start and its load),
    one match process forked, closed. No pool: the host alone."""
    from arena.sandbox.client import Stage, Zygote
    from arena.sandbox.layers import become_subreaper, choose_isolation

    cpu, isolation, rows = Cpu(), choose_isolation(False), []
    become_subreaper()
    stage = Stage()
    try:
        for k in range(count):
            c0 = cpu.ms()
            z = Zygote(None, 0, stage, isolation, LIMITS)
            z.load(BotSource("bot", INSTANT + f"# version {k}\n"))
            assert z.load_error is None, z.load_error
            c1 = cpu.ms()
            child = z.fork()
            child.kill()
            child.close()
            c2 = cpu.ms()
            z.close()
            c3 = cpu.ms()
            if None not in (c0, c1, c2, c3):
                rows.append((c1 - c0, c2 - c1, c3 - c2, c3 - c0))  # type: ignore[operator]
    finally:
        stage.remove()
        cpu.close()
    names = ("start and load", "fork", "close", "whole life")
    return {n: statistics.median(r[i] for r in rows) for i, n in enumerate(names)} if rows else {}


def serve(args: argparse.Namespace) -> None:
    """Child mode: fill the pools, then one block per mode name read from stdin (JSON out)."""
    if args.hosts:
        print(json.dumps(host_lives(args.hosts)), flush=True)
        return
    text = Path(args.bot).read_text() if args.bot else INSTANT
    runner = Runner(text, args.max_zygotes, args.sets)
    print(json.dumps({"ready": True}), flush=True)
    try:
        for line in sys.stdin:
            wall, cpu = runner.block(line.strip())
            print(json.dumps({"wall": wall, "cpu": cpu}), flush=True)
    finally:
        runner.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", help="a bot file to copy (default: an instant bot)")
    ap.add_argument("--rounds", type=int, default=6, help="alternations of the modes")
    ap.add_argument("--sets", type=int, default=3, help="duplicate sets per block")
    ap.add_argument("--max-zygotes", type=int, default=8, help="warm hosts a pool keeps")
    ap.add_argument("--against", metavar="DIR", help="also the same with the code of checkout DIR")
    ap.add_argument(
        "--hosts", type=int, default=0, metavar="N", help="instead: N host lives, CPU by phase"
    )
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args)
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"this": here, **({"before": os.path.abspath(args.against)} if args.against else {})}
    if args.hosts:
        compare_hosts(trees, args.hosts, args.rounds)
        return
    flags = ["--sets", str(args.sets), "--max-zygotes", str(args.max_zygotes)]
    flags += ["--bot", os.path.abspath(args.bot)] if args.bot else []
    kids = {}
    for name, tree in trees.items():  # each checkout in a process of its own, alternated
        kids[name] = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--serve", *flags],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "BENCH_TREE": tree},
        )
        assert kids[name].stdout is not None and "ready" in kids[name].stdout.readline()
    wall: dict[str, list[float]] = {}
    used: dict[str, list[float]] = {}
    try:
        for _ in range(args.rounds):
            for name, kid in kids.items():
                modes = ["warm", "cold", "cold, no spares"] if name == "this" else ["warm", "cold"]
                for mode in modes:
                    assert kid.stdin is not None and kid.stdout is not None
                    kid.stdin.write(mode + "\n")
                    kid.stdin.flush()
                    got = json.loads(kid.stdout.readline())
                    key = f"{mode} ({name})"
                    wall.setdefault(key, []).append(got["wall"])
                    if got["cpu"] is not None:
                        used.setdefault(key, []).append(got["cpu"])
    finally:
        for kid in kids.values():
            assert kid.stdin is not None
            kid.stdin.close()
            kid.wait()
    load = os.getloadavg()[0]
    print(f"per duplicate set (6 matches), medians of {args.rounds} blocks of {args.sets} sets;")
    print(f"bots: {args.bot or 'instant'}; load average {load:.1f} at the end")
    for key in wall:
        base = f"warm ({key.rsplit('(', 1)[1]}"
        w = statistics.median(wall[key])
        line = f"{key:24} wall {w:7.1f} ms ({w / statistics.median(wall[base]):.2f}x warm)"
        if key in used and base in used:
            m = statistics.median(used[key])
            line += f"   CPU {m:7.1f} ms ({m / statistics.median(used[base]):.2f}x warm)"
        print(line)


def compare_hosts(trees: dict[str, str], count: int, rounds: int) -> None:
    """``--hosts``: each checkout's host lives in a process of its own, alternated ``rounds``
    times; the medians of the rounds' medians."""
    got: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--serve", "--hosts", str(count)],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "BENCH_TREE": tree},
            )
            got[name].append(json.loads(out.stdout.splitlines()[-1]))
    print(f"CPU of one bot host's life (ms), medians of {rounds} rounds of {count} hosts;")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    for name, runs in got.items():
        phases = runs[0].keys() if runs and runs[0] else []
        cells = [f"{p} {statistics.median(r[p] for r in runs):6.1f}" for p in phases]
        print(f"{name:8}", "   ".join(cells) or "no cpuacct cgroup (not root?)")


if __name__ == "__main__":
    main()
