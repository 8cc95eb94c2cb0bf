"""Benchmark of the sandbox: bot start (cold and per match), decision round trip, matches/s.

Run by hand (numbers go to docs/benchmarks.md), e.g.::

    python bench/sandbox.py                 # everything, default sizes
    python bench/sandbox.py --matches 600   # longer throughput runs
    ARENA_SANDBOX_DISABLE=bwrap python bench/sandbox.py   # a degraded layer set
    python bench/sandbox.py --against ../main --matches 150 --rounds 6   # new code vs old

"Instant" bots answer ``obs["legal"][-1]`` at once, so the figures measure the sandbox and the
protocol, not the bots. Every sandboxed match uses fresh bot processes (forked from zygotes).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from procstat import cpu_seconds  # noqa: E402  (bench/procstat.py)

from arena.engine import play_match  # noqa: E402
from arena.sandbox import BotPool, BotSource, Limits, bot_random_seed  # noqa: E402
from arena.sandbox.client import Stage, Zygote  # noqa: E402
from arena.sandbox.layers import choose_isolation  # noqa: E402
from arena.sandbox.proxy import SeatProxy  # noqa: E402

INSTANT = "class Bot:\n    def act(self, obs):\n        return obs['legal'][-1]\n"
LIMITS = Limits(decision_seconds=2.0)


def instant(k: int) -> BotSource:
    """An instant bot; ``k`` makes the source (and so the zygote) distinct per seat."""
    return BotSource(f"instant{k}", INSTANT + f"# copy {k}\n")


class _Last:
    """The in-process twin of INSTANT (the last legal action: it orders, so hands get played)."""

    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][-1]


def pct(xs: list[float], q: float) -> float:
    """The q-quantile (0..1) of xs."""
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))]


def bench_start(n: int) -> None:
    """Cold start (a zygote: interpreter, layers, compile) and per-match start (fork to ready)."""
    p = choose_isolation()
    stage = Stage()
    cold, warm = [], []
    try:
        for i in range(max(3, n // 10)):
            t = time.perf_counter()
            z = Zygote(instant(100 + i), 0, stage, p, LIMITS)
            child = z.fork()
            proxy = SeatProxy(0, child, LIMITS)
            proxy.load(bot_random_seed(1, 0))
            cold.append(time.perf_counter() - t)
            assert proxy.fault is None, proxy.fault
            child.close()
            for _ in range(n):
                t = time.perf_counter()
                child = z.fork()
                proxy = SeatProxy(0, child, LIMITS)
                proxy.load(bot_random_seed(1, 0))
                warm.append(time.perf_counter() - t)
                child.close()
            z.close()
    finally:
        stage.remove()
    print(f"layers: {', '.join(p.active)}")
    print(
        f"cold bot start (new zygote to ready): median {statistics.median(cold) * 1e3:.1f} ms "
        f"(n={len(cold)})"
    )
    print(
        f"per-match bot start (fork to ready): median {statistics.median(warm) * 1e3:.2f} ms, "
        f"p90 {pct(warm, 0.9) * 1e3:.2f} ms (n={len(warm)})"
    )


def bench_round_trip(n: int) -> None:
    """One decision through the proxy: encode, pipe, bot, pipe, decode, check."""
    obs: dict[str, Any] | None = None

    class Grab:
        def act(self, o: dict[str, Any]) -> Any:
            nonlocal obs
            if obs is None and o["phase"] == "play" and len(o["legal"]) > 1 and o["tricks"]:
                obs = o
            return o["legal"][-1]

    play_match([Grab(), Grab(), Grab()], 3)
    assert obs is not None
    with BotPool(LIMITS) as pool:
        z = pool._zygote(instant(0), 0)
        child = z.fork()
        proxy = SeatProxy(0, child, LIMITS)
        proxy.load(bot_random_seed(1, 0))
        times = []
        for _ in range(n):
            t = time.perf_counter()
            proxy.act(obs)
            times.append(time.perf_counter() - t)
        assert proxy.fault is None, proxy.fault
        child.close()
    size = len(repr(obs))
    print(
        f"decision round trip (obs ~{size} chars): p50 {pct(times, 0.5) * 1e6:.0f} us, "
        f"p99 {pct(times, 0.99) * 1e6:.0f} us (n={n})"
    )


def _worker(args: tuple[int, int, bool, int | None]) -> tuple[int, float, float, float, float]:
    """Play ``count`` matches; (matches, seconds, arena CPU, bot CPU, zygote CPU)."""
    start, count, sandboxed, cpu = args
    bots_cpu = zygotes_cpu = 0.0
    if sandboxed:
        with BotPool(LIMITS, cpu=cpu) as pool:
            srcs = [instant(0), instant(1), instant(2)]
            pool.play_match(srcs, -1)  # warm the zygotes (the cold start is measured above)
            hosts = pool.host_pids()
            z0, r0, t = cpu_seconds(hosts), time.process_time(), time.perf_counter()
            for seed in range(start, start + count):
                out = pool.play_match(srcs, seed)
                assert not out.faults, out.faults
                bots_cpu += sum(s["cpu_seconds"] for s in out.stats)
            elapsed = time.perf_counter() - t
            arena_cpu, zygotes_cpu = time.process_time() - r0, cpu_seconds(hosts) - z0
    else:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
        r0, t = time.process_time(), time.perf_counter()
        for seed in range(start, start + count):
            play_match([_Last(), _Last(), _Last()], seed)
        elapsed, arena_cpu = time.perf_counter() - t, time.process_time() - r0
    return count, elapsed, arena_cpu, bots_cpu, zygotes_cpu


def bench_throughput(matches: int, workers: int, sandboxed: bool, pin: bool = False) -> float:
    """Matches per second with ``workers`` processes (each its own BotPool).

    With ``pin``, worker i and its bot processes share CPU i: a decision's round trip then
    never crosses CPUs.
    """
    per = matches // workers
    ncpu = len(os.sched_getaffinity(0))
    jobs = [(i * per, per, sandboxed, i % ncpu if pin else None) for i in range(workers)]
    ctx = mp.get_context("fork")
    with ctx.Pool(workers) as p:
        results = p.map(_worker, jobs)
    done = sum(r[0] for r in results)
    # Rate over the slowest worker's playing time (excludes pool start and zygote warm-up).
    rate = done / max(r[1] for r in results)
    arena, bots, zyg = (sum(r[k] for r in results) / done * 1e3 for k in (2, 3, 4))
    where = ("sandboxed" if sandboxed else "in-process") + (", pinned" if pin else "")
    cpu = f"arena {arena:.2f} ms"
    if sandboxed:
        cpu += f" + bots {bots:.2f} ms + zygotes {zyg:.2f} ms"
    print(f"{where:18s} workers={workers}: {rate:7.1f} matches/s; CPU per match: {cpu}")
    return rate


def compare_trees(
    other: str, matches: int, rounds: int, starts: int = 20, trips: int = 2000
) -> None:
    """Sandboxed matches/s and CPU per match (arena, bots), cold and per-match bot start and
    the decision round trip (p50) of this checkout against ``other`` (a checkout of older
    code, e.g. main), one worker each, alternated ``rounds`` times in fresh processes so that
    the machine's other load hits both alike; medians and ratios."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    other = os.path.abspath(other)
    runs: dict[str, list[tuple[float, ...]]] = {here: [], other: []}
    line = re.compile(r"([\d.]+) matches/s; CPU per match: arena ([\d.]+) ms \+ bots ([\d.]+) ms")
    cold = re.compile(r"cold bot start \(new zygote to ready\): median ([\d.]+) ms")
    warm = re.compile(r"per-match bot start \(fork to ready\): median ([\d.]+) ms")
    trip = re.compile(r"decision round trip \(obs ~\d+ chars\): p50 ([\d.]+) us")
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    for r in range(rounds):
        for tree in (here, other) if r % 2 == 0 else (other, here):
            code = (
                f"import sys; sys.path[:0] = [{tree!r}, {os.path.join(tree, 'bench')!r}]; "
                f"import sandbox; sandbox.bench_start({starts}); "
                f"sandbox.bench_throughput({matches}, 1, True); "
                f"sandbox.bench_round_trip({trips})"
            )
            out = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
            found = [pattern.search(out) for pattern in (line, cold, warm, trip)]
            assert all(found), out
            runs[tree].append(tuple(float(x) for m in found if m for x in m.groups()))
    med = {t: [statistics.median(x[k] for x in v) for k in range(6)] for t, v in runs.items()}
    for tree, (rate, arena, bots, c, w, rt) in med.items():
        name = "this checkout" if tree == here else other
        print(
            f"{name:24s} {rate:6.1f} matches/s; arena {arena:.2f} ms + bots {bots:.2f} ms CPU; "
            f"bot start cold {c:.1f} ms, per match {w:.2f} ms; round trip p50 {rt:.0f} us"
        )
    (r1, a1, b1, c1, w1, t1), (r0, a0, b0, c0, w0, t0) = med[here], med[other]
    print(
        f"ratio this/other: matches/s {r1 / r0:.3f}, arena CPU {a1 / a0:.3f}, "
        f"bot CPU {b1 / b0:.3f}, cold start {c1 / c0:.3f}, per-match start {w1 / w0:.3f}, "
        f"decision round trip {t1 / t0:.3f} "
        f"(medians of {rounds} runs of {matches} matches, {starts} starts and {trips} round "
        "trips each)"
    )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def main() -> None:
    """Run every benchmark and print one line per figure."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=100, help="per-match starts to time")
    ap.add_argument("--round-trips", type=int, default=5000)
    ap.add_argument("--matches", type=int, default=400, help="matches per throughput run")
    ap.add_argument(
        "--against",
        metavar="DIR",
        help="only compare sandboxed throughput with the code of checkout DIR, alternated",
    )
    ap.add_argument("--rounds", type=int, default=6, help="alternations with --against")
    args = ap.parse_args()
    if args.against:
        compare_trees(args.against, args.matches, args.rounds, args.starts)
        return
    bench_start(args.starts)
    bench_round_trip(args.round_trips)
    for workers in (1, 2):
        bench_throughput(args.matches, workers, True)
        bench_throughput(args.matches, workers, True, pin=True)
        bench_throughput(args.matches * 5, workers, False)
        bench_throughput(args.matches * 5, workers, False, pin=True)


if __name__ == "__main__":
    main()
