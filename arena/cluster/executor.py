"""The executor of a cluster run: Dask tasks behind :class:`concurrent.futures.Executor`.

Each ``submit`` is a Dask task whose outcome is handed to a plain :class:`concurrent.futures.Future`
by a done-callback. Unlike Dask's own ``Client.get_executor``, a result that cannot be read
here (a peer sent a pickle that :func:`arena.cluster.security.guard_unpickling` refuses) becomes
that error as the future's *result*, which :func:`arena.tournaments.verify.check_results` refuses
like any other bad document (the match is sent again, then the run stops naming it), instead of
leaving the future pending forever.

A cluster's workers are not the arena machine: what they return is a claim
(:mod:`arena.tournaments.driving` checks it). So this executor also says which worker played a
task (:meth:`ClusterExecutor.watch`, :meth:`ClusterExecutor.worker_of`, from the scheduler, never
from the worker's own word), can send a task elsewhere (:meth:`ClusterExecutor.submit_elsewhere`),
and stops sending work to a worker the run drops (:meth:`ClusterExecutor.drop`): every task is
restricted to the workers not dropped, by address and by name.
"""

from __future__ import annotations

import concurrent.futures as cf
import pickle
import threading
import time
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, Any, Final

from arena.errors import ArenaError
from arena.tournaments import runner

if TYPE_CHECKING:
    from distributed import Client
    from distributed import Future as DaskFuture

WORKERS_TTL: Final = 1.0
"""Seconds the executor reuses the scheduler's list of workers before asking again."""
REJOIN_SECONDS: Final = 30.0
"""Seconds a run with no worker connected (and none dropped) waits for one to join."""


class NoWorkerLeft(ArenaError):
    """Every worker of the cluster was dropped from the run (or none is connected)."""


class ClusterExecutor(cf.Executor):
    """A :class:`concurrent.futures.Executor` over a Dask cluster; it owns its client.

    Every ``submit`` is a new Dask task (``pure=False``), even for equal arguments, restricted
    to the workers the run has not dropped. ``shutdown(cancel_futures=True)`` (what the runner
    does after Ctrl-C) cancels every outstanding task on the scheduler and disconnects; the
    scheduler and workers keep running for the next run. A batch that a worker has already
    started finishes there and its result is dropped. When every task had finished, shutdown
    also closes the workers' bot pools, so no bot process outlives the run (as with the local
    pool).
    """

    untrusted: Final = True
    """What its workers return is a claim to check (:mod:`arena.tournaments.driving`)."""

    def __init__(self, client: Client, workers: int, cross_check: float = 0.0) -> None:
        self.client = client
        self.workers = workers
        """Task slots of the cluster when it was checked (workers × threads)."""
        self.cross_check = cross_check
        """The share of matches played again elsewhere and compared (``--cross-check``)."""
        self.dropped: dict[str, str] = {}
        """Workers dropped from the run: address → name."""
        self._submitted: list[cf.Future[Any]] = []
        self._tasks: dict[cf.Future[Any], DaskFuture] = {}
        self._calls: dict[cf.Future[Any], tuple[Callable[..., Any], tuple[Any, ...]]] = {}
        self._seen: dict[cf.Future[Any], tuple[str, float]] = {}
        self._allowed: dict[cf.Future[Any], list[str]] = {}
        self._known: dict[str, str] = {}
        self._known_at = -WORKERS_TTL
        self._lock = threading.Lock()

    # -- workers -------------------------------------------------------------------------

    def _workers(self) -> dict[str, str]:
        """Connected workers, address → name (cached for :data:`WORKERS_TTL` seconds)."""
        if time.monotonic() - self._known_at >= WORKERS_TTL:
            info = self.client.scheduler_info(n_workers=-1)["workers"]
            self._known = {addr: str(w.get("name", addr)) for addr, w in info.items()}
            self._known_at = time.monotonic()
        return self._known

    def eligible(self, avoid: Collection[str] = ()) -> list[str]:
        """The connected workers a task may go to: not dropped (by address or name), not in
        ``avoid``."""
        names = set(self.dropped.values())
        return sorted(
            a
            for a, n in self._workers().items()
            if a not in self.dropped and n not in names and a not in avoid
        )

    def label(self, address: str) -> str:
        """A worker as a user knows it: ``name (address)``."""
        name = self._known.get(address) or self.dropped.get(address) or address
        return address if name == address else f"{name} ({address})"

    def live(self) -> int:
        """Task slots of the workers not dropped (at least 1 while any is left)."""
        return len(self.eligible())

    # -- tasks ---------------------------------------------------------------------------

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        """Schedule ``fn(*args)`` on some worker not dropped; :class:`NoWorkerLeft` when
        there is none."""
        future = self.submit_elsewhere(fn, *args)
        deadline = time.monotonic() + REJOIN_SECONDS
        while future is None and not self.dropped and time.monotonic() < deadline:
            time.sleep(WORKERS_TTL)  # none connected (a nanny restarting its worker?): wait
            future = self.submit_elsewhere(fn, *args)
        if future is None:
            raise NoWorkerLeft(self._none_left())
        return future

    def submit_elsewhere(
        self, fn: Callable[..., Any], /, *args: Any, avoid: Collection[str] = ()
    ) -> cf.Future[Any] | None:
        """Schedule ``fn(*args)`` on a worker not in ``avoid`` and not dropped; None when
        there is none."""
        allowed = self.eligible(avoid)
        if not allowed:
            return None
        future: cf.Future[Any] = cf.Future()  # left pending, so that the run can cancel it
        future.add_done_callback(self._cancelled)
        with self._lock:
            self._submitted = [f for f in self._submitted if not f.done()]
            self._submitted.append(future)
            self._calls[future] = (fn, args)
        self._start(future, allowed)
        return future

    def _start(self, future: cf.Future[Any], allowed: list[str]) -> None:
        fn, args = self._calls[future]
        task = self.client.submit(fn, *args, pure=False, workers=allowed, allow_other_workers=False)
        with self._lock:
            self._tasks[future] = task
            self._allowed[future] = allowed
        task.add_done_callback(lambda t: self._settle(future, t))

    def watch(self) -> dict[cf.Future[Any], tuple[str, float]]:
        """For each unfinished task a worker has taken: that worker's address and when this
        executor first saw it there (the scheduler's word: one request). A task every worker
        it was allowed has left (a lone worker restarted by its nanny comes back under another
        address) is sent again to the workers there are now."""
        with self._lock:
            tasks = {t.key: f for f, t in self._tasks.items() if not f.done()}
        if not tasks:
            return {}
        connected = set(self._workers())
        for future in list(tasks.values()):
            if not connected.intersection(self._allowed.get(future, ())):
                allowed = self.eligible()
                old = self._tasks.get(future)
                if allowed and old is not None:
                    self._start(future, allowed)
                    old.cancel()
        with self._lock:
            tasks = {t.key: f for f, t in self._tasks.items() if not f.done()}
        now = time.monotonic()
        for address, keys in self.client.processing().items():
            for key in keys:
                held = tasks.get(key)
                if held is not None:
                    seen = self._seen.get(held)
                    if seen is None or seen[0] != address:
                        self._seen[held] = (address, now)
        return {f: s for f, s in self._seen.items() if not f.done()}

    def worker_of(self, future: cf.Future[Any]) -> str | None:
        """The address of the worker that played ``future``'s task (the scheduler's word:
        where its result is held), or None when unknown."""
        task = self._tasks.get(future)
        if task is not None:
            try:
                holders = self.client.who_has([task]).get(task.key, ())
            except Exception:  # noqa: BLE001 - the scheduler could not say: unknown
                holders = ()
            if holders:
                return str(holders[0])
        seen = self._seen.get(future)
        return seen[0] if seen else None

    def forget(self, future: cf.Future[Any]) -> None:
        """Drop what this executor keeps of a finished ``future`` (the run has read it)."""
        with self._lock:
            self._tasks.pop(future, None)
            self._calls.pop(future, None)
            self._seen.pop(future, None)
            self._allowed.pop(future, None)

    def abandon(self, future: cf.Future[Any]) -> None:
        """Give up on ``future`` (past its deadline): cancel its task; the future stays as it
        is and the caller forgets it."""
        task = self._tasks.get(future)
        self.forget(future)
        future.cancel()
        if task is not None:
            task.cancel()

    def drop(self, address: str) -> None:
        """Send ``address`` (and any worker of its name) no more work in this run; its
        unfinished tasks, and those no worker has taken yet, go to the workers left. A task
        that is left with no worker fails with :class:`NoWorkerLeft`."""
        self._workers()
        self.dropped[address] = self._known.get(address, address)
        allowed = self.eligible()
        taken = {k for a, keys in self.client.processing().items() if a != address for k in keys}
        with self._lock:
            moving = [f for f, t in self._tasks.items() if not f.done() and t.key not in taken]
        for future in moving:
            old = self._tasks.get(future)
            if allowed:
                self._start(future, allowed)
            else:
                _set(future.set_exception, NoWorkerLeft(self._none_left()))
            if old is not None:
                old.cancel()

    def _none_left(self) -> str:
        if not self.dropped:
            return "no worker of the cluster is connected"
        names = ", ".join(self.label(a) for a in self.dropped)
        return f"no worker of the cluster is left to play on: dropped {names} (the log says why)"

    def map(
        self,
        fn: Callable[..., Any],
        *iterables: Any,
        timeout: float | None = None,
        chunksize: int = 1,
    ) -> Iterator[Any]:
        """Like :meth:`concurrent.futures.Executor.map`; ``chunksize`` is ignored (as in Dask):
        batch the work into the items instead."""
        return super().map(fn, *iterables, timeout=timeout)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Wait for (or, with ``cancel_futures``, cancel) outstanding tasks, then disconnect."""
        try:
            with self._lock:
                tasks = dict(self._tasks)
            if cancel_futures:
                for future, task in tasks.items():
                    if not future.done():
                        task.cancel()
                        future.cancel()
            elif wait:
                cf.wait(list(tasks))
            if self.client.status == "running" and all(
                f.done() and not f.cancelled() for f in self._submitted
            ):
                # No batch is running anywhere, so no pool is in use. After a cancel, a batch
                # may still be finishing on a worker: its pool closes when the next run
                # replaces the plugin.
                self.client.run(_close_pool, on_error="ignore")
        finally:
            self.client.close()

    def _cancelled(self, future: cf.Future[Any]) -> None:
        """A future the run cancelled: cancel its task, and tell ``cf.wait`` it is done."""
        if future.cancelled():
            task = self._tasks.get(future)
            if task is not None:
                task.cancel()
            future.set_running_or_notify_cancel()

    def _settle(self, future: cf.Future[Any], task: DaskFuture) -> None:
        """Give ``future`` the outcome of ``task`` (in Dask's callback thread), unless the
        task was replaced (sent elsewhere) meanwhile."""
        if future.done() or self._tasks.get(future) is not task:
            return
        try:
            if task.cancelled():
                future.cancel()
                return
            outcome = task.result()
        except pickle.UnpicklingError as e:  # refused by guard_unpickling: a bad document
            outcome = e
        except BaseException as e:
            _set(future.set_exception, e)
            return
        _set(future.set_result, outcome)


def _close_pool() -> None:
    """Run on each worker: close its bot pool (zygotes and staged files)."""
    runner.close_worker()


def _set(setter: Callable[[Any], None], value: Any) -> None:
    try:
        setter(value)
    except cf.InvalidStateError:  # cancelled by the run meanwhile
        pass


__all__ = ["ClusterExecutor", "NoWorkerLeft"]
