"""Cluster runs on Dask distributed: the same tournament, its matches played on many machines.

The tournament runner talks to a :class:`concurrent.futures.Executor`; a local run uses a process
pool, a cluster run uses :func:`open_executor`, which wraps
``distributed.Client(address).get_executor(pure=False)`` (never Dask's default ``pure=True``: it
would merge identical calls). The parent process stays the only SQLite writer either way.

Before any match is submitted, :func:`connect` and :func:`check_workers` make sure the cluster
can really play: the scheduler answers and imports the same arena, Python and Dask, and so does
every worker, which must also run one thread and be able to sandbox bots. A worker that cannot
import arena otherwise makes Dask futures hang forever (the worker dies unpickling the task), so
this check is what turns that into one clear error naming the worker.

Every connection is TLS with certificates of the cluster's own CA unless the caller accepts
plain TCP with ``insecure=True`` (:mod:`arena.cluster.security`); the client never unpickles
anything but plain values (:func:`~arena.cluster.security.guard_unpickling`), every result is
JSON checked against its batch (:mod:`arena.tournaments.verify`), and a scheduler or worker that
listens on every interface is refused.

Dask is an optional extra (``pip install "euchre-arena[dask]"``): without it this module still
imports, and :func:`connect` says how to install it.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import logging
import multiprocessing
import platform
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import arena
from arena.cluster import roles
from arena.cluster.executor import ClusterExecutor
from arena.cluster.security import (
    GUARD,
    SecurityError,
    guard_unpickling,
    listening,
    revocations,
    security,
    wildcard,
)
from arena.errors import ArenaError, InvalidSetting
from arena.sandbox import probe
from arena.sandbox.layers import choose_isolation
from arena.tournaments import runner

try:
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # the dask extra is missing: connect() says how to install it
    WorkerPlugin = object  # type: ignore[misc,assignment]

if TYPE_CHECKING:
    from distributed import Client, Worker

log = logging.getLogger(__name__)

DASK_HINT: Final = 'cluster runs need Dask: pip install "euchre-arena[dask]"'
CONNECT_TIMEOUT: Final = 10.0
"""Seconds to wait for the scheduler to answer."""
PROBE_TIMEOUT: Final = 60.0
"""Seconds each worker gets to answer the probe (it imports arena and probes the sandbox)."""
WORKERS_TIMEOUT: Final = 30.0
"""Seconds to wait for at least one worker to be connected to the scheduler."""
PLUGIN_NAME: Final = "arena-worker"


class ClusterError(ArenaError):
    """The cluster (not a bot) cannot run the tournament: one line naming the culprit."""


@dataclasses.dataclass(frozen=True)
class WorkerReport:
    """What one connected Dask worker runs and supports, as seen by :func:`check_workers`."""

    address: str
    name: str
    nthreads: int
    host: str = ""
    python: str = ""
    arena: str | None = None
    dask: str | None = None
    distributed: str | None = None
    daemon: bool = False
    layers: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    sandbox_error: str | None = None
    listening: list[str] = dataclasses.field(default_factory=list)
    roles: bool = False
    """Whether the worker runs arena's role checks (:mod:`arena.cluster.roles`)."""
    error: str | None = None

    @property
    def label(self) -> str:
        """The worker as a user knows it: its name and address."""
        if self.name and self.name != self.address:
            return f"{self.name} ({self.address})"
        return self.address


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as e:
        raise ClusterError(DASK_HINT) from e
    return distributed


def _tcp_endpoint(address: str) -> tuple[str, int] | None:
    """Host and port of a ``tcp://``/``tls://`` (or scheme-less) address; None for other schemes."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in ("tcp", "tls"):
        return None
    host, _, port = rest.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise ClusterError(f"bad scheduler address {address!r}: expected tcp://HOST:PORT")
    return host, int(port)


INSECURE_WARNING: Final = (
    "plain tcp:// cluster (--insecure-cluster): anyone who reaches the scheduler or a worker "
    "port can run code on every worker and read the bots and deals; use tls:// with "
    "certificates (arena cluster init)"
)


def connect(
    address: str,
    *,
    timeout: float = CONNECT_TIMEOUT,
    certs: Path | None = None,
    insecure: bool = False,
) -> Client:
    """A Dask client connected to the scheduler at ``address``, or a :class:`ClusterError`.

    ``tls://`` needs ``certs`` (a directory of :func:`arena.cluster.security.init_certificates`)
    and requires encryption; ``tcp://`` (or no scheme) is refused unless ``insecure``, and then
    logged as a warning naming the risk. Either way this process's client unpickles nothing but
    plain values from then on (:func:`~arena.cluster.security.guard_unpickling`).

    A plain TCP connect goes first: it fails in milliseconds on a refused port, whereas a failed
    ``distributed.Client`` retries for the whole timeout and then prints a traceback from its
    destructor while the interpreter exits.
    """
    distributed = _import_distributed()
    endpoint = _tcp_endpoint(address)
    scheme = address.partition("://")[0] if "://" in address else "tcp"
    kwargs: dict[str, Any] = {}
    revoked: bytes | None = None
    if scheme == "tls":
        if certs is None:
            raise SecurityError(f"{address} needs the client certificate: `certs`").naming("certs")
        kwargs["security"] = security(certs)
        revoked = revocations(certs)
    elif scheme == "tcp" and insecure:
        log.warning(INSECURE_WARNING)
    else:
        raise SecurityError(
            f"refusing {address}: only tls:// with `certs` (arena cluster init), or tcp:// "
            "with `insecure` (anyone who reaches it can run code on the workers)"
        ).naming("certs", "insecure")
    guard_unpickling()
    if endpoint is not None:
        try:
            socket.create_connection(endpoint, timeout=timeout).close()
        except OSError as e:
            reason = e.strerror or str(e) or type(e).__name__
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {reason}") from e
    try:
        client = distributed.Client(address, timeout=timeout, set_as_default=False, **kwargs)
    except (OSError, ValueError, TimeoutError) as e:
        raise ClusterError(f"cannot connect to the Dask scheduler at {address}: {e}") from e
    if revoked is not None:
        _hand_over_revocations(client, revoked)
    return client


def _hand_over_revocations(client: Client, revoked: bytes) -> None:
    """Give the scheduler the revocation list of the client's directory, so that it refuses
    (and drops) the revoked workers before anything is sent. A scheduler that cannot take it
    (no arena, or no role checks) is named by :func:`check_scheduler`, which every caller of
    :func:`connect` runs next."""
    try:
        client.run_on_scheduler(roles.install_revocations, revoked)
    except Exception as e:  # noqa: BLE001 - check_scheduler says what is wrong there
        log.debug("the scheduler did not take the revocation list: %s", e)


def probe_worker(unsafe_no_sandbox: bool = False) -> dict[str, Any]:
    """Run on a worker by :func:`check_workers`: what this process can run.

    Unpickling this function at all proves the worker can import arena. The sandbox is judged
    exactly as a local run judges it: the layers of :func:`arena.sandbox.probe` (what ``arena
    doctor`` shows) and the plan a :class:`~arena.sandbox.BotPool` would make from them.
    """
    import dask
    import distributed

    report: dict[str, Any] = {
        "host": platform.node(),
        "python": platform.python_version(),
        "arena": arena.__version__,
        "dask": dask.__version__,
        "distributed": distributed.__version__,
        "daemon": multiprocessing.current_process().daemon,
        "layers": [],
        "sandbox_error": None,
        "listening": listening(),
        "roles": roles.installed(),
    }
    try:
        report["layers"] = [_as_dict(layer) for layer in probe()]
        choose_isolation(unsafe_no_sandbox)
    except ArenaError as e:
        report["sandbox_error"] = str(e)
    return report


def _as_dict(layer: Any) -> dict[str, Any]:
    # Plain dicts cross the wire and compare equal whatever arena's layer class looks like.
    if isinstance(layer, dict):
        return dict(layer)
    to_dict = getattr(layer, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict())
    if dataclasses.is_dataclass(layer) and not isinstance(layer, type):
        return dataclasses.asdict(layer)
    return {"name": str(layer)}


def _run_on(client: Client, address: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` on one worker through ``client.run``, which reports a worker that cannot
    even unpickle ``fn`` as an exception instead of hanging like a task would."""
    result = client.run(fn, *args, workers=[address], on_error="return")
    if address not in result:
        raise ClusterError(f"worker {address} left the cluster during the probe")
    return result[address]


def local_versions() -> dict[str, str]:
    """The versions every worker must share with this process (``python`` as major.minor)."""
    import dask
    import distributed

    return {
        "python": ".".join(platform.python_version_tuple()[:2]),
        "arena": arena.__version__,
        "dask": dask.__version__,
        "distributed": distributed.__version__,
    }


def probe_workers(
    client: Client,
    *,
    unsafe_no_sandbox: bool = False,
    timeout: float = PROBE_TIMEOUT,
    wait_timeout: float = WORKERS_TIMEOUT,
) -> list[WorkerReport]:
    """Probe every connected worker in parallel; a report carries ``error`` when one failed.

    Raises :class:`ClusterError` when no worker joins within ``wait_timeout`` seconds.
    """
    address = str(client.scheduler_info()["address"])
    try:
        client.wait_for_workers(1, timeout=wait_timeout)
    except (TimeoutError, OSError) as e:
        raise ClusterError(
            f"no Dask worker is connected to {address} (waited {wait_timeout:g} s); "
            f"start one with: dask worker {address}"
        ) from e
    workers = client.scheduler_info(n_workers=-1)["workers"]
    # One thread per worker so a worker that never answers costs one timeout, not one each;
    # shutdown(wait=False) below leaves such a thread behind instead of waiting for it.
    pool = cf.ThreadPoolExecutor(max_workers=min(32, len(workers)))
    try:
        futures = {
            addr: pool.submit(_run_on, client, addr, probe_worker, unsafe_no_sandbox)
            for addr in workers
        }
        reports = []
        deadline = time.monotonic() + timeout
        for addr, future in sorted(futures.items()):
            info = workers[addr]
            base = {"address": addr, "name": str(info.get("name", addr)), "nthreads": 0}
            base["nthreads"] = int(info.get("nthreads", 0))
            try:
                answer = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except cf.TimeoutError:
                reports.append(WorkerReport(**base, error=f"no answer within {timeout:g} s"))
                continue
            except ClusterError as e:
                reports.append(WorkerReport(**base, error=str(e)))
                continue
            if isinstance(answer, BaseException):
                reports.append(WorkerReport(**base, error=_explain(answer)))
            else:
                reports.append(WorkerReport(**base, **answer))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return sorted(reports, key=lambda r: (r.name, r.address))


def _explain(exc: BaseException) -> str:
    text = str(exc)
    if "arena" in text and ("ModuleNotFoundError" in text or "No module named" in text):
        return f"arena is not importable there ({text.strip()}); install euchre-arena on it"
    return f"{type(exc).__name__}: {text}"


def scheduler_versions() -> dict[str, Any]:
    """Run on the scheduler by :func:`check_scheduler`: its versions (it unpickles our tasks)
    the addresses it listens on, and whether it runs arena's role checks."""
    return {**local_versions(), "listening": listening(), "roles": roles.installed()}


def check_scheduler(client: Client, want: dict[str, str]) -> None:
    """Raise :class:`ClusterError` unless the scheduler imports the same arena, Dask and Python.

    Recent Dask unpickles task graphs on the scheduler, so a scheduler without arena would
    reject every batch.
    """
    address = str(client.scheduler_info()["address"])
    try:
        got = client.run_on_scheduler(scheduler_versions)
    except Exception as e:  # the scheduler could not even unpickle the function
        raise ClusterError(f"the scheduler at {address}: {_explain(e)}") from e
    for key, value in want.items():
        if got.get(key) != value:
            raise ClusterError(
                f"the scheduler at {address}: {key} {got.get(key)} there but {value} here; "
                "every machine needs the same"
            )
    if address.startswith("tls://") and not got.get("roles"):
        raise ClusterError(
            f"the scheduler at {address} runs without arena's role checks, so a worker's "
            f"certificate could act as the client: start it with --preload {GUARD} "
            "(docs/cluster.md)"
        )
    everywhere = wildcard(list(got.get("listening", [])))
    if everywhere:
        raise ClusterError(
            f"the scheduler at {address} listens on every interface ({everywhere[0]}): "
            "start it with --host ADDR --dashboard-address ADDR:0 (docs/cluster.md)"
        )


def check_workers(
    client: Client, *, unsafe_no_sandbox: bool = False, timeout: float = PROBE_TIMEOUT
) -> list[WorkerReport]:
    """Probe every worker and raise one :class:`ClusterError` naming the first unfit worker.

    A worker is fit when it imports arena, runs the same arena, Dask and Python (major.minor) as
    this process, runs one task at a time (``--nthreads 1``: a worker process keeps one bot pool)
    and its sandbox works.
    """
    want = local_versions()
    check_scheduler(client, want)
    reports = probe_workers(client, unsafe_no_sandbox=unsafe_no_sandbox, timeout=timeout)
    for r in reports:
        problem = worker_problem(r, want)
        if problem:
            raise ClusterError(f"worker {r.label}: {problem}")
    kinds = {tuple(sorted(la["name"] for la in r.layers if la.get("active"))) for r in reports}
    if len(kinds) > 1:
        # Every worker can sandbox, but not equally: worth knowing, not worth refusing.
        log.warning(
            "workers sandbox bots with different layers: %s",
            "; ".join(f"{r.label}: {', '.join(_active(r)) or 'none'}" for r in reports),
        )
    return reports


def _active(report: WorkerReport) -> list[str]:
    return [str(la["name"]) for la in report.layers if la.get("active")]


def worker_problem(report: WorkerReport, want: dict[str, str]) -> str | None:
    """Why ``report``'s worker cannot play this tournament, or None when it can."""
    if report.error:
        return report.error
    got = {
        "python": ".".join(report.python.split(".")[:2]),
        "arena": report.arena or "missing",
        "dask": report.dask or "missing",
        "distributed": report.distributed or "missing",
    }
    for key, value in want.items():
        if got[key] != value:
            return f"{key} {got[key]} there but {value} here; every machine needs the same"
    if report.nthreads != 1:
        return (
            f"it runs {report.nthreads} threads; start workers with --nthreads 1 "
            "(and --nworkers N for N matches at a time)"
        )
    if report.sandbox_error:
        return f"its sandbox cannot run bots: {report.sandbox_error}"
    if report.address.startswith("tls://") and not report.roles:
        return (
            "it runs without arena's role checks, so other workers' certificates could give it "
            f"work: start it with --preload {GUARD} --preload-nanny {GUARD} (docs/cluster.md)"
        )
    everywhere = wildcard(report.listening)
    if everywhere:
        return (
            f"it listens on every interface ({everywhere[0]}); start it with "
            "--host ADDR --dashboard-address ADDR:0 (docs/cluster.md)"
        )
    return None


class ArenaWorkerPlugin(WorkerPlugin):
    """Per-worker set-up for arena tasks on a Dask worker.

    The bot pool itself is made lazily by the first batch a worker plays
    (:func:`arena.tournaments.runner.play_batch`); this plugin sets the worker's ``arena`` log
    level, so records reach :meth:`distributed.Client.forward_logging`, and closes the pool (with
    its zygote processes) when the worker closes. It is registered under one fixed name, so the next
    run replaces it instead of stacking up copies.
    """

    name = PLUGIN_NAME
    idempotent = False

    # Dask's own bookkeeping runs in the worker's event-loop thread and competes for the GIL with
    # the thread playing the match: the statistical profiler samples the running task's stack
    # every 10 ms, the event-loop health tick runs every 20 ms, the system monitor every 0.5 s.
    # Measured here (bench/cluster.py, /proc CPU), that made a sandboxed match of instant bots
    # 15-25 % slower than in a local pool worker; with the profiler paused and the other two
    # slowed to these periods (ms), matches take as long as locally. Restored on teardown.
    PAUSED: Final = ("profile", "profile-cycle")
    SLOWED: Final = {"tick": 500.0, "monitor": 2000.0}

    def __init__(self, level: int) -> None:
        self.level = level
        self.paused: list[str] = []
        self.periods: dict[str, float] = {}

    def setup(self, worker: Worker) -> None:
        """Let records of ``level`` through on this worker (Dask leaves it at WARNING), and
        quiet Dask's bookkeeping while arena's plugin is installed."""
        logging.getLogger("arena").setLevel(self.level)
        callbacks = worker.periodic_callbacks
        for name in self.PAUSED:
            callback = callbacks.get(name)
            if callback is not None and callback.is_running():
                callback.stop()
                self.paused.append(name)
        for name, period in self.SLOWED.items():
            callback = callbacks.get(name)
            if callback is not None and callback.callback_time < period:
                self.periods[name] = callback.callback_time
                callback.callback_time = period

    def teardown(self, worker: Worker) -> None:
        """Close this worker's bot pool and restore what :meth:`setup` changed."""
        runner.close_worker()
        callbacks = worker.periodic_callbacks
        for name, period in self.periods.items():
            if name in callbacks:
                callbacks[name].callback_time = period
        for name in self.paused:
            if name in callbacks and worker.status.name == "running":
                callbacks[name].start()
        self.paused, self.periods = [], {}


def open_executor(
    address: str,
    *,
    certs: Path | None = None,
    insecure: bool = False,
    unsafe_no_sandbox: bool = False,
    log_level: int = logging.INFO,
    connect_timeout: float = CONNECT_TIMEOUT,
    probe_timeout: float = PROBE_TIMEOUT,
    cross_check: float = 0.0,
) -> ClusterExecutor:
    """Connect to ``address``, check every worker, prepare them, return the cluster's executor.

    Raises :class:`ClusterError` (one line) when the scheduler is unreachable, no worker is
    connected, or a worker is unfit (see :func:`check_workers`). Records of the ``arena`` logger
    at ``log_level`` and above on the workers reach this process's ``arena`` logger (whose own
    level and handlers then decide, as for local records).

    The run checks what the workers return (:mod:`arena.tournaments.driving`): a record with a
    fault is played again elsewhere before it is stored, and so is the share ``cross_check``
    (0 to 1) of all matches; a worker whose record differs is dropped from the run and named.
    """
    if not 0.0 <= cross_check <= 1.0:
        raise InvalidSetting("cross_check", f"must be between 0 and 1, not {cross_check}")
    client = connect(address, timeout=connect_timeout, certs=certs, insecure=insecure)
    try:
        reports = check_workers(client, unsafe_no_sandbox=unsafe_no_sandbox, timeout=probe_timeout)
        client.register_plugin(ArenaWorkerPlugin(log_level))
        client.forward_logging("arena")
    except BaseException:
        client.close()
        raise
    slots = sum(r.nthreads for r in reports)
    log.info("cluster %s: %d workers ready", address, slots)
    return ClusterExecutor(client, slots, cross_check)


def doctor(
    address: str,
    *,
    certs: Path | None = None,
    insecure: bool = False,
    unsafe_no_sandbox: bool = False,
) -> tuple[list[WorkerReport], list[str], str | None]:
    """``arena doctor --cluster``: every worker's report, as text too, and the first problem.

    Each worker gets a header line (name, address, host, versions, verdict) and one line per
    sandbox layer, marked ``+`` when active on that worker. The scheduler is checked first
    (versions, listeners): a problem there is raised as :class:`ClusterError`.
    """
    client = connect(address, certs=certs, insecure=insecure)
    want = local_versions()
    try:
        check_scheduler(client, want)
        reports = probe_workers(client, unsafe_no_sandbox=unsafe_no_sandbox)
    finally:
        client.close()
    lines = [
        f"cluster {address}: {len(reports)} worker(s); here: arena {want['arena']}, "
        f"Python {want['python']}, dask {want['dask']}, distributed {want['distributed']}"
    ]
    first: str | None = None
    for r in reports:
        problem = worker_problem(r, want)
        if problem and first is None:
            first = f"worker {r.label}: {problem}"
        head = f"worker {r.label}"
        if r.error is None:
            head += (
                f" on {r.host}: arena {r.arena}, Python {r.python}, dask {r.dask}, "
                f"{r.nthreads} thread(s)"
            )
        lines.append(f"{head}: {problem or 'ok'}")
        lines.extend(
            f"  {'+' if la.get('active') else '-'} {la.get('name', '?'):<10} {la.get('detail', '')}"
            for la in r.layers
        )
    return reports, lines, first


__all__ = [
    "CONNECT_TIMEOUT",
    "ClusterError",
    "ClusterExecutor",
    "WorkerReport",
    "check_workers",
    "connect",
    "ArenaWorkerPlugin",
    "doctor",
    "local_versions",
    "open_executor",
    "probe_worker",
    "probe_workers",
    "worker_problem",
]
