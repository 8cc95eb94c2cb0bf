"""Benchmark: the same tournament through the local pool and 2-worker Dask clusters, TLS or not.

Run by hand (figures go to docs/benchmarks.md)::

    python bench/cluster.py                    # 3 instant bots, 60 rounds = 360 matches, 3 reps
    python bench/cluster.py --rounds 20 --reps 1
    python bench/cluster.py --quiet-dask       # the optional Dask settings of docs/cluster.md
    python bench/cluster.py --claims           # the cost of checking the workers' claims

``--claims`` measures what a cluster run pays for not taking a worker's word (issue 34): the
same TLS cluster plays a plain tournament, the same with ``--cross-check 0.1``, and a tournament
in which one bot crashes in about one match in ten (each such record is a claim, played again
on the other worker before it is stored), beside the local pool playing the plain and the
faulty tournament (no claims there: the arena machine's own workers are trusted).

Four backends, interleaved: the local process pool, a cluster over plain TCP
(``--insecure-cluster``), a cluster over TLS with the certificates of ``arena cluster init`` but
without arena's role checks (``bench/unguarded_preload.py``, to price them) and one with them
(the default), each with 2 worker processes. Every backend returns JSON records that the parent
checks against their batch (arena.tournaments.verify); the cost of that check alone is measured
last, on records of matches played in-process, and reported per match.

"Instant" bots answer a random legal action at once, so a match costs only the sandbox (fresh bot
processes forked from zygotes) and the engine: the worst case for the cluster's per-task cost.
Both sides run the real ``arena.tournaments.tournament.run`` (progress bar off, a fresh SQLite file
per run, the parent the only writer) with 2 workers; the cluster is a real scheduler plus 2 worker
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
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


from arena.cluster import client as cluster  # noqa: E402
from arena.cluster import roles  # noqa: E402
from arena.cluster import security as cluster_security  # noqa: E402
from arena.cluster.security import GUARD  # noqa: E402
from arena.engine import Rules  # noqa: E402
from arena.matches.secrecy import SecretFile  # noqa: E402
from arena.sandbox import Limits  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.tournaments import tournament, verify  # noqa: E402

# Answers at once (a uniformly random legal action: legal[0] alone would pass every hand out
# and play to the hand limit). The arena seeds ``random`` per match and seat.
INSTANT = """import random


class Bot:
    name = {name!r}

    def act(self, obs):
        return random.choice(obs["legal"])
"""


# Like INSTANT, but crashes on its first decision in about one match in ten (its seeded random
# stream decides, so the arena machine's replay crashes the same way).
FAULTY = """import random


class Bot:
    name = {name!r}

    def __init__(self):
        self.crash = random.random() < 0.1

    def act(self, obs):
        if self.crash:
            raise RuntimeError("a fault to check")
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
    workdir: Path, workers: int, quiet: bool, certs: Path | None, roles: bool = True
) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """``dask scheduler`` + ``workers`` × ``dask worker --nthreads 1``, every listener on
    127.0.0.1, over TLS with ``certs`` (else plain TCP) and, unless ``roles`` is False, arena's
    role checks preloaded as docs/cluster.md says; returns the address."""
    guard = GUARD if roles else str(Path(__file__).with_name("unguarded_preload.py"))
    workdir.mkdir(exist_ok=True)
    sched_file = workdir / "scheduler.json"
    base = [sys.executable, "-m", "dask"]

    def tls(role: str) -> list[str]:
        if certs is None:
            return []
        preload = ["--preload", guard] + (["--preload-nanny", guard] if role != "scheduler" else [])
        return ["--tls-ca-file", f"{certs}/ca.pem", "--tls-cert", f"{certs}/{role}.pem"] + [
            "--tls-key",
            f"{certs}/{role}.key",
            *preload,
        ]

    local = ["--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0", "--no-dashboard"]
    env = {**os.environ, **(QUIET if quiet else {})}
    log = open(workdir / "dask.log", "wb")  # noqa: SIM115 - lives as long as the cluster
    procs = [
        subprocess.Popen(
            [*base, "scheduler", *local, "--port", "0", "--scheduler-file", str(sched_file)]
            + (["--protocol", "tls"] if certs else [])
            + tls("scheduler"),
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    ]
    address = ""
    while not address:  # the scheduler writes the file in more than one step
        time.sleep(0.1)
        try:
            address = str(json.loads(sched_file.read_text())["address"])
        except (OSError, ValueError, KeyError):
            pass
    for k in range(workers):
        procs.append(
            subprocess.Popen(
                [*base, "worker", address, "--nworkers", "1", "--nthreads", "1", *local]
                + ["--name", f"w{k + 1}", *tls(f"worker-w{k + 1}")],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        )
    client = cluster.connect(address, certs=certs, insecure=certs is None)
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
    judged: dict[str, int] | None = None,
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
        # One deal secret for every run, so that the stored matches can be compared.
        plan = tournament.plan_round_robin(
            store, versions, rounds=rounds, seed=7, rules=Rules(), limits=limits, secret_file=SECRET
        )
        cpu0 = own_cpu() + tree_cpu(cluster_pids)
        started = time.perf_counter()
        executor = make() if make else None
        opened = time.perf_counter() - started
        workers = executor.workers if executor is not None else 2
        result = tournament.run(store, plan, workers=workers, executor=executor)
        seconds = time.perf_counter() - started
        cpu = own_cpu() + tree_cpu(cluster_pids) - cpu0
    assert result.completed and result.played == plan.total, result
    if judged is not None and result.judge is not None:
        assert not result.judge.dropped, result.judge.dropped
        judged["replayed"] = result.judge.replayed
        judged["refereed"] = result.judge.refereed
    return seconds, opened, cpu, plan.total, db


def stored(db: Path) -> list[tuple[Any, ...]]:
    """The stored matches and hands, without timings and timestamps."""
    # Raw rows: two databases compared column by column (local == cluster).
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


def check_cost(bots: list[Path], rounds: int) -> tuple[float, float]:
    """Milliseconds per match to encode and check records (arena.tournaments.verify), and to play
    the same matches in-process: records of ``rounds`` x 6 matches of the instant bots, each check
    replaying the match from its deal seed."""
    import random

    from arena.engine import play_match
    from arena.matches.scheduler import Entrant, MatchSpec
    from arena.sandbox.values import BotSource, MatchOutcome, bot_random_seed
    from arena.tournaments.runner import Batch, outcome_record

    classes = []
    for path in bots:
        namespace: dict[str, Any] = {}
        exec(compile(path.read_text(), str(path), "exec"), namespace)
        classes.append(namespace["Bot"])
    seats = tuple(Entrant(p.stem, str(k) * 64, k) for k, p in enumerate(bots))
    specs = tuple(
        MatchSpec(f"m{i}", i // 6, i % 6, i, "s", seats, deal_seed=f"d{i // 6}")  # type: ignore[arg-type]
        for i in range(6 * rounds)
    )
    started = time.process_time()
    records = []
    for spec in specs:
        players = []
        for seat, cls in enumerate(classes):
            random.seed(bot_random_seed(spec.deal_seed, seat))
            players.append(cls())
        m = play_match(players, spec.deal_seed, Rules())
        outcome = MatchOutcome(m, [], list(m.placements), [{}, {}, {}], ["", "", ""])
        records.append(outcome_record(spec, outcome, 0.0))
    played = time.process_time() - started
    sources = {e.key: BotSource(e.name, "") for e in seats}
    batch = Batch(Rules(), Limits(), False, sources, specs)
    started = time.process_time()
    accepted, refused = verify.check_results(batch, verify.encode_results(records))
    checked = time.process_time() - started
    assert len(accepted) == len(specs) and not refused, refused
    return 1000 * checked / len(specs), 1000 * played / len(specs)


class _CertComm:
    """What the role checks read of a TLS comm: the peer certificate, decoded by ``ssl``."""

    def __init__(self, cert: Path) -> None:
        decoded = ssl._ssl._test_decode_cert(str(cert))  # type: ignore[attr-defined]
        self.extra_info = {"peercert": decoded, "cipher": ("TLS_AES_256_GCM_SHA384", "", 256)}
        self.peer_address = "tls://127.0.0.1:1"


class _Scheduler:
    security = None
    workers: dict[str, Any] = {}


def roles_cost(certs: Path, n: int = 20000) -> tuple[float, float]:
    """CPU µs the role checks add on the scheduler: per operation a worker asks (the peer read
    from its certificate, the table, its addresses) and per message on a worker's stream."""
    guard = roles.Guard(_Scheduler(), "scheduler")
    comm = _CertComm(cluster_security.worker_files(certs, "w1")[0])
    msg = {"address": "tls://127.0.0.1:2", "metrics": {}}
    started = time.process_time()
    for _ in range(n):
        guard.check(comm, "heartbeat_worker", msg)
    per_op = time.process_time() - started
    check = guard.stream_check(roles.Peer("worker", "w1", 1), "tls://127.0.0.1:2")
    result = {"op": "task-finished", "key": "k", "status": "OK", "nbytes": 10}
    started = time.process_time()
    for _ in range(n):
        check(result)
    per_msg = time.process_time() - started
    return 1e6 * per_op / n, 1e6 * per_msg / n


SECRET = SecretFile(7, bytes(32))

BACKENDS = (
    ("local", "local process pool"),
    ("tcp", "Dask, plain TCP"),
    ("tls-open", "Dask, TLS, no roles"),
    ("tls", "Dask, TLS (default)"),
)


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
    ap.add_argument(
        "--claims",
        action="store_true",
        help="measure the fault re-play and --cross-check 0.1 against a plain TLS cluster run",
    )
    args = ap.parse_args()
    if args.claims:
        claims(args.rounds, args.reps)
        return

    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as tmp:
        workdir = Path(tmp)
        bots = []
        for name in ("instant_a", "instant_b", "instant_c"):
            path = workdir / f"{name}.py"
            path.write_text(INSTANT.format(name=name))
            bots.append(path)
        certs = workdir / "certs"
        cluster_security.init_certificates(certs, "127.0.0.1", ("w1", "w2"))
        started = time.perf_counter()
        tcp_addr, tcp_procs = start_cluster(workdir / "tcp", 2, args.quiet_dask, None)
        open_addr, open_procs = start_cluster(workdir / "open", 2, args.quiet_dask, certs, False)
        tls_addr, tls_procs = start_cluster(workdir / "tls", 2, args.quiet_dask, certs)
        print(f"clusters up in {time.perf_counter() - started:.1f} s at {tcp_addr}, {tls_addr}")
        opens: dict[str, Callable[[], Any] | None] = {
            "local": None,
            "tcp": lambda: cluster.open_executor(tcp_addr, insecure=True),
            "tls-open": lambda: cluster.open_executor(open_addr, certs=certs),
            "tls": lambda: cluster.open_executor(tls_addr, certs=certs),
        }
        pids = {
            "local": [],
            "tcp": [p.pid for p in tcp_procs],
            "tls-open": [p.pid for p in open_procs],
            "tls": [p.pid for p in tls_procs],
        }
        wall: dict[str, list[float]] = {k: [] for k, _ in BACKENDS}
        cpu: dict[str, list[float]] = {k: [] for k, _ in BACKENDS}
        connect: dict[str, list[float]] = {k: [] for k, _ in BACKENDS}
        dbs: dict[str, Path] = {}
        try:
            # Warm-up, not measured: a fresh Dask worker imports arena and starts its bot pool
            # on its first batch (a forked local worker inherits the imports from the parent).
            warm = time.perf_counter()
            for key in ("tcp", "tls-open", "tls"):
                one_run(workdir, bots, 1, "warm", opens[key], pids[key])
            print(f"warm-up runs on the clusters: {time.perf_counter() - warm:.1f} s")
            for rep in range(args.reps):
                line = []
                # Every other repetition in reverse order, so no backend always runs first.
                for key, _ in BACKENDS if rep % 2 == 0 else BACKENDS[::-1]:
                    secs, opened, used, n, dbs[key] = one_run(
                        workdir, bots, args.rounds, key, opens[key], pids[key]
                    )
                    wall[key].append(secs)
                    cpu[key].append(used)
                    connect[key].append(opened)
                    line.append(f"{key} {secs:.2f} s wall, {used:.2f} s CPU")
                print(f"rep {rep + 1}: " + "; ".join(line) + f" ({n} matches)")
            same = all(stored(dbs["local"]) == stored(dbs[k]) for k in ("tcp", "tls-open", "tls"))
        finally:
            stop_cluster(tcp_procs)
            stop_cluster(open_procs)
            stop_cluster(tls_procs)
        check_ms, play_ms = check_cost(bots, args.rounds)
        op_us, msg_us = roles_cost(certs)
    load = os.getloadavg()[0]
    med = {k: statistics.median(v) for k, v in wall.items()}
    cpu_med = {k: statistics.median(v) for k, v in cpu.items()}
    print()
    settings = "quiet Dask settings" if args.quiet_dask else "Dask defaults"
    print(
        f"{n} matches of instant bots, 2 workers, {settings}, median of {args.reps}"
        f" (load {load:.1f})"
    )
    head = f"{'backend':<22}{'wall s':>8}{'matches/s':>11}{'vs TCP':>8}{'CPU ms/match':>14}"
    print(head + f"{'connect s':>11}")
    for key, label in BACKENDS:
        w, c = med[key], cpu_med[key]
        ratio = med["tcp"] / w
        print(
            f"{label:<22}{w:>8.2f}{n / w:>11.1f}{ratio:>8.2f}{1000 * c / n:>14.2f}"
            f"{statistics.median(connect[key]):>11.2f}"
        )
    print(
        f"checking the records (JSON + replay, in every backend): {check_ms:.2f} ms CPU per "
        f"match; playing the same match in-process: {play_ms:.2f} ms"
    )
    print(
        f"TLS with the role checks against without: {med['tls-open'] / med['tls']:.2f} x the "
        f"throughput, {cpu_med['tls'] / cpu_med['tls-open']:.2f} x the CPU"
    )
    print(
        f"role checks on the scheduler: {op_us:.1f} µs CPU per operation a worker asks, "
        f"{msg_us:.1f} µs per message on a worker's stream"
    )
    print(f"stored matches identical: {same}")


CLAIMS = (
    ("local", "local pool", False, 0.0),
    ("local-faulty", "local pool, faults", True, 0.0),
    ("tls", "TLS cluster", False, 0.0),
    ("tls-cross", "TLS, --cross-check 0.1", False, 0.1),
    ("tls-faulty", "TLS, faults re-played", True, 0.0),
)


def claims(rounds: int, reps: int) -> None:
    """``--claims``: the five runs of :data:`CLAIMS`, interleaved, median of ``reps``."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-claims-") as tmp:
        workdir = Path(tmp)
        plain, faulty = [], []
        for name in ("instant_a", "instant_b", "instant_c"):
            (workdir / f"{name}.py").write_text(INSTANT.format(name=name))
            plain.append(workdir / f"{name}.py")
        (workdir / "faulty_c.py").write_text(FAULTY.format(name="instant_c"))
        faulty = [*plain[:2], workdir / "faulty_c.py"]
        certs = workdir / "certs"
        cluster_security.init_certificates(certs, "127.0.0.1")
        address, procs = start_cluster(workdir / "tls", 2, False, certs)
        pids = [p.pid for p in procs]
        wall: dict[str, list[float]] = {k: [] for k, *_ in CLAIMS}
        cpu: dict[str, list[float]] = {k: [] for k, *_ in CLAIMS}
        judged: dict[str, dict[str, int]] = {k: {} for k, *_ in CLAIMS}
        dbs: dict[str, Path] = {}
        try:
            one_run(
                workdir, plain, 1, "warm", lambda: cluster.open_executor(address, certs=certs), pids
            )
            for rep in range(reps):
                line = []
                for key, _, bad, share in CLAIMS:
                    make = None
                    if key.startswith("tls"):
                        make = lambda share=share: cluster.open_executor(  # noqa: E731
                            address, certs=certs, cross_check=share
                        )
                    secs, _, used, n, dbs[key] = one_run(
                        workdir, faulty if bad else plain, rounds, key, make,
                        pids if make else [], judged[key],
                    )  # fmt: skip
                    wall[key].append(secs)
                    cpu[key].append(used)
                    line.append(f"{key} {secs:.2f} s")
                print(f"rep {rep + 1}: " + "; ".join(line) + f" ({n} matches)")
            same = stored(dbs["local"]) == stored(dbs["tls"]) == stored(dbs["tls-cross"])
            same_faulty = stored(dbs["local-faulty"]) == stored(dbs["tls-faulty"])
        finally:
            stop_cluster(procs)
    med = {k: statistics.median(v) for k, v in wall.items()}
    load = os.getloadavg()[0]
    print(f"\n{n} matches of instant bots, 2 workers, median of {reps} (load {load:.1f})")
    head = f"{'run':<26}{'wall s':>8}{'matches/s':>11}{'vs plain':>10}{'CPU ms/match':>14}"
    print(head + "  checked")
    for key, label, _, _ in CLAIMS:
        base = med["local" if key.startswith("local") else "tls"]  # the same backend, plain
        c = statistics.median(cpu[key])
        j = judged[key]
        extra = f"  {j.get('replayed', 0)} again, {j.get('refereed', 0)} here" if j else ""
        print(
            f"{label:<26}{med[key]:>8.2f}{n / med[key]:>11.1f}{med[key] / base:>10.2f}"
            f"{1000 * c / n:>14.2f}{extra}"
        )
    replay = med["tls-faulty"] / med["tls"] - med["local-faulty"] / med["local"]
    print(f"the fault re-play's own cost: {100 * replay:+.0f} % of a plain cluster run")
    print(f"stored matches identical: plain {same}, faulty {same_faulty}")


if __name__ == "__main__":
    main()
