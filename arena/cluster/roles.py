"""Certificates by role: what each certified peer may ask of a scheduler, worker or nanny.

Dask's TLS checks only that a peer's certificate is signed by the cluster's CA; once
connected, any certified peer may use any handler, so the holder of a worker's key could
connect as a client, submit tasks, run functions on every worker or install plugins. This
module is a Dask **preload** that every scheduler, worker and nanny of an arena cluster runs
(``--preload arena.cluster.roles``; ``--preload-nanny`` for the nanny): it reads the role and
name from the peer certificate of each connection (:func:`peer`, from the subject that
:func:`arena.cluster.security.init_certificates` and ``add_worker`` write) and allows, by
default deny:

- on the **scheduler**: the arena client everything; a worker only the operations a worker
  makes (:data:`WORKER_OPS`: register, heartbeat, leave, log) and, on the stream it opened by
  registering, only a worker's messages (:data:`WORKER_STREAM_OPS`: results, errors, status),
  and only about the worker addresses registered with its own certificate; nothing else
  (no scheduler or unknown role);
- on a **worker**: the scheduler and the client everything, nobody else anything (arena's
  batches never depend on each other, so workers never fetch data from one another), and work
  (the task stream) only from a peer with the scheduler's certificate;
- on a **nanny**: the scheduler and the client everything, its own worker process (a worker
  certificate of the same name) only ``close_gracefully``.

Every connection of a certificate on the CA's revocation list is refused as it is accepted,
and those already open are closed when the list arrives: the list beside the process's
``ca.pem`` (``revoked.pem``) is read when it changes, and the arena client hands its own to
the scheduler on every run (:func:`install_revocations`). A refused operation is answered
with a :class:`PermissionError` naming the role and the operation, and logged as a warning.

A connection without a certificate can only be plain TCP (``--insecure-cluster``) or in-process,
where there are no roles: nothing is checked there.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from arena.cluster.security import ORGANIZATION, REVOKED, SecurityError, revoked_serials

log = logging.getLogger(__name__)

WORKER_OPS: Final = frozenset(
    {
        "register-worker",
        "register_nanny",
        "heartbeat_worker",
        "unregister",
        "retire_workers",
        "set_resources",
        "log_event",
        "who_has",
    }
)
"""What a worker (its process and its nanny) asks of the scheduler (distributed 2026.8)."""
WORKER_STREAM_OPS: Final = frozenset(
    {
        "task-finished",
        "task-erred",
        "release-worker-data",
        "add-keys",
        "long-running",
        "reschedule",
        "keep-alive",
        "log-event",
        "worker-status-change",
        "request-refresh-who-has",
        # Added by the scheduler's work-stealing extension: a worker's answer to the
        # scheduler's steal-request (refused, a busy worker was cut off when a batch was
        # stolen from it).
        "steal-response",
    }
)
"""The messages a worker sends on the stream it opened by registering (Dask's worker
handlers, and those the scheduler's extensions add for workers)."""
NANNY_WORKER_OPS: Final = frozenset({"close_gracefully"})
"""What a worker process asks of its own nanny."""
# The arguments of WORKER_OPS that name worker (or nanny) addresses: a worker may name only
# addresses it registered with its own certificate.
_ADDRESS_ARGS: Final = {
    "register-worker": ("address", "nanny"),
    "register_nanny": ("address",),
    "heartbeat_worker": ("address",),
    "unregister": ("address",),
    "set_resources": ("worker",),
}


@dataclasses.dataclass(frozen=True)
class Peer:
    """Who is at the other end of a TLS connection, from its certificate's subject."""

    role: str
    name: str
    serial: int

    def __str__(self) -> str:
        return f"{self.role} certificate {self.name!r}"


def peer(comm: Any) -> Peer | None:
    """The certified peer of ``comm``; None for a connection without TLS (plain TCP or in
    process). A TLS peer whose certificate is not one of arena's has role ``""``."""
    info = getattr(comm, "extra_info", None) or {}
    cert = info.get("peercert")
    if not cert:
        return None if "cipher" not in info else Peer("", "", -1)
    fields = {k: v for rdn in cert.get("subject", ()) for k, v in rdn}
    try:
        serial = int(cert.get("serialNumber", ""), 16)
    except ValueError:
        serial = -1
    if fields.get("organizationName") != ORGANIZATION:
        return Peer("", str(fields.get("commonName", "")), serial)
    return Peer(str(fields.get("organizationalUnitName", "")), str(fields["commonName"]), serial)


def allowed(kind: str, who: Peer, op: str, own_name: str = "") -> bool:
    """Whether a server of ``kind`` (scheduler, worker, nanny) serves ``op`` to ``who``; the
    addresses a worker may name are checked apart (:meth:`Guard.check`)."""
    if kind == "scheduler":
        return who.role == "client" or (who.role == "worker" and op in WORKER_OPS)
    if kind == "worker":
        return who.role in ("scheduler", "client")
    if kind == "nanny":
        if who.role in ("scheduler", "client"):
            return True
        return who.role == "worker" and who.name == own_name and op in NANNY_WORKER_OPS
    return False


def _cert_name(path: str | None) -> str:
    """The name in the certificate file ``path`` (the process's own), or ''."""
    if not path or not os.path.isfile(path):
        return ""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    cert = x509.load_pem_x509_certificate(Path(path).read_bytes())
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else ""


class Guard:
    """The checks of one scheduler, worker or nanny (installed by :func:`dask_setup`)."""

    def __init__(self, server: Any, kind: str) -> None:
        self.server = server
        self.kind = kind
        security = server.security
        own = {"scheduler": "tls_scheduler_cert"}.get(kind, "tls_worker_cert")
        self.own_name = _cert_name(getattr(security, own, None))
        ca = getattr(security, "tls_ca_file", None)
        self.ca_file = Path(ca) if ca and os.path.isfile(ca) else None
        self.revoked: frozenset[int] = frozenset()
        self.pushed: frozenset[int] = frozenset()
        self._stamp: tuple[float, int] | None = None
        self.bound: dict[str, Peer] = {}
        """Worker and nanny address -> the certificate that registered it."""
        self.refused = 0

    # --- revocation ----------------------------------------------------------------------

    def reload(self) -> None:
        """Read ``revoked.pem`` beside the CA file again if it changed."""
        if self.ca_file is None:
            return
        path = self.ca_file.with_name(REVOKED)
        try:
            st = path.stat()
        except FileNotFoundError:
            self._stamp, self.revoked = None, self.pushed
            return
        stamp = (st.st_mtime, st.st_size)
        if stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            here = revoked_serials(self.ca_file, path.read_bytes())
        except SecurityError as e:
            log.warning("ignored %s: %s", path, e)
            here = frozenset()
        self.revoked = here | self.pushed

    def install(self, crl_pem: bytes) -> int:
        """Add the serials of a revocation list signed by this process's CA, close the open
        connections of the certificates it revokes; returns how many were closed."""
        if self.ca_file is None:
            raise SecurityError("this process has no CA file to check the revocation list")
        self.pushed = self.pushed | revoked_serials(self.ca_file, crl_pem)
        self.revoked = self.revoked | self.pushed
        closed = 0
        for comm in list(getattr(self.server, "_comms", {})):
            who = peer(comm)
            if who is not None and who.serial in self.revoked:
                log.warning("closed the connection of revoked %s from %s", who, comm.peer_address)
                comm.abort()
                closed += 1
        return closed

    # --- checks ---------------------------------------------------------------------------

    def refuse(self, who: Peer | None, what: str, comm: Any) -> PermissionError:
        """Log a refusal and return the error the peer is sent."""
        self.refused += 1
        address = getattr(comm, "peer_address", "?")
        log.warning("refused %s from %s at %s %s", what, who, self.kind, address)
        return PermissionError(f"arena {self.kind} refused {what} from {who}")

    def admit(self, comm: Any) -> str | None:
        """Why a new connection is refused outright, or None."""
        who = peer(comm)
        if who is None:
            return None
        self.reload()
        if who.role not in ("scheduler", "worker", "client"):
            return "a connection"
        if who.serial in self.revoked:
            return "the connection of a revoked certificate"
        if self.kind == "worker" and who.role == "worker":
            return "a connection"
        if self.kind == "nanny" and who.role == "worker" and who.name != self.own_name:
            return "a connection"
        return None

    def check(self, comm: Any, op: str, msg: Mapping[str, Any]) -> None:
        """Raise the :class:`PermissionError` of ``op`` from ``comm``'s peer, or bind the
        addresses a worker registers."""
        who = peer(comm)
        if who is None:
            return
        if who.serial in self.revoked:
            raise self.refuse(who, f"{op!r} (revoked)", comm)
        if not allowed(self.kind, who, op, self.own_name):
            raise self.refuse(who, repr(op), comm)
        if self.kind == "scheduler" and who.role == "worker":
            self._check_addresses(who, op, msg, comm)

    def _check_addresses(self, who: Peer, op: str, msg: Mapping[str, Any], comm: Any) -> None:
        if op == "register-worker" and not _own_name(str(msg.get("name")), who.name):
            raise self.refuse(
                who,
                f"'register-worker' as {str(msg.get('name'))!r} (a worker's --name is its "
                "certificate's name)",
                comm,
            )
        named = [msg.get(arg) for arg in _ADDRESS_ARGS.get(op, ())]
        if op == "retire_workers":
            if msg.get("names") is not None or msg.get("n") is not None:
                raise self.refuse(who, "'retire_workers' by name or number", comm)
            named = list(msg.get("workers") or [])
            if not named:
                raise self.refuse(who, "'retire_workers' of every worker", comm)
        for address in (a for a in named if a):
            owner = self.bound.get(str(address))
            if owner is not None and owner.name != who.name and self._in_use(str(address)):
                raise self.refuse(who, f"{op!r} about {address} (registered by {owner})", comm)
            if op in ("register-worker", "register_nanny"):
                self.bound[str(address)] = who

    def _in_use(self, address: str) -> bool:
        workers = getattr(self.server, "workers", {})
        return address in workers or any(
            getattr(ws, "nanny", None) == address for ws in workers.values()
        )

    def stream_check(self, who: Peer, worker: str) -> Callable[[dict[str, Any]], str | None]:
        """The check of each message on the stream the worker ``worker`` opened."""

        def why_not(msg: dict[str, Any]) -> str | None:
            op = msg.get("op")
            if op not in WORKER_STREAM_OPS and op != "close-stream":
                return f"stream message {op!r}"
            if msg.get("worker", worker) != worker:
                return f"stream message {op!r} in the name of {msg.get('worker')}"
            if who.serial in self.revoked:
                return f"stream message {op!r} (revoked)"
            return None

        return why_not


def _own_name(name: str, certified: str) -> bool:
    """Whether a worker may call itself ``name``: its certificate's name, or ``NAME-N`` (the
    names Dask gives the processes of ``--nworkers N``)."""
    prefix, _, number = name.rpartition("-")
    return name == certified or (prefix == certified and number.isdigit())


class _FilteredComm:
    """A worker's stream to the scheduler, read through a check: the first message the check
    refuses closes the stream (and Dask then removes the worker)."""

    def __init__(self, comm: Any, why_not: Callable[[dict[str, Any]], str | None], guard: Guard):
        self._comm = comm
        self._why_not = why_not
        self._guard = guard

    def __getattr__(self, name: str) -> Any:
        return getattr(self._comm, name)

    async def read(self, *args: Any, **kwargs: Any) -> Any:
        from distributed.comm.core import CommClosedError

        msgs = await self._comm.read(*args, **kwargs)
        for msg in msgs if isinstance(msgs, (list, tuple)) else (msgs,):
            reason = self._why_not(msg) if isinstance(msg, dict) else None
            if reason is not None:
                error = self._guard.refuse(peer(self._comm), reason, self._comm)
                self._comm.abort()
                raise CommClosedError(str(error))
        return msgs


def _guarded(guard: Guard, op: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    """``handler`` behind ``guard``'s check, with the signature Dask's dispatch reads: it
    always takes the comm first, and takes ``serializers`` when ``handler`` does."""
    params = inspect.signature(handler).parameters
    expects_comm = bool(params) and next(iter(params)) == "comm"

    async def guarded(comm: Any, **msg: Any) -> Any:
        guard.check(comm, op, msg)
        result = handler(comm, **msg) if expects_comm else handler(**msg)
        if inspect.isawaitable(result):
            result = await result
        return result

    kinds = inspect.Parameter
    signature = [kinds("comm", kinds.POSITIONAL_OR_KEYWORD)]
    if "serializers" in params:
        signature.append(kinds("serializers", kinds.KEYWORD_ONLY, default=None))
    guarded.__signature__ = inspect.Signature([*signature, kinds("msg", kinds.VAR_KEYWORD)])  # type: ignore[attr-defined]
    guarded.__name__ = getattr(handler, "__name__", op)
    guarded._arena_guarded = True  # type: ignore[attr-defined]
    return guarded


class _GuardedHandlers(dict[str, Any]):
    """A server's handlers: each one, and each added later (a plugin's), behind the guard."""

    def __init__(self, guard: Guard, handlers: Mapping[str, Any]) -> None:
        super().__init__()
        self.guard = guard
        self.update(handlers)

    def __setitem__(self, op: str, handler: Any) -> None:
        if not getattr(handler, "_arena_guarded", False):
            handler = _guarded(self.guard, op, handler)
        super().__setitem__(op, handler)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for op, handler in dict(*args, **kwargs).items():
            self[op] = handler


def _guard_streams(guard: Guard, server: Any) -> None:
    """Check who may send stream messages: on the scheduler, a worker only its own messages on
    the stream it opened by registering; on a worker, only the scheduler (the task stream)."""
    original = server.handle_stream

    async def handle_stream(comm: Any, extra: dict[str, Any] | None = None) -> Any:
        who = peer(comm)
        if who is not None:
            worker = (extra or {}).get("worker")
            if guard.kind == "scheduler" and who.role == "worker" and worker:
                comm = _FilteredComm(comm, guard.stream_check(who, str(worker)), guard)
            elif guard.kind == "worker" and who.role != "scheduler":
                guard.refuse(who, "a task stream", comm)
                comm.abort()
                return None
        return await original(comm, extra)

    server.handle_stream = handle_stream


def _guard_listeners(guard: Guard, server: Any) -> None:
    """Refuse a connection as it is accepted when its certificate is revoked, not arena's, or
    of a role this server serves nothing."""
    from distributed.utils import NoOpAwaitable

    for listener in server.listeners:
        original = listener.comm_handler

        def handle(comm: Any, original: Any = original) -> Any:
            reason = guard.admit(comm)
            if reason is not None:
                guard.refuse(peer(comm), reason, comm)
                comm.abort()
                return NoOpAwaitable()
            return original(comm)

        listener.comm_handler = handle


_GUARDS: dict[str, Guard] = {}


def guard_of(server: Any) -> Guard | None:
    """The guard installed in ``server``'s process, or None."""
    guard = _GUARDS.get(type(server).__name__.lower())
    return guard if guard is not None and guard.server is server else None


def dask_setup(server: Any) -> None:
    """Dask's preload hook: put ``server`` (a Scheduler, Worker or Nanny) behind a guard."""
    # A Dask process is a program of its own: what the guard refuses reaches its log (stderr)
    # when nothing else takes it, not the silence the library keeps in a user's program.
    arena_log = logging.getLogger("arena")
    for handler in [h for h in arena_log.handlers if isinstance(h, logging.NullHandler)]:
        arena_log.removeHandler(handler)
    kind = type(server).__name__.lower()
    if kind not in ("scheduler", "worker", "nanny"):
        raise SecurityError(f"arena.cluster.roles guards a scheduler, worker or nanny, not {kind}")
    guard = Guard(server, kind)
    guard.reload()
    server.handlers = _GuardedHandlers(guard, server.handlers)
    _guard_streams(guard, server)
    _guard_listeners(guard, server)
    _GUARDS[kind] = guard
    log.info("arena role checks on this %s (certificate %r)", kind, guard.own_name)


def installed() -> bool:
    """Run on a scheduler or worker: whether this process runs arena's role checks."""
    return bool(_GUARDS)


async def install_revocations(crl_pem: bytes, dask_scheduler: Any = None) -> dict[str, Any]:
    """Run on the scheduler by the arena client: add the serials of its revocation list (checked
    against the scheduler's CA), close their connections and remove their workers. Returns
    ``revoked`` (how many serials), ``closed`` (connections) and ``workers`` (address ->
    certificate name of each registered worker)."""
    guard = guard_of(dask_scheduler) if dask_scheduler is not None else _GUARDS.get("scheduler")
    if guard is None:
        raise SecurityError("this scheduler runs without arena's role checks")
    closed = guard.install(bytes(crl_pem))
    for address, who in list(guard.bound.items()):
        if who.serial in guard.revoked and address in guard.server.workers:
            await guard.server.remove_worker(address, stimulus_id="arena-revoked", close=False)
    workers = {a: p.name for a, p in guard.bound.items() if a in guard.server.workers}
    return {"revoked": len(guard.revoked), "closed": closed, "workers": workers}


__all__ = [
    "NANNY_WORKER_OPS",
    "WORKER_OPS",
    "WORKER_STREAM_OPS",
    "Guard",
    "Peer",
    "allowed",
    "dask_setup",
    "guard_of",
    "install_revocations",
    "installed",
    "peer",
]
