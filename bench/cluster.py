"""Benchmark: the same tournament through the local process pool and a 2-worker Dask cluster.

Run by hand (figures go to docs/benchmarks.md)::

    python bench/cluster.py                    # 3 instant bots, 60 rounds = 360 matches, 3 reps
    python bench/cluster.py --rounds 20 --reps 1
    python bench/cluster.py --quiet-dask       # the optional Dask settings of docs/cluster.md

"Instant" bots answer a random legal action at once, so a match costs only the sandbox (fresh bot
processes forked from zygotes) and the engine: the worst case for the cluster's per-task cost.
Both sides run the real ``arena.tournament.run`` (progress bar off, a fresh SQLite file per run,
the parent the only writer) with 2 workers; the cluster is a real scheduler plus 2 worker
processes started with Dask's own CLI on this machine, and each cluster run includes connecting
and probing the workers, as ``arena run --cluster`` does. Repetitions are interleaved and the
median is reported, after one unmeasured warm-up run on the cluster (a fresh Dask worker imports
arena on its first batch); the stored matches of both sides are compared at the end. CPU is
summed over every process involved (parent, local workers and bots; scheduler, nannies, Dask
workers and bots), which the other jobs on a shared machine disturb less than wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from rich.console import Console  # noqa: E402

from arena import cluster, tournament  # noqa: E402
from arena.engine import Rules  # noqa: E402
from arena.sandbox import Limits  # noqa: E402
from arena.store import Store  # noqa: E402

# Answers at once (a uniformly random legal action: legal[0] alone would pass every hand out
# and play to the hand limit). The arena seeds ``random`` per match and seat.
INSTANT = """import random


class Bot:
    name = {name!r}

    def act(self, obs):
        return random.choice(obs["legal"])
"""


# docs/cluster.md's optional settings: Dask's own bookkeeping (event-loop ticks every 20 ms, the
# system monitor, the statistical profiler) wakes every process many times a second.
QUIET = {
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "500ms",
    "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "2s",
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
}


def start_cluster(
    workdir: Path, workers: int, quiet: bool
) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """``dask scheduler`` + ``workers`` × ``dask worker --nthreads 1``; returns the address."""
    sched_file = workdir / "scheduler.json"
    base = [sys.executable, "-m", "dask"]
    env = {**os.environ, **(QUIET if quiet else {})}
    log = open(workdir / "dask.log", "wb")  # noqa: SIM115 - lives as long as the cluster
    procs = [
        subprocess.Popen(
            [*base, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
            + ["--scheduler-file", str(sched_file)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    ]
    while not sched_file.exists():
        time.sleep(0.1)
    address = str(json.loads(sched_file.read_text())["address"])
    for k in range(workers):
        procs.append(
            subprocess.Popen(
                [*base, "worker", address, "--nworkers", "1", "--nthreads", "1"]
                + ["--no-dashboard", "--name", f"w{k + 1}"],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        )
    client = cluster.connect(address)
    try:
        client.wait_for_workers(workers, timeout=60)
    finally:
        client.close()
    return address, procs


def stop_cluster(procs: list[subprocess.Popen[bytes]]) -> None:
    """Workers first, then the scheduler; SIGTERM to each process group."""
    for p in reversed(procs):
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(30)


TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(roots: list[int]) -> float:
    """CPU seconds (user + sys, own + reaped children) of ``roots`` and all their descendants.

    A process that ends between two readings hands its CPU to its parent's reaped-children
    counters, so the difference of two readings covers everything the tree did in between.
    """
    stats: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                raw = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            f = raw[raw.rindex(")") + 2 :].split()
            stats[int(name)] = (int(f[1]), sum(int(x) for x in f[11:15]) / TICK)
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0.0, [p for p in roots if p in stats]
    while todo:
        pid = todo.pop()
        total += stats[pid][1]
        todo.extend(children.get(pid, []))
    return total


def own_cpu() -> float:
    """CPU seconds of this process and its reaped children (the local pool's workers)."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def one_run(
    workdir: Path,
    bots: list[Path],
    rounds: int,
    tag: str,
    make: Callable[[], Any] | None,
    cluster_pids: list[int],
) -> tuple[float, float, float, int, Path]:
    """One tournament into a fresh database: (wall s, of which connecting, CPU s, matches, db).

    CPU counts this process, its reaped children (local workers and their bots) and, for a
    cluster run, every process of the cluster (scheduler, nannies, workers, bots).
    """
    db = workdir / f"{tag}.db"
    db.unlink(missing_ok=True)
    limits = Limits()
    with Store(db) as store:
        versions = tournament.register_files(store, bots)
        plan = tournament.plan(store, versions, rounds=rounds, seed=7, rules=Rules(), limits=limits)
        quiet = Console(file=open(os.devnull, "w"))  # noqa: SIM115
        cpu0 = own_cpu() + tree_cpu(cluster_pids)
        started = time.perf_counter()
        executor = make() if make else None
        opened = time.perf_counter() - started
        workers = executor.workers if executor is not None else 2
        result = tournament.run(store, plan, workers=workers, console=quiet, executor=executor)
        seconds = time.perf_counter() - started
        cpu = own_cpu() + tree_cpu(cluster_pids) - cpu0
    assert result.completed and result.played == plan.total, result
    return seconds, opened, cpu, plan.total, db


def stored(db: Path) -> list[tuple[Any, ...]]:
    """The stored matches and hands, without timings and timestamps."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT id, seed, bot0, bot1, bot2, score0, score1, score2, place0, place1, place2,"
            " hands_played FROM matches ORDER BY id"
        ).fetchall()
        rows += con.execute("SELECT match_id, hand_number, record FROM hands ORDER BY 1, 2")
    finally:
        con.close()
    return rows


def main() -> None:
    """Run the comparison and print one table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=60, help="rounds (6 matches each)")
    ap.add_argument("--reps", type=int, default=3, help="interleaved repetitions")
    ap.add_argument(
        "--quiet-dask",
        action="store_true",
        help="start the cluster with docs/cluster.md's optional longer bookkeeping intervals",
    )
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as tmp:
        workdir = Path(tmp)
        bots = []
        for name in ("instant_a", "instant_b", "instant_c"):
            path = workdir / f"{name}.py"
            path.write_text(INSTANT.format(name=name))
            bots.append(path)
        started = time.perf_counter()
        address, procs = start_cluster(workdir, 2, quiet=args.quiet_dask)
        print(f"cluster up in {time.perf_counter() - started:.1f} s at {address}")
        pids = [p.pid for p in procs]
        wall: dict[str, list[float]] = {"local": [], "dask": []}
        cpu: dict[str, list[float]] = {"local": [], "dask": []}
        connect: list[float] = []
        try:
            # Warm-up, not measured: a fresh Dask worker imports arena and starts its bot pool
            # on its first batch (a forked local worker inherits the imports from the parent).
            warm = time.perf_counter()
            one_run(workdir, bots, 1, "warm", lambda: cluster.open_executor(address), pids)
            print(f"warm-up run on the cluster: {time.perf_counter() - warm:.1f} s")
            for rep in range(args.reps):
                secs, _, used, n, local_db = one_run(workdir, bots, args.rounds, "local", None, [])
                wall["local"].append(secs)
                cpu["local"].append(used)
                secs, opened, used, n, dask_db = one_run(
                    workdir,
                    bots,
                    args.rounds,
                    "dask",
                    lambda: cluster.open_executor(address),
                    pids,
                )
                wall["dask"].append(secs)
                cpu["dask"].append(used)
                connect.append(opened)
                print(
                    f"rep {rep + 1}: local {wall['local'][-1]:.2f} s, dask {secs:.2f} s wall;"
                    f" local {cpu['local'][-1]:.2f} s, dask {used:.2f} s CPU ({n} matches)"
                )
            same = stored(local_db) == stored(dask_db)
        finally:
            stop_cluster(procs)
    load = os.getloadavg()[0]
    med = {k: statistics.median(v) for k, v in wall.items()}
    cpu_med = {k: statistics.median(v) for k, v in cpu.items()}
    print()
    settings = "quiet Dask settings" if args.quiet_dask else "Dask defaults"
    print(
        f"{n} matches of instant bots, 2 workers, {settings}, median of {args.reps}"
        f" (load {load:.1f})"
    )
    print(f"{'backend':<24}{'wall s':>8}{'matches/s':>11}{'wall ms/match':>15}{'CPU ms/match':>14}")
    for key, label in (("local", "local process pool"), ("dask", "Dask, 2 local workers")):
        w, c = med[key], cpu_med[key]
        print(f"{label:<24}{w:>8.2f}{n / w:>11.1f}{1000 * w / n:>15.2f}{1000 * c / n:>14.2f}")
    dw, dc = med["dask"] - med["local"], cpu_med["dask"] - cpu_med["local"]
    wall_pct, cpu_pct = 100 * dw / med["local"], 100 * dc / cpu_med["local"]
    print(
        f"cluster overhead per match: wall {1000 * dw / n:+.2f} ms ({wall_pct:+.1f} %),"
        f" CPU {1000 * dc / n:+.2f} ms ({cpu_pct:+.1f} %)"
    )
    print(f"of which connecting + probing workers: {statistics.median(connect):.2f} s per run")
    print(f"stored matches identical: {same}")


if __name__ == "__main__":
    main()
