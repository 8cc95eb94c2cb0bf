"""Certificates by role on a REAL TLS cluster on 127.0.0.1 (issue 34, attack 2).

The scheduler and two workers are Dask's own command-line programs started as docs/cluster.md
says (each worker with its own certificate from ``arena cluster add-worker``, every process
preloading ``arena.cluster.roles``). The attacker is ``tests/attacks/worker_key_client.py`` in
its own process, holding the real key of worker ``w1``: it tries each operation only the arena
client may use, as a client of the scheduler and directly on worker ``w2`` and its nanny.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cluster import LocalDaskCluster, arena, bot_files, on, two_workers  # noqa: F401

from arena.cluster import client as cluster
from arena.cluster import roles
from arena.cluster import security as cluster_security

ATTACKER = Path(__file__).parent / "attacks" / "worker_key_client.py"
STREAM_ATTACK = Path(__file__).parent / "attacks" / "worker_stream.py"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDaskCluster]:
    """A scheduler with workers ``w1`` and ``w2``, each with its own certificate."""
    with two_workers(tmp_path_factory.mktemp("roles")) as c:
        yield c


@pytest.fixture(scope="module")
def attack(guarded: LocalDaskCluster) -> dict[str, str]:
    """What the holder of w1's key got for each attempt (tests/attacks/worker_key_client.py)."""
    with guarded.client() as client:
        info = client.scheduler_info(n_workers=-1)["workers"]
    w2 = next(a for a, w in info.items() if w["name"] == "w2")
    cert, key = cluster_security.worker_files(guarded.certs, "w1")
    marker = guarded.workdir / "attack-ran"
    out = subprocess.run(
        [sys.executable, str(ATTACKER), guarded.address, str(guarded.certs / "ca.pem")]
        + [str(cert), str(key), str(marker), w2, info[w2]["nanny"]],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    outcome: dict[str, str] = json.loads(out.stdout)
    outcome["payload ran somewhere"] = str(marker.exists())
    return outcome


# Each operation only the client may use, with what the holder of w1's key is told.
REFUSED = {
    "scheduler: submit a task": "",  # the client never connects: register-client is refused
    "scheduler: run_function": "refused 'run_function' from worker certificate 'w1'",
    "scheduler: broadcast run to workers": "refused 'broadcast' from worker certificate 'w1'",
    "scheduler: broadcast run to nannies": "refused 'broadcast' from worker certificate 'w1'",
    "scheduler: register_worker_plugin": "refused 'register_worker_plugin' from worker",
    "scheduler: register_scheduler_plugin": "refused 'register_scheduler_plugin' from worker",
    "scheduler: register_nanny_plugin": "refused 'register_nanny_plugin' from worker",
    "scheduler: proxy run to a worker": "refused 'proxy' from worker certificate 'w1'",
    "scheduler: gather results": "refused 'gather' from worker certificate 'w1'",
    "scheduler: read events": "refused 'events' from worker certificate 'w1'",
    "scheduler: connection_stream": "refused 'connection_stream' from worker certificate 'w1'",
    "scheduler: unregister another worker": "(registered by worker certificate 'w2')",
    "scheduler: register under another worker's name": "refused 'register-worker' as 'w2'",
    "scheduler: retire workers": "refused 'retire_workers' by name or number",
    "scheduler: restart": "refused 'restart' from worker certificate 'w1'",
    "scheduler: terminate": "refused 'terminate' from worker certificate 'w1'",
    # A worker serves nobody but the scheduler and the client: the connection is closed as it
    # is accepted, before any operation is read.
    "worker: run": "CommClosedError",
    "worker: plugin-add": "CommClosedError",
    "worker: get_data": "CommClosedError",
    "worker: terminate": "CommClosedError",
    "nanny: run": "CommClosedError",
    "nanny: plugin_add": "CommClosedError",
    "nanny: kill": "CommClosedError",
}


@pytest.mark.parametrize("operation", list(REFUSED), ids=list(REFUSED))
def test_the_worker_key_is_refused_every_client_operation(
    attack: dict[str, str], operation: str
) -> None:
    got = attack[operation]
    assert got.startswith("refused: "), got
    assert REFUSED[operation] in got


def test_nothing_the_worker_key_sent_ran_and_the_cluster_is_whole(
    attack: dict[str, str], guarded: LocalDaskCluster
) -> None:
    assert attack["payload ran somewhere"] == "False"
    assert set(guarded.worker_addresses()) == {"w1", "w2"}
    with guarded.client() as client:
        plugins = client.run_on_scheduler(
            lambda dask_scheduler: sorted(dask_scheduler.worker_plugins)
        )
    assert "rigged" not in plugins
    log = (guarded.workdir / "scheduler.log").read_text()
    assert "refused 'register-client' from worker certificate 'w1'" in log


def test_the_client_key_still_does_everything(guarded: LocalDaskCluster) -> None:
    # The same operations with the arena client's certificate (a function every process can
    # import: whether it runs the role checks, which each of them does).
    with guarded.client() as client:
        assert client.submit(roles.installed, pure=False).result(timeout=30) is True
        assert list(client.run(roles.installed).values()) == [True, True]
        assert list(client.run(roles.installed, nanny=True).values()) == [True, True]
        assert client.run_on_scheduler(roles.installed) is True
        client.register_plugin(cluster.ArenaWorkerPlugin(20), name="arena-roles-test")
        client.unregister_worker_plugin("arena-roles-test")


def test_a_tournament_on_the_guarded_cluster_completes_with_nothing_refused(
    guarded: LocalDaskCluster,
    bot_files: list[str],  # noqa: F811
    tmp_path: Path,
) -> None:
    secret = str(Path(bot_files[-1]).with_name("secret.json"))
    db = tmp_path / "run.db"
    args = ["--rounds", "1", "--seed", "5", "--no-site", "--secret-file", secret]
    logs = [guarded.workdir / f"{n}.log" for n in ("scheduler", "w1", "w2")]
    before = [log.read_text().count("refused") for log in logs]
    out = arena("run", *bot_files, *args, *on(guarded), "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert "6/6 stored" in out.stdout
    # An honest run asks nothing a role may not: no refusal anywhere.
    assert [log.read_text().count("refused") for log in logs] == before


def test_a_revoked_worker_is_dropped_and_cannot_connect_again(guarded: LocalDaskCluster) -> None:
    out = arena("cluster", "add-worker", str(guarded.certs), "w3")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("made worker-w3.pem and worker-w3.key in ")
    guarded.start_worker("w3")
    try:
        guarded.wait_for_workers({"w1", "w2", "w3"})
        out = arena("cluster", "revoke", str(guarded.certs), "w3")
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("revoked worker w3 (serial ")
        # The next arena command hands the list to the scheduler, which drops w3 at once.
        out = arena("doctor", *on(guarded), "--json")
        assert out.returncode == 0, out.stderr
        assert sorted(r["name"] for r in json.loads(out.stdout)) == ["w1", "w2"]
        assert set(guarded.worker_addresses()) == {"w1", "w2"}
        # w3's nanny starts it again and again: every connection is refused as it is accepted.
        time.sleep(5)
        assert set(guarded.worker_addresses()) == {"w1", "w2"}
        log = (guarded.workdir / "scheduler.log").read_text()
        assert "closed the connection of revoked worker certificate 'w3'" in log
        assert "refused the connection of a revoked certificate from worker certificate 'w3'" in log
    finally:
        guarded.stop("w3")
    # The other workers kept their certificates and their connections.
    client = cluster.connect(guarded.address, certs=guarded.certs)
    try:
        assert sorted(r.name for r in cluster.check_workers(client)) == ["w1", "w2"]
    finally:
        client.close()


def test_a_scheduler_without_role_checks_is_refused_in_one_line(tmp_path: Path) -> None:
    c = LocalDaskCluster(tmp_path, guard=False)
    try:
        c.start_scheduler()
        out = arena("run", *on(c), "--db", str(tmp_path / "x.db"))
    finally:
        c.close()
    assert out.returncode == 1
    assert out.stderr == (
        f"Error: the scheduler at {c.address} runs without arena's role checks, so a worker's "
        "certificate could act as the client: start it with --preload arena.cluster.roles "
        "(docs/cluster.md)\n"
    )


def test_a_worker_without_role_checks_is_named(guarded: LocalDaskCluster) -> None:
    guarded.start_worker("bare", guarded=False)  # this worker preloads nothing
    try:
        guarded.wait_for_workers({"w1", "w2", "bare"})
        client = cluster.connect(guarded.address, certs=guarded.certs)
        try:
            with pytest.raises(cluster.ClusterError) as err:
                cluster.check_workers(client)
        finally:
            client.close()
    finally:
        guarded.stop("bare")
        guarded.wait_for_workers({"w1", "w2"})
    assert str(err.value).startswith("worker bare (tls://127.0.0.1:")
    assert "it runs without arena's role checks" in str(err.value)


@pytest.mark.parametrize(
    ("mode", "refusal"),
    [
        ("submit", "refused stream message 'update-graph' from worker certificate 'liar'"),
        ("spoof", "refused stream message 'task-finished' in the name of {victim} from worker"),
    ],
    ids=["submit-on-its-stream", "in-another-workers-name"],
)
def test_a_worker_stream_carries_only_its_own_workers_messages(
    guarded: LocalDaskCluster, mode: str, refusal: str
) -> None:
    victim = guarded.worker_addresses()["w2"]
    log = guarded.workdir / "scheduler.log"
    before = log.read_text().count("refused stream message")
    env = {"ARENA_HOSTILE_STREAM": mode, "ARENA_HOSTILE_VICTIM": victim}
    guarded.start_worker("liar", env=env, extra=("--preload", str(STREAM_ATTACK)))
    try:
        _wait_for_text(log, refusal.format(victim=victim), 60)
        # The liar is dropped at its first message; its nanny starts it again, and again it is
        # dropped: it never stays, and w1 and w2 never notice.
        assert log.read_text().count("refused stream message") > before
        with guarded.client() as client:
            assert client.submit(roles.installed, pure=False).result(timeout=30) is True
    finally:
        guarded.stop("liar")
    guarded.wait_for_workers({"w1", "w2"})


def _wait_for_text(path: Path, text: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while text not in path.read_text():
        assert time.monotonic() < deadline, f"{text!r} not in {path.name}"
        time.sleep(0.2)
