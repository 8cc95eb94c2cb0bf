"""Playing matches in worker processes behind a :class:`concurrent.futures.Executor`.

The scheduler hands over batches of :class:`~arena.matches.scheduler.MatchSpec`; :func:`play_batch`
(a module-level, picklable function) plays one batch in a worker with that worker's
:class:`~arena.sandbox.BotPool` and returns plain JSON-ready records;
:func:`arena.tournaments.driving.drive` submits batches, keeps a bounded number in flight and
gives each finished batch, checked, to the parent, the only SQLite writer. Any executor works:
:func:`make_executor` builds the local process pool (an explicit ``fork`` context, so that
multiprocessing-logging carries worker log records to the parent's handlers); a cluster executor
only needs :func:`init_worker` / :func:`close_worker` run in each worker, and the rest is
unchanged. The parent's side of a run's processes is here too: how many workers by default, the
run's log file that worker processes write to, and Ctrl-C as a flag the run polls.
"""

from __future__ import annotations

import concurrent.futures as cf
import ctypes
import enum
import fcntl
import logging
import multiprocessing
import os
import signal
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Final

import multiprocessing_logging  # type: ignore[import-untyped]

from arena.engine import Rules
from arena.errors import ArenaError
from arena.matches.record import MatchRecord, SeatStats
from arena.matches.scheduler import MatchSpec
from arena.sandbox import BotPool
from arena.tournaments.verify import encode_results

if TYPE_CHECKING:
    from multiprocessing.synchronize import Event as MpEvent

    from arena.sandbox import BotPool, BotSource, Limits, MatchOutcome
    from arena.sandbox.runtime import Artifact

log = logging.getLogger(__name__)


class Wait(enum.Enum):
    """What a lazy schedule yields when its next batch depends on results still out."""

    WAIT = "wait"


WAIT: Final = Wait.WAIT
"""Yielded by a schedule given to :func:`arena.tournaments.driving.drive` for "nothing to submit
until more results are in" (a round that must finish before the next one is decided on)."""

MAX_BATCH: Final = 20
"""Matches per task at most: big enough to amortise a cluster's per-task cost, small enough
for a smooth progress bar and a quick stop."""

_PR_SET_PDEATHSIG: Final = 1
_PR_SET_CHILD_SUBREAPER: Final = 36


@dataclass(frozen=True)
class Batch:
    """One task for a worker: some matches, and everything needed to play them."""

    rules: Rules
    limits: Limits
    unsafe_no_sandbox: bool
    sources: dict[str, BotSource | Artifact]
    """The bot file of each entrant in these matches, by
    :attr:`~arena.matches.scheduler.Entrant.key`."""
    matches: tuple[MatchSpec, ...]


def batches(
    specs: Sequence[MatchSpec],
    *,
    workers: int,
    rules: Rules,
    limits: Limits,
    unsafe_no_sandbox: bool,
    sources: dict[str, BotSource | Artifact],
) -> Iterator[Batch]:
    """Split ``specs`` into batches of about 1/16 of a worker's share each, a duplicate set
    never split: the seatings of one set and round (the same deals) go to one batch, played in
    order by one worker, so two copies of a bot never hold the same deal at the same time."""
    size = max(1, min(MAX_BATCH, len(specs) // max(1, workers * 16)))
    sets: dict[tuple[str, int], list[MatchSpec]] = {}
    for spec in specs:
        sets.setdefault((spec.set_key, spec.round), []).append(spec)
    chunk: list[MatchSpec] = []
    for seatings in [*sets.values(), []]:  # the empty list at the end sends the last batch
        if chunk and (not seatings or len(chunk) + len(seatings) > size):
            keys = {e.key for spec in chunk for e in spec.seats}
            yield Batch(
                rules, limits, unsafe_no_sandbox, {k: sources[k] for k in keys}, tuple(chunk)
            )
            chunk = []
        chunk += seatings


# --- the worker side ----------------------------------------------------------------------

_pool: BotPool | None = None
_pool_key: tuple[Limits, bool] | None = None
_stop: MpEvent | None = None
# (pid, index among the usable CPUs, lock file fd, the CPUs the process could use before)
_cpu: tuple[int, int, int, set[int]] | None = None


def claim_cpu() -> int | None:
    """Claim a CPU of this machine for this worker process alone, if one is free.

    A worker and its bots on one CPU of their own play about 1.5x the matches/s of unpinned
    ones (every decision's round trip stays on that CPU; bench/sandbox.py). CPUs are claimed
    with a lock file per CPU held for the life of the process, so workers of any executor
    (local pool, Dask workers, two arenas at once) never share one; when every CPU is taken
    the worker runs unpinned. Pinning changes speed only, never results. Returns the CPU's
    index among the usable ones (what :class:`~arena.sandbox.BotPool` takes), or None.
    """
    global _cpu
    if _cpu is not None:
        if _cpu[0] == os.getpid():
            return _cpu[1]
        os.close(_cpu[2])  # a claim inherited through fork belongs to the parent
        _cpu = None
    try:
        usable = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return None
    for index, cpu in enumerate(usable):
        path = os.path.join(tempfile.gettempdir(), f"arena-cpu-{cpu}.lock")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        _cpu = (os.getpid(), index, fd, set(usable))
        return index
    return None


def init_worker(limits: Limits, unsafe_no_sandbox: bool) -> None:
    """Create this worker process's bot pool (one per worker, reused by every batch).

    The worker (and so its bots) is pinned to a CPU of its own when one is free
    (:func:`claim_cpu`).
    """
    global _pool, _pool_key
    key = (limits, unsafe_no_sandbox)
    if _pool is not None and _pool_key == key:
        return
    close_worker()
    cpu = claim_cpu()
    _pool = BotPool(limits, unsafe_no_sandbox=unsafe_no_sandbox, cpu=cpu)
    _pool_key = key
    log.debug("worker %d: bot pool ready", os.getpid())


def close_worker() -> None:
    """Close this worker's bot pool (its zygote processes go with it) and free its CPU."""
    global _pool, _pool_key
    if _pool is not None:
        pool, _pool, _pool_key = _pool, None, None
        pool.close()
        log.info("worker %d: bot pool closed", os.getpid())
    release_cpu()


def release_cpu() -> None:
    """Give back the CPU :func:`claim_cpu` took (a long-lived Dask worker between runs)."""
    global _cpu
    if _cpu is not None and _cpu[0] == os.getpid():
        os.close(_cpu[2])
        os.sched_setaffinity(0, _cpu[3])
    _cpu = None


def _init_local_worker(
    stop: MpEvent,
    parent: int,
    limits: Limits,
    unsafe_no_sandbox: bool,
) -> None:
    """Initializer of the local process pool's workers."""
    global _stop
    _stop = stop
    # Ctrl-C reaches the whole process group: the parent decides how to stop (it sets
    # ``stop``), a worker must not die half-way through a match.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # If the parent is killed (kill -9), take the worker down too instead of leaving an
    # orphan blocked on the task queue forever; the pool's bots follow their worker.
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        # The worker must be the subreaper of its own bots (the sandbox reaps their orphans
        # there). The sandbox marks that done once per process with a cache, and a cache
        # filled in the parent (by `arena submit`-style validation) is inherited by fork
        # while the prctl flag is not: without this, worker exit waits on bots whose orphans
        # went to the parent.
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: no such safety net
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    init_worker(limits, unsafe_no_sandbox)
    # Pool workers leave through multiprocessing's exit path, which runs Finalize callbacks
    # but not atexit handlers.
    multiprocessing.util.Finalize(None, close_worker, exitpriority=10)


def _stopping() -> bool:
    return _stop is not None and _stop.is_set()


def play_batch(batch: Batch) -> str:
    """Play the batch's matches in this worker; return one record per finished match, as the
    JSON document of :func:`arena.tournaments.verify.encode_results` (plain text: the parent runs
    nothing a worker sends, and checks every record against the batch before storing it).

    Stops early (returning what is finished) when the parent asks to stop. A match that was
    still being played when the stop came is dropped, not returned: the interrupt may have
    reached its bots, so its result might differ from an uninterrupted run; the next run plays
    it again.
    """
    init_worker(batch.limits, batch.unsafe_no_sandbox)  # no-op when the initializer ran
    assert _pool is not None
    out: list[MatchRecord] = []
    for spec in batch.matches:
        if _stopping():
            break
        started = time.perf_counter()
        sources = [batch.sources[e.key] for e in spec.seats]
        # The deal seed (keyed by the tournament's secret), never the secret itself.
        outcome = _pool.play_match(sources, spec.deal_seed, batch.rules)
        duration = time.perf_counter() - started
        if _stopping():
            break
        out.append(outcome_record(spec, outcome, duration))
    log.info("worker %d played %d/%d matches", os.getpid(), len(out), len(batch.matches))
    return encode_results(out)


def outcome_record(spec: MatchSpec, outcome: MatchOutcome, duration: float) -> MatchRecord:
    """A finished match as the record the parent checks and stores."""
    result = outcome.result
    bots = [e.version_id for e in spec.seats]
    stats = [SeatStats(**s) for s in outcome.stats]
    return MatchRecord(
        **spec.slot_json(),
        bots=(bots[0], bots[1], bots[2]),
        scores=(result.scores[0], result.scores[1], result.scores[2]),
        placements=(outcome.placements[0], outcome.placements[1], outcome.placements[2]),
        truncated=bool(result.truncated),
        hands=tuple(h.to_dict() for h in result.hands),
        faults=tuple(outcome.faults),
        stats=(stats[0], stats[1], stats[2]),
        logs=(outcome.logs[0], outcome.logs[1], outcome.logs[2]),
        duration_seconds=duration,
    )


# --- the parent side ----------------------------------------------------------------------


def default_workers() -> int:
    """Worker processes when ``--workers`` is not given: the usable cores."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


@contextmanager
def run_log(path: Path | None, level: int = logging.INFO) -> Iterator[None]:
    """Send the ``arena`` logger, worker processes included, to the run's log file.

    multiprocessing-logging wraps the handlers so forked workers send their records to this
    process over a queue; it refuses any start method but ``fork``, so that is pinned first
    (Python 3.14 defaults to forkserver).
    """
    if path is None:
        yield
        return
    if multiprocessing.get_start_method(allow_none=True) is None:
        multiprocessing.set_start_method("fork")
    logger = logging.getLogger("arena")
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    old_level = logger.level
    logger.setLevel(min(level, old_level) if old_level else level)
    logger.addHandler(handler)
    try:
        multiprocessing_logging.install_mp_handler(logger)
    except AssertionError:
        logger.removeHandler(handler)
        handler.close()
        raise ArenaError(
            "arena run needs the 'fork' start method, but multiprocessing is set to "
            f"{multiprocessing.get_start_method()!r}"
        ) from None
    try:
        yield
    finally:
        wrappers = [
            h
            for h in logger.handlers
            if isinstance(h, multiprocessing_logging.MultiProcessingHandler)
        ]
        multiprocessing_logging.uninstall_mp_handler(logger)
        for w in wrappers:
            w.close()  # drains the queue into the wrapped handler, then closes both
        logger.removeHandler(handler)
        logger.setLevel(old_level)


@contextmanager
def interrupts() -> Iterator[threading.Event]:
    """Turn the first Ctrl-C (or SIGTERM) into a flag the run polls; a second one aborts."""
    flag = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if flag.is_set():
            raise KeyboardInterrupt
        flag.set()

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def fork_context() -> multiprocessing.context.BaseContext:
    """The ``fork`` start method, or an ArenaError where it does not exist."""
    try:
        return multiprocessing.get_context("fork")
    except ValueError:
        raise ArenaError(
            "arena run needs the 'fork' start method for its worker processes (Linux)"
        ) from None


def make_executor(
    workers: int, limits: Limits, unsafe_no_sandbox: bool, stop: MpEvent
) -> cf.Executor:
    """The local executor: ``workers`` forked processes, each with its own bot pool.

    The one place that decides where matches run; a cluster backend returns its own executor
    with :func:`init_worker` / :func:`close_worker` as per-worker set-up and tear-down.
    """
    return cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=fork_context(),
        initializer=_init_local_worker,
        initargs=(stop, os.getpid(), limits, unsafe_no_sandbox),
    )
