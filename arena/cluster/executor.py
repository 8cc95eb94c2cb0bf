"""The executor of a cluster run: Dask tasks behind :class:`concurrent.futures.Executor`.

Each ``submit`` is a Dask task whose outcome is handed to a plain :class:`concurrent.futures.Future`
by a done-callback. Unlike Dask's own ``Client.get_executor``, a result that cannot be read
here (a peer sent a pickle that :func:`arena.cluster.security.guard_unpickling` refuses) becomes
that error as the future's *result*, which :func:`arena.tournaments.verify.check_results` refuses
like any other bad document (the match is sent again, then the run stops naming it), instead of
leaving the future pending forever.
"""

from __future__ import annotations

import concurrent.futures as cf
import pickle
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from arena.tournaments import runner

if TYPE_CHECKING:
    from distributed import Client
    from distributed import Future as DaskFuture


class ClusterExecutor(cf.Executor):
    """A :class:`concurrent.futures.Executor` over a Dask cluster; it owns its client.

    Every ``submit`` is a new Dask task (``pure=False``), even for equal arguments.
    ``shutdown(cancel_futures=True)`` (what the runner does after Ctrl-C) cancels every
    outstanding task on the scheduler and disconnects; the scheduler and workers keep running
    for the next run. A batch that a worker has already started finishes there and its result is
    dropped. When every task had finished, shutdown also closes the workers' bot pools, so no
    bot process outlives the run (as with the local pool).
    """

    def __init__(self, client: Client, workers: int) -> None:
        self.client = client
        self.workers = workers
        """Task slots of the cluster when it was checked (workers × threads)."""
        self._submitted: list[cf.Future[Any]] = []
        self._tasks: dict[cf.Future[Any], DaskFuture] = {}
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        """Schedule ``fn(*args, **kwargs)`` on some worker."""
        task = self.client.submit(fn, *args, pure=False, **kwargs)
        future: cf.Future[Any] = cf.Future()  # left pending, so that the run can cancel it
        future.add_done_callback(lambda f: _cancelled(f, task))
        with self._lock:
            self._tasks = {f: t for f, t in self._tasks.items() if not f.done()}
            self._tasks[future] = task
            self._submitted = [f for f in self._submitted if not f.done()]
            self._submitted.append(future)
        task.add_done_callback(lambda t: _settle(future, t))
        return future

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


def _close_pool() -> None:
    """Run on each worker: close its bot pool (zygotes and staged files)."""
    runner.close_worker()


def _cancelled(future: cf.Future[Any], task: DaskFuture) -> None:
    """A future the run cancelled: cancel its task, and tell ``cf.wait`` it is done."""
    if future.cancelled():
        task.cancel()
        future.set_running_or_notify_cancel()


def _settle(future: cf.Future[Any], task: DaskFuture) -> None:
    """Give ``future`` the outcome of ``task`` (in Dask's callback thread)."""
    if future.done():
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


def _set(setter: Callable[[Any], None], value: Any) -> None:
    try:
        setter(value)
    except cf.InvalidStateError:  # cancelled by the run meanwhile
        pass


__all__ = ["ClusterExecutor"]
