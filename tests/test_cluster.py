"""Cluster runs on a REAL local Dask cluster: ``dask scheduler`` + 2 × ``dask worker`` processes.

Nothing is mocked: the scheduler and workers are the real command-line programs, talking TCP on
127.0.0.1, and a worker that cannot import arena is a real worker process whose interpreter
refuses the import.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from arena import cluster  # noqa: E402

# Sandbox code may start multiprocessing children; Dask workers are daemonic by default and a
# daemonic process may not have children (research/distributed.md, 2d).
WORKER_ENV = {"DASK_DISTRIBUTED__WORKER__DAEMON": "False"}


def _wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class LocalDaskCluster:
    """A scheduler and named workers started with Dask's own CLI, each in its own session."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.scheduler_file = workdir / "scheduler.json"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.address = ""

    def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> None:
        log = open(self.workdir / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        self.procs[name] = subprocess.Popen(
            [sys.executable, "-m", "dask", *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env},
            start_new_session=True,
        )

    def start_scheduler(self) -> None:
        """``dask scheduler`` on a free port of 127.0.0.1; its address comes from its file."""
        self._spawn(
            "scheduler",
            [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(self.scheduler_file),
            ],
            {},
        )
        _wait_for(self.scheduler_file.exists, 30, "the scheduler file")
        self.address = json.loads(self.scheduler_file.read_text())["address"]

    def start_worker(self, name: str, env: dict[str, str] | None = None) -> None:
        """``dask worker ADDR --nworkers 1 --nthreads 1 --name NAME`` (with a nanny)."""
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
                "--name",
                name,
            ],
            {**WORKER_ENV, **(env or {})},
        )

    def worker_addresses(self) -> dict[str, str]:
        """Connected workers: name → address."""
        with distributed.Client(self.address, set_as_default=False, timeout=10) as client:
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


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDaskCluster]:
    """A running scheduler with two one-thread workers, ``w1`` and ``w2``."""
    c = LocalDaskCluster(tmp_path_factory.mktemp("dask"))
    try:
        c.start_scheduler()
        c.start_worker("w1")
        c.start_worker("w2")
        c.wait_for_workers({"w1", "w2"})
        yield c
    finally:
        c.close()


def test_probe_reports_every_worker(dask_cluster: LocalDaskCluster) -> None:
    client = cluster.connect(dask_cluster.address)
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
        # The worker env flips Dask's daemon default so the sandbox may start children.
        assert r.daemon is False


@contextmanager
def extra_worker(c: LocalDaskCluster, name: str, env: dict[str, str]) -> Iterator[None]:
    """One more worker beside w1 and w2 for the duration of a test."""
    c.start_worker(name, env=env)
    try:
        c.wait_for_workers({"w1", "w2", name})
        yield
    finally:
        c.stop(name)
        c.wait_for_workers({"w1", "w2"})


def _check_error(address: str) -> str:
    client = cluster.connect(address)
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
    with extra_worker(dask_cluster, "noarena", {"PYTHONPATH": str(blocker)}):
        message = _check_error(dask_cluster.address)
    assert message.startswith("worker noarena (tcp://127.0.0.1:")
    assert "arena is not importable there" in message


def test_worker_without_sandbox_layers_is_named(dask_cluster: LocalDaskCluster) -> None:
    # The sandbox's own switch turns every isolating layer off on this worker only, as on a
    # machine without bubblewrap, Landlock, seccomp or root.
    env = {"ARENA_SANDBOX_DISABLE": "bwrap,uid,landlock,seccomp"}
    with extra_worker(dask_cluster, "nosandbox", env):
        message = _check_error(dask_cluster.address)
        _, lines, problem = cluster.doctor(dask_cluster.address)
    assert message.startswith("worker nosandbox (tcp://127.0.0.1:")
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
        cluster.connect(f"tcp://127.0.0.1:{port}", timeout=5)
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
