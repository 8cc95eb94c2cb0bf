"""Certificates by role without a cluster: what each certificate names, the revocation list,
and the role checks' table (tests/test_cluster_roles.py runs them on a real TLS cluster)."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from arena.cluster import roles
from arena.cluster import security as sec


class FakeCertComm:
    """Only what :func:`roles.peer` reads of a TLS comm: the peer certificate as ``ssl`` gives
    it (decoded from the real PEM file by the ``ssl`` module itself)."""

    def __init__(self, cert: Path | None) -> None:
        self.extra_info: dict[str, object] = {}
        if cert is not None:
            decoded = ssl._ssl._test_decode_cert(str(cert))  # type: ignore[attr-defined]
            self.extra_info = {"peercert": decoded, "cipher": ("TLS_AES", "TLSv1.3", 256)}
        self.peer_address = "tls://127.0.0.1:1"


@pytest.fixture
def certs(tmp_path: Path) -> Path:
    d = tmp_path / "certs"
    sec.init_certificates(d, "127.0.0.1", ("w1", "w2"))
    return d


def test_each_certificate_names_its_role_and_name(certs: Path) -> None:
    seen = {
        f.name: roles.peer(FakeCertComm(f))
        for f in [certs / "scheduler.pem", certs / "client.pem"]
        + [sec.worker_files(certs, n)[0] for n in ("w1", "w2")]
    }
    assert {n: (p.role, p.name) for n, p in seen.items() if p} == {
        "scheduler.pem": ("scheduler", "scheduler"),
        "client.pem": ("client", "client"),
        "worker-w1.pem": ("worker", "w1"),
        "worker-w2.pem": ("worker", "w2"),
    }
    assert len({p.serial for p in seen.values() if p}) == 4
    assert roles.peer(FakeCertComm(None)) is None  # plain TCP: no roles
    assert sec.workers(certs) == ["w1", "w2"]


def test_revoking_one_worker_lists_only_its_serial(certs: Path) -> None:
    ca = certs / "ca.pem"
    assert sec.revoked_serials(ca, sec.revocations(certs)) == frozenset()
    serial = sec.revoke(certs, "w2")
    w2 = roles.peer(FakeCertComm(sec.worker_files(certs, "w2")[0]))
    assert w2 is not None and w2.serial == serial
    assert sec.revoked_serials(ca, sec.revocations(certs)) == {serial}
    assert sec.revoke(certs, "w2") == serial  # again: the same list
    assert sec.revoked_serials(ca, sec.revocations(certs)) == {serial}


def test_a_revocation_list_of_another_ca_is_refused(certs: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    sec.init_certificates(other, "127.0.0.1")
    with pytest.raises(sec.SecurityError, match="not signed by the cluster's CA"):
        sec.revoked_serials(certs / "ca.pem", sec.revocations(other))
    with pytest.raises(sec.SecurityError, match="not a revocation list"):
        sec.revoked_serials(certs / "ca.pem", b"-----BEGIN X509 CRL-----\nAA==\n")


def _p(role: str, name: str = "w1") -> roles.Peer:
    return roles.Peer(role, name, 1)


# (server kind, peer role, operation, allowed): the default-deny table of arena.cluster.roles.
CASES = [
    ("scheduler", "client", "update_graph_anything", True),
    ("scheduler", "client", "run_function", True),
    ("scheduler", "worker", "register-worker", True),
    ("scheduler", "worker", "heartbeat_worker", True),
    ("scheduler", "worker", "register-client", False),
    ("scheduler", "worker", "run_function", False),
    ("scheduler", "worker", "broadcast", False),
    ("scheduler", "worker", "register_worker_plugin", False),
    ("scheduler", "worker", "gather", False),
    ("scheduler", "worker", "identity", False),
    ("scheduler", "worker", "shuffle_barrier", False),
    ("scheduler", "scheduler", "run_function", False),
    ("scheduler", "", "heartbeat_worker", False),
    ("worker", "scheduler", "run", True),
    ("worker", "client", "get_data", True),
    ("worker", "worker", "get_data", False),
    ("worker", "worker", "run", False),
    ("nanny", "scheduler", "kill", True),
    ("nanny", "worker", "close_gracefully", True),
    ("nanny", "worker", "run", False),
]


@pytest.mark.parametrize(
    ("kind", "role", "op", "ok"), CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES]
)
def test_who_may_do_what(kind: str, role: str, op: str, ok: bool) -> None:
    assert roles.allowed(kind, _p(role), op, own_name="w1") is ok


def test_a_nanny_serves_only_its_own_worker() -> None:
    assert roles.allowed("nanny", _p("worker", "w1"), "close_gracefully", own_name="w1")
    assert not roles.allowed("nanny", _p("worker", "w2"), "close_gracefully", own_name="w1")


class _Server:
    security = None
    workers: dict[str, object] = {}
    _comms: dict[object, object] = {}


@pytest.mark.parametrize(
    ("msg", "why"),
    [
        ({"op": "task-finished", "key": "k"}, None),
        ({"op": "keep-alive"}, None),
        ({"op": "update-graph"}, "stream message 'update-graph'"),
        ({"op": "client-desires-keys"}, "stream message 'client-desires-keys'"),
        ({"op": "task-finished", "worker": "tls://b:2"}, "in the name of tls://b:2"),
    ],
    ids=["result", "keep-alive", "submit", "read-results", "another-worker"],
)
def test_a_worker_stream_carries_only_a_workers_messages(
    msg: dict[str, object], why: str | None
) -> None:
    guard = roles.Guard(_Server(), "scheduler")
    check = guard.stream_check(_p("worker"), "tls://a:1")
    got = check(msg)
    assert got == why if why is None else why in str(got)


@pytest.mark.parametrize(
    ("name", "ok"),
    [("w1", True), ("w1-0", True), ("w1-12", True), ("w2", False), ("w1-x", False), ("w", False)],
)
def test_a_worker_registers_under_its_certificates_name(certs: Path, name: str, ok: bool) -> None:
    guard = roles.Guard(_Server(), "scheduler")
    comm = FakeCertComm(sec.worker_files(certs, "w1")[0])
    msg = {"address": f"tls://127.0.0.1:{len(name)}", "name": name}
    if ok:
        guard.check(comm, "register-worker", msg)
    else:
        with pytest.raises(PermissionError, match="a worker's --name is its certificate's name"):
            guard.check(comm, "register-worker", msg)


def test_every_message_a_dask_worker_sends_on_its_stream_is_a_workers() -> None:
    # The role checks close a worker's stream at the first message not in WORKER_STREAM_OPS:
    # each message Dask's worker state machine sends the scheduler must be there (a missing
    # "steal-response" cut off a busy worker as soon as the scheduler stole a batch from it).
    from distributed import worker_state_machine as wsm

    def subclasses(cls: type) -> set[type]:
        direct = set(cls.__subclasses__())
        return direct.union(*(subclasses(c) for c in direct))

    sent = {c.op for c in subclasses(wsm.SendMessageToScheduler) if isinstance(c.op, str)}
    assert "steal-response" in sent and "task-finished" in sent
    assert sent <= roles.WORKER_STREAM_OPS, sent - roles.WORKER_STREAM_OPS
