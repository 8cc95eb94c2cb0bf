"""Cluster runs on a REAL local Dask cluster: ``dask scheduler`` + 2 × ``dask worker`` processes.

Nothing is mocked: the scheduler and workers are the real command-line programs, talking TLS on
127.0.0.1 with the certificates of ``arena cluster init`` (every listener bound to 127.0.0.1),
a worker that cannot import arena is a real worker process whose interpreter refuses the
import, and a hostile worker is a real worker running ``tests/attacks/hostile_worker.py``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import distributed
import pytest

from arena.cluster import client as cluster
from arena.cluster import security as cluster_security
from arena.matches.secrecy import SecretFile

HOSTILE = Path(__file__).parent / "attacks" / "hostile_worker.py"


def _wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class LocalDaskCluster:
    """A scheduler and named workers started with Dask's own CLI, each in its own session."""

    def __init__(self, workdir: Path, guard: bool = True) -> None:
        self.guard = guard
        """Whether every process preloads arena's role checks (as docs/cluster.md says)."""
        self.workdir = workdir
        self.scheduler_file = workdir / "scheduler.json"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.address = ""
        self.certs = workdir / "certs"
        cluster_security.init_certificates(self.certs, "127.0.0.1")

    def tls(self, role: str, guarded: bool = True) -> list[str]:
        """The TLS options of ``role``'s dask command (``worker-NAME`` for a worker), with
        arena's role checks preloaded as docs/cluster.md says (unless not ``guarded``)."""
        d = self.certs
        guarded = guarded and self.guard
        guard = ["--preload", cluster_security.GUARD] if guarded else []
        if role.startswith("worker-") and guarded:
            guard += ["--preload-nanny", cluster_security.GUARD]
        return ["--tls-ca-file", f"{d}/ca.pem", "--tls-cert", f"{d}/{role}.pem"] + [
            "--tls-key",
            f"{d}/{role}.key",
            *guard,
        ]

    def client(self) -> distributed.Client:
        """A Dask client of the test itself, with the arena's client certificate."""
        security = cluster_security.security(self.certs)
        return distributed.Client(self.address, set_as_default=False, timeout=10, security=security)

    def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> None:
        log = open(self.workdir / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        self.procs[name] = subprocess.Popen(
            [sys.executable, "-m", "dask", *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env},
            start_new_session=True,
        )

    def start_scheduler(self, env: dict[str, str] | None = None, guarded: bool = True) -> None:
        """``dask scheduler`` on a free port of 127.0.0.1; its address comes from its file."""
        self._spawn(
            "scheduler",
            [
                "scheduler",
                "--protocol",
                "tls",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--dashboard-address",
                "127.0.0.1:0",
                "--scheduler-file",
                str(self.scheduler_file),
                *self.tls("scheduler", guarded),
            ],
            env or {},
        )
        _wait_for(self.scheduler_file.exists, 30, "the scheduler file")
        self.address = json.loads(self.scheduler_file.read_text())["address"]

    def start_worker(
        self,
        name: str,
        env: dict[str, str] | None = None,
        extra: tuple[str, ...] = (),
        guarded: bool = True,
    ) -> None:
        """``dask worker ADDR --nworkers 1 --nthreads 1 --name NAME`` (with a nanny), every
        listener on 127.0.0.1, with its own certificate (issued on its first start)."""
        if not cluster_security.worker_files(self.certs, name)[0].exists():
            cluster_security.add_worker(self.certs, name)
        self._spawn(
            name,
            [
                "worker",
                self.address,
                "--nworkers",
                "1",
                "--nthreads",
                "1",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
                "--dashboard-address",
                "127.0.0.1:0",
                "--name",
                name,
                *self.tls(f"worker-{name}", guarded),
                *extra,
            ],
            env or {},
        )

    def worker_addresses(self) -> dict[str, str]:
        """Connected workers: name → address."""
        with self.client() as client:
            info = client.scheduler_info(n_workers=-1)["workers"]
        return {str(w["name"]): addr for addr, w in info.items()}

    def wait_for_workers(self, names: set[str], timeout: float = 60) -> None:
        """Block until exactly ``names`` are connected."""
        _wait_for(lambda: set(self.worker_addresses()) == names, timeout, f"workers {names}")

    def stop(self, name: str) -> None:
        """SIGTERM the process group of ``name`` (the nanny and its worker), then SIGKILL."""
        proc = self.procs.pop(name)
        for sig, grace in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(grace)
                break
            except subprocess.TimeoutExpired:
                continue

    def close(self) -> None:
        """Stop every worker, then the scheduler."""
        for name in [n for n in self.procs if n != "scheduler"]:
            self.stop(name)
        if "scheduler" in self.procs:
            self.stop("scheduler")


@contextmanager
def two_workers(workdir: Path) -> Iterator[LocalDaskCluster]:
    """A running scheduler with two one-thread workers, ``w1`` and ``w2``, each with its own
    certificate; closed on the way out."""
    c = LocalDaskCluster(workdir)
    try:
        c.start_scheduler()
        c.start_worker("w1")
        c.start_worker("w2")
        c.wait_for_workers({"w1", "w2"})
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDaskCluster]:
    """A running scheduler with two one-thread workers, ``w1`` and ``w2``."""
    with two_workers(tmp_path_factory.mktemp("dask")) as c:
        yield c


def test_probe_reports_every_worker(dask_cluster: LocalDaskCluster) -> None:
    client = cluster.connect(dask_cluster.address, certs=dask_cluster.certs)
    try:
        reports = cluster.check_workers(client)
    finally:
        client.close()
    assert sorted(r.name for r in reports) == ["w1", "w2"]
    want = cluster.local_versions()
    for r in reports:
        assert r.error is None
        assert r.arena == want["arena"]
        assert r.distributed == want["distributed"]
        assert r.nthreads == 1
        assert r.layers and r.sandbox_error is None
        # Its listeners (worker, nanny, Dask's http server) as seen in its own process.
        assert len(r.listening) >= 2 and all(a.startswith("127.0.0.1:") for a in r.listening)


@contextmanager
def extra_worker(
    c: LocalDaskCluster, name: str, env: dict[str, str], guarded: bool = True
) -> Iterator[None]:
    """One more worker beside w1 and w2 for the duration of a test."""
    c.start_worker(name, env=env, guarded=guarded)
    try:
        c.wait_for_workers({"w1", "w2", name})
        yield
    finally:
        c.stop(name)
        c.wait_for_workers({"w1", "w2"})


def _check_error(c: LocalDaskCluster) -> str:
    client = cluster.connect(c.address, certs=c.certs)
    started = time.monotonic()
    try:
        with pytest.raises(cluster.ClusterError) as err:
            cluster.check_workers(client, timeout=30)
    finally:
        client.close()
    assert time.monotonic() - started < 30  # an answer, not a probe timeout
    message = str(err.value)
    assert "\n" not in message
    return message


def test_worker_without_arena_is_named_not_a_hang(
    dask_cluster: LocalDaskCluster, tmp_path: Path
) -> None:
    # sitecustomize runs at interpreter start in the worker (and its spawned child): `import
    # arena` then fails there exactly as on a machine where the package was never installed.
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text('import sys\nsys.modules["arena"] = None\n')
    # Without arena there is no arena.cluster.roles to preload either (with it, the worker
    # would not even start, its log saying `No module named 'arena'`).
    with extra_worker(dask_cluster, "noarena", {"PYTHONPATH": str(blocker)}, guarded=False):
        message = _check_error(dask_cluster)
    assert message.startswith("worker noarena (tls://127.0.0.1:")
    assert "arena is not importable there" in message


def test_scheduler_without_arena_is_one_clear_error(tmp_path: Path) -> None:
    # Dask unpickles tasks on the scheduler too: a scheduler that cannot import arena would
    # reject every batch, so it is checked before anything else.
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text('import sys\nsys.modules["arena"] = None\n')
    c = LocalDaskCluster(tmp_path)
    try:
        c.start_scheduler(env={"PYTHONPATH": str(blocker)}, guarded=False)
        out = arena(
            "run",
            "--cluster",
            c.address,
            "--cluster-certs",
            str(c.certs),
            "--db",
            str(tmp_path / "x.db"),
        )
    finally:
        c.close()
    assert out.returncode == 1
    assert out.stderr.startswith(f"Error: the scheduler at {c.address}: arena is not importable")
    assert out.stderr.count("\n") == 1


def test_worker_without_sandbox_layers_is_named(dask_cluster: LocalDaskCluster) -> None:
    # The sandbox's own switch turns every isolating layer off on this worker only, as on a
    # machine without bubblewrap, Landlock, seccomp or root.
    env = {"ARENA_SANDBOX_DISABLE": "bwrap,uid,landlock,seccomp"}
    with extra_worker(dask_cluster, "nosandbox", env):
        message = _check_error(dask_cluster)
        _, lines, problem = cluster.doctor(dask_cluster.address, certs=dask_cluster.certs)
    assert message.startswith("worker nosandbox (tls://127.0.0.1:")
    assert "its sandbox cannot run bots: cannot sandbox bots here" in message
    assert problem == message
    # The doctor shows every worker with its layers; only the crippled one lacks bwrap.
    bwrap = [line for line in lines if line.lstrip("+- ").startswith("bwrap")]
    assert sorted(line.strip()[0] for line in bwrap) == ["+", "+", "-"]
    assert sum(line.startswith("worker ") and line.endswith(": ok") for line in lines) == 2


def test_unreachable_scheduler_fails_fast_in_one_line() -> None:
    import socket

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(cluster.ClusterError) as err:
        cluster.connect(f"tcp://127.0.0.1:{port}", timeout=5, insecure=True)
    assert time.monotonic() - started < 5
    assert str(err.value) == (
        f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: Connection refused"
    )


@pytest.mark.parametrize(
    ("address", "endpoint"),
    [
        ("tcp://10.1.2.3:8786", ("10.1.2.3", 8786)),
        ("head.example:8786", ("head.example", 8786)),
        ("tls://[::1]:8786", ("::1", 8786)),
        ("inproc://x", None),
    ],
    ids=["tcp", "no-scheme", "tls-ipv6", "other-scheme"],
)
def test_tcp_endpoint(address: str, endpoint: tuple[str, int] | None) -> None:
    assert cluster._tcp_endpoint(address) == endpoint


def test_bad_address_is_a_user_error() -> None:
    with pytest.raises(cluster.ClusterError, match="bad scheduler address"):
        cluster._tcp_endpoint("tcp://nohostport")


# --- whole tournaments: `arena run --cluster` against the local pool -------------------------

# Random play with a short think per decision: long enough (about 0.5 s a match) to kill a
# worker or the parent while matches are in flight, short enough for a lean suite.
SLOW_BOT = """import random
import time


class Bot:
    name = "slow"

    def act(self, obs):
        time.sleep(0.002)
        return random.choice(obs["legal"])
"""
RUN_ARGS = ["--seed", "5", "--no-site"]


def run_args(bot_files: list[str], rounds: int = 2) -> list[str]:
    """RUN_ARGS (two rounds: 12 matches of 3 distinct bots) with the deal secret the fixture
    wrote: two databases, the same deals."""
    secret = str(Path(bot_files[-1]).with_name("secret.json"))
    return ["--rounds", str(rounds), *RUN_ARGS, "--secret-file", secret]


@pytest.fixture(scope="module")
def bot_files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Three different bots: the bundled heuristic and random bots and a slow random one."""
    from arena.sandbox.botfile import BUNDLED_BOTS

    slow = tmp_path_factory.mktemp("bots") / "slow.py"
    slow.write_text(SLOW_BOT)
    slow.with_name("secret.json").write_text(SecretFile(5, bytes(32)).to_json())
    return [str(BUNDLED_BOTS / "heuristic.py"), str(BUNDLED_BOTS / "random_bot.py"), str(slow)]


def arena_cmd(*args: str) -> list[str]:
    """The real CLI, in this interpreter."""
    return [sys.executable, "-m", "arena.cli", *args]


def on(c: LocalDaskCluster) -> list[str]:
    """The options that send a run to ``c``."""
    return ["--cluster", c.address, "--cluster-certs", str(c.certs)]


def arena(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run the CLI to completion and capture its output."""
    return subprocess.run(arena_cmd(*args), capture_output=True, text=True, timeout=timeout)


def stored(db: Path) -> list[tuple[object, ...]]:
    """Every stored match, seat and hand, without timings and timestamps."""
    # Raw rows: two databases compared column by column (serial == parallel == cluster).
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT id, tournament_id, set_key, round, seating, seed, bot0, bot1, bot2, score0,"
            " score1, score2, place0, place1, place2, hands_played, truncated, faults, status"
            " FROM matches ORDER BY id"
        ).fetchall()
        rows += con.execute(
            "SELECT match_id, seat, bot_version_id, score, place, faulted, decisions, asked"
            " FROM match_seats ORDER BY 1, 2"
        ).fetchall()
        rows += con.execute("SELECT match_id, hand_number, record FROM hands ORDER BY 1, 2")
    finally:
        con.close()
    return rows


def stored_count(db: Path) -> int:
    """Matches stored so far (read while the parent writes)."""
    if not db.exists():
        return 0
    # Raw: the parent is still making this file, and a Store would create its schema.
    con = sqlite3.connect(db, timeout=10)
    try:
        return int(con.execute("SELECT count(*) FROM matches").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        con.close()


def standings(db: Path) -> dict[str, object]:
    """``arena standings --json``."""
    out = arena("standings", "--json", "--db", str(db))
    assert out.returncode == 0, out.stderr
    result: dict[str, object] = json.loads(out.stdout)
    return result


@pytest.fixture(scope="module")
def local_reference(
    bot_files: list[str], tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[tuple[object, ...]], dict[str, object]]:
    """The same tournament through the local process pool: stored rows and standings."""
    db = tmp_path_factory.mktemp("local") / "local.db"
    out = arena("run", *bot_files, *run_args(bot_files), "--workers", "2", "--db", str(db))
    assert out.returncode == 0, out.stderr
    rows = stored(db)
    assert len([r for r in rows if len(r) == 19]) == 12
    return rows, standings(db)


def test_cluster_run_equals_local_run(
    dask_cluster: LocalDaskCluster,
    bot_files: list[str],
    local_reference: tuple[list[tuple[object, ...]], dict[str, object]],
    tmp_path: Path,
) -> None:
    db = tmp_path / "cluster.db"
    out = arena("run", *bot_files, *run_args(bot_files), *on(dask_cluster), "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert "12 matches, 2 workers" in out.stdout
    assert "12/12 stored" in out.stdout
    assert stored(db) == local_reference[0]
    assert standings(db) == local_reference[1]
    # forward_logging: the workers' own records ("worker PID played ...") are in the parent's
    # log file, with the pids of the Dask worker processes.
    with dask_cluster.client() as client:
        pids = set(client.run(os.getpid).values())
        # arena's worker plugin paused Dask's 10 ms stack sampler and slowed its 20 ms tick.
        bookkeeping = client.run(
            lambda dask_worker: (
                dask_worker.periodic_callbacks["profile"].is_running(),
                dask_worker.periodic_callbacks["tick"].callback_time,
            )
        )
    assert list(bookkeeping.values()) == [(False, 500.0), (False, 500.0)]
    # A finished run closes the workers' bot pools: no bot process outlives it.
    assert not [p for w in pids for p in _descendants(w) if "host.py" in _cmdline(p)]
    logged = re.findall(
        r"arena\.tournaments\.runner INFO worker (\d+) played", db.with_suffix(".log").read_text()
    )
    assert logged and {int(p) for p in logged} <= pids


def _proc_table() -> dict[int, tuple[int, str, str]]:
    """pid → (ppid, start time, state) of every process, from /proc."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(name)] = (int(fields[1]), fields[19], fields[0])
    return table


def _descendants(root: int) -> dict[int, str]:
    """pid → start time of every live descendant of ``root``."""
    table = _proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = {}, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found[pid] = table[pid][1]
        todo.extend(children.get(pid, []))
    return found


def _alive(procs: dict[int, str]) -> list[int]:
    """The pids of ``procs`` still running (same start time, not a zombie)."""
    table = _proc_table()
    return [
        p
        for p, start in procs.items()
        if p in table and table[p][1] == start and table[p][2] != "Z"
    ]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_worker_killed_mid_run_reruns_its_matches_and_leaves_no_bots(
    dask_cluster: LocalDaskCluster,
    bot_files: list[str],
    local_reference: tuple[list[tuple[object, ...]], dict[str, object]],
    tmp_path: Path,
) -> None:
    db = tmp_path / "killed.db"
    run = subprocess.Popen(
        arena_cmd(
            "run",
            *bot_files,
            *run_args(bot_files),
            *on(dask_cluster),
            "--db",
            str(db),
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with dask_cluster.client() as client:
            w1 = dask_cluster.worker_addresses()["w1"]
            pid = client.run(os.getpid, workers=[w1])[w1]
            bots: dict[int, str] = {}

            def playing() -> bool:
                # w1 runs a batch and its match has bot processes (hosts under bwrap or not).
                nonlocal bots
                bots = _descendants(pid)
                hosts = [p for p in bots if "host.py" in _cmdline(p)]
                return bool(client.processing(workers=[w1]).get(w1)) and len(hosts) >= 3

            _wait_for(playing, 120, "a match on w1")
            os.kill(pid, signal.SIGKILL)
        out, err = run.communicate(timeout=180)
    finally:
        run.kill()
    assert run.returncode == 0, err
    # The match w1 was playing ran again elsewhere and is stored once, as in a local run.
    assert stored(db) == local_reference[0]
    # The dead worker's bots died with it (the sandbox's die-with-parent chain).
    _wait_for(lambda: not _alive(bots), 10, f"the bots of the killed worker {sorted(bots)}")
    dask_cluster.wait_for_workers({"w1", "w2"})  # its nanny restarted it


def test_ctrl_c_then_parent_killed_then_resume(
    dask_cluster: LocalDaskCluster, bot_files: list[str], tmp_path: Path
) -> None:
    # Five rounds: 30 matches in five batches (a duplicate set is one batch), so a run can be
    # stopped between batches while others are still to play.
    args = run_args(bot_files, rounds=5)
    local = tmp_path / "local.db"
    out = arena("run", *bot_files, *args, "--workers", "2", "--db", str(local))
    assert out.returncode == 0, out.stderr
    db = tmp_path / "resume.db"
    cmd = arena_cmd("run", *bot_files, *args, *on(dask_cluster), "--db", str(db))

    # Ctrl-C once some matches are stored: a clean stop, and the cluster forgets the run's tasks.
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: stored_count(db) >= 2, 120, "two stored matches")
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 130, err
    assert "Interrupted: finished matches are stored" in err
    first = stored_count(db)
    assert 2 <= first < 30
    with dask_cluster.client() as client:
        _wait_for(
            lambda: client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0,
            30,
            "the scheduler to drop the interrupted run's tasks",
        )

    # Resume, then kill -9 the parent as soon as it has stored more.
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: stored_count(db) > first, 120, "a match stored by the resumed run")
        run.kill()
        run.communicate(timeout=60)
    finally:
        run.kill()
    assert stored_count(db) > first

    # Resume again: only the missing matches run, and the tournament equals the local one.
    out = arena(*cmd[3:])
    assert out.returncode == 0, out.stderr
    assert "already stored" in out.stdout
    assert stored(db) == stored(local)
    assert standings(db) == standings(local)


def test_cli_unreachable_scheduler_is_one_line_exit_1(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    db = tmp_path / "x.db"
    for args in (["run", "--cluster", address, "--db", str(db)], ["doctor", "--cluster", address]):
        out = arena(*args, "--insecure-cluster")
        assert out.returncode == 1
        assert out.stderr == (  # the risk, said once, then the error
            f"{cluster.INSECURE_WARNING}\n"
            f"Error: cannot reach the Dask scheduler at {address}: Connection refused\n"
        )
    assert not db.exists()


def test_cli_doctor_reports_each_worker(dask_cluster: LocalDaskCluster) -> None:
    out = arena("doctor", *on(dask_cluster), "--json")
    assert out.returncode == 0, out.stderr
    reports = json.loads(out.stdout)
    assert sorted(r["name"] for r in reports) == ["w1", "w2"]
    for r in reports:
        assert r["error"] is None and r["sandbox_error"] is None
        assert {"bwrap", "landlock", "seccomp"} <= {la["name"] for la in r["layers"]}


# --- a cluster that trusts nobody -----------------------------------------------------------


def test_plain_tcp_is_refused_without_insecure_cluster(tmp_path: Path) -> None:
    # Refused before any connection: nothing needs to listen there.
    db = tmp_path / "x.db"
    for args in (
        ["run", "--cluster", "tcp://127.0.0.1:9", "--db", str(db)],
        ["doctor", "--cluster", "127.0.0.1:9"],
    ):
        out = arena(*args)
        assert out.returncode == 1
        assert out.stderr.startswith("Error: refusing ")
        assert "--insecure-cluster" in out.stderr and out.stderr.count("\n") == 1
    out = arena("run", "--cluster", "tls://127.0.0.1:9", "--db", str(db))
    assert out.returncode == 1
    assert (
        out.stderr == "Error: tls://127.0.0.1:9 needs the client certificate: --cluster-certs DIR\n"
    )
    assert not db.exists()


def test_a_peer_without_certificates_is_refused(
    dask_cluster: LocalDaskCluster, tmp_path: Path
) -> None:
    plain = dask_cluster.address.replace("tls://", "tcp://")
    with pytest.raises((OSError, TimeoutError)):
        distributed.Client(plain, set_as_default=False, timeout=3).close()
    # TLS that trusts the cluster's CA but shows no certificate: the handshake is refused.
    host, _, port = dask_cluster.address.removeprefix("tls://").rpartition(":")
    ctx = ssl.create_default_context(cafile=str(dask_cluster.certs / "ca.pem"))
    ctx.check_hostname = False
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        with pytest.raises(ssl.SSLError, match="CERTIFICATE_REQUIRED|certificate required"):
            with ctx.wrap_socket(raw) as tls:
                tls.recv(1)  # TLS 1.3 reports the refusal on the first read
    # Certificates of another CA (another `arena cluster init`): refused too.
    cluster_security.init_certificates(tmp_path / "other", "127.0.0.1")
    with pytest.raises(cluster.ClusterError, match="TLS certificate does not match"):
        cluster.connect(dask_cluster.address, timeout=3, certs=tmp_path / "other").close()
    assert set(dask_cluster.worker_addresses()) == {"w1", "w2"}  # the cluster is unharmed


def test_wildcard_listeners_are_refused(dask_cluster: LocalDaskCluster) -> None:
    # The workplace allows loopback listeners only, so the wildcard bind is a report's: the
    # real worker's report with one more listener, as a worker started without --host has.
    client = cluster.connect(dask_cluster.address, certs=dask_cluster.certs)
    try:
        report = cluster.check_workers(client)[0]
    finally:
        client.close()
    assert cluster.worker_problem(report, cluster.local_versions()) is None
    for wild in ("0.0.0.0:41459", "[::]:35255"):
        bad = dataclasses.replace(report, listening=[*report.listening, wild])
        problem = cluster.worker_problem(bad, cluster.local_versions())
        assert problem == (
            f"it listens on every interface ({wild}); start it with --host ADDR "
            "--dashboard-address ADDR:0 (docs/cluster.md)"
        )
    assert cluster_security.wildcard(["127.0.0.1:1", "[::1]:2", "0.0.0.0:3", "[::]:4"]) == [
        "0.0.0.0:3",
        "[::]:4",
    ]


@pytest.fixture
def hostile_cluster(tmp_path: Path) -> Iterator[LocalDaskCluster]:
    """A scheduler with one worker that runs tests/attacks/hostile_worker.py (mode set later)."""
    c = LocalDaskCluster(tmp_path / "hostile")
    c.workdir.mkdir(exist_ok=True)
    try:
        c.start_scheduler()
        yield c
    finally:
        c.close()


@pytest.mark.parametrize("mode", ["forge", "pickle"])
def test_a_hostile_worker_changes_nothing_stored_and_runs_nothing_here(
    hostile_cluster: LocalDaskCluster, bot_files: list[str], tmp_path: Path, mode: str
) -> None:
    marker = tmp_path / "unpickled-here"
    env = {"ARENA_HOSTILE": mode, "ARENA_HOSTILE_MARKER": str(marker)}
    hostile_cluster.start_worker("liar", env=env, extra=("--preload", str(HOSTILE)))
    hostile_cluster.wait_for_workers({"liar"})
    db = tmp_path / "attacked.db"
    args = run_args(bot_files, rounds=5)  # five batches: more to play once the liar is dropped
    out = arena("run", *bot_files, *args, *on(hostile_cluster), "--db", str(db))
    # Its first batch proves it a liar: it is dropped, what it held is played on the arena
    # machine, and with no worker left for the rest the run stops, naming it.
    assert out.returncode == 1
    assert out.stderr.startswith("Error: no worker of the cluster is left to play on: dropped ")
    assert out.stderr.count("\n") == 1
    local = tmp_path / "local.db"
    assert arena("run", *bot_files, *args, "--workers", "2", "--db", str(local)).returncode == 0
    assert set(stored(db)) <= set(stored(local))  # only honest records
    log = db.with_suffix(".log").read_text()
    why = {
        "forge": "its scores or end differ from the replay",
        "pickle": "refused to unpickle posix.system from a cluster peer",
    }[mode]
    assert "refused a worker's record, not stored: " in log and why in log
    assert "dropped worker liar (tls://127.0.0.1:" in log
    assert not marker.exists()  # the payload never ran in the arena process


def test_cli_cluster_init_makes_private_certificates_and_prints_the_commands(
    tmp_path: Path,
) -> None:
    certs = tmp_path / "certs"
    out = arena(
        "cluster", "init", str(certs), "--host", "127.0.0.1", "--port", "8799", "--worker", "w1"
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"made 4 certificates in {certs} (keys readable by you only)"
    scheduler, worker, run = lines[1:]
    assert scheduler.startswith("dask scheduler --protocol tls --host 127.0.0.1 --port 8799 ")
    assert "--dashboard-address 127.0.0.1:0" in scheduler and f"{certs}/scheduler.key" in scheduler
    assert "--preload arena.cluster.roles " in scheduler
    assert worker.startswith("dask worker tls://127.0.0.1:8799 --host WORKER_ADDRESS ")
    assert f"{certs}/worker-w1.pem" in worker and "--nthreads 1" in worker
    assert "--name w1 --preload arena.cluster.roles --preload-nanny arena.cluster.roles" in worker
    assert run == f"arena run BOTS... --cluster tls://127.0.0.1:8799 --cluster-certs {certs}"
    assert certs.stat().st_mode & 0o777 == 0o700
    names = sorted(p.name for p in certs.iterdir())
    assert names == sorted(
        [f"{r}.{x}" for r in ("ca", "scheduler", "client", "worker-w1") for x in ("pem", "key")]
        + ["revoked.pem"]
    )
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in certs.iterdir())
    again = arena("cluster", "init", str(certs), "--host", "127.0.0.1")
    assert (again.returncode, again.stderr) == (
        1,
        f"Error: {certs} already holds ca.pem: use a new directory\n",
    )
    wild = arena("cluster", "init", str(tmp_path / "w"), "--host", "0.0.0.0")
    assert wild.returncode == 1 and "every interface" in wild.stderr
    assert not (tmp_path / "w").exists()


def test_cli_add_worker_and_revoke_touch_only_their_worker(tmp_path: Path) -> None:
    certs = tmp_path / "certs"
    assert arena("cluster", "init", str(certs), "--host", "127.0.0.1").returncode == 0
    before = {p.name: p.read_bytes() for p in certs.iterdir()}
    out = arena("cluster", "add-worker", str(certs), "gpu1")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        f"made worker-gpu1.pem and worker-gpu1.key in {certs}: copy them with ca.pem to gpu1\n"
    )
    for bad, why in (("gpu1", "already holds worker-gpu1.pem"), ("a b", "bad worker name")):
        out = arena("cluster", "add-worker", str(certs), bad)
        assert out.returncode == 1 and why in out.stderr and out.stderr.count("\n") == 1
    out = arena("cluster", "revoke", str(certs), "gpu2")
    assert (out.returncode, out.stderr) == (
        1,
        f"Error: no worker 'gpu2' in {certs} (workers: gpu1)\n",
    )
    assert arena("cluster", "revoke", str(certs), "gpu1").returncode == 0
    after = {p.name: p.read_bytes() for p in certs.iterdir()}
    changed = {n for n in after if before.get(n) != after[n]}
    assert changed == {"worker-gpu1.pem", "worker-gpu1.key", "revoked.pem"}
