"""Driving a run's batches through an executor: what comes back is checked, what does not is
noticed, and a cluster worker's word is a claim.

:func:`drive` submits the batches of a schedule, keeps a bounded number in flight and hands every
checked record (:func:`arena.tournaments.verify.check_results`) to the parent, the only SQLite
writer. For every executor:

- **Missing is refused.** A match of a batch that comes back without its record (left out, or
  refused by the check) is sent again once; a match that fails again stops the run naming it
  (:class:`RecordsRefused`), so a tournament is never stored ``finished`` with a hole.

For an executor whose workers are not the arena machine (``executor.untrusted``: a cluster,
:class:`arena.cluster.executor.ClusterExecutor`), a :class:`Judge` also holds each worker to what
it returns:

- **A fault is a claim.** A record with a fault (a bot timed out, crashed, broke the rules) is
  not stored on the worker's word: the match is played again elsewhere, from the same deal (a
  bot's randomness is seeded from it too: :func:`arena.sandbox.bot_random_seed`). Another
  worker's equal record (:func:`differs`) settles it; when the two differ, or no other worker
  is there, the arena machine plays it (``referee``, trusted): its record is stored, and every
  worker whose record differs from it is named and dropped from the run.
- **Cross-checks.** With ``cross_check`` (a share), that share of all matches, picked by
  :func:`picked` from a key only the arena holds (so no worker knows which), is played again
  and compared the same way.
- **A deadline per batch** (:func:`batch_deadline`, from the limits): a batch a worker has held
  longer is cancelled and sent elsewhere; a worker that misses twice (a deadline, or records it
  did not return) is dropped and named. A record that does not replay drops its worker at once.

Every worker dropped is logged and listed in :attr:`Judge.dropped`; when none is left the run
stops (:class:`arena.cluster.executor.NoWorkerLeft`).
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import hmac
import logging
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Protocol, cast

from arena.errors import ArenaError
from arena.matches.record import MatchRecord
from arena.matches.scheduler import SEATINGS, MatchSpec
from arena.sandbox import Limits
from arena.sandbox.proxy import WALL_FACTOR
from arena.tournaments.runner import Batch, Wait, play_batch
from arena.tournaments.verify import check_results

log = logging.getLogger(__name__)

RETRIES: Final = 1
"""Times a match whose record was refused or not returned is sent again before the run stops
with an error naming it."""
MISSES: Final = 2
"""Deadlines missed (or batches returned short) after which a worker is dropped from the run."""
BATCH_GRACE: Final = 10.0
"""Seconds added to every batch's deadline: a worker's first batch stages and loads the bots."""
WATCH_EVERY: Final = 1.0
"""Seconds between two looks at which worker holds which batch (one scheduler request)."""

PLAY, CHECK, REFEREE = "play", "check", "referee"


class Placing(Protocol):
    """What :func:`drive` needs of an executor whose workers are not the arena machine (a
    cluster's, :class:`arena.cluster.executor.ClusterExecutor`): where a task ran, sending one
    elsewhere, and dropping a worker. Every address is the scheduler's word, never a worker's."""

    untrusted: bool
    cross_check: float

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        """A task on any worker not dropped."""
        ...

    def submit_elsewhere(
        self, fn: Callable[..., Any], /, *args: Any, avoid: Collection[str] = ()
    ) -> cf.Future[Any] | None:
        """A task on a worker not dropped and not in ``avoid``; None when there is none."""
        ...

    def live(self) -> int:
        """Workers not dropped."""
        ...

    def label(self, address: str) -> str:
        """A worker as a user knows it: ``name (address)``."""
        ...

    def worker_of(self, future: cf.Future[Any]) -> str | None:
        """The worker that played a finished task."""
        ...

    def forget(self, future: cf.Future[Any]) -> None:
        """Drop what is kept of a finished task."""
        ...

    def watch(self) -> dict[cf.Future[Any], tuple[str, float]]:
        """Each unfinished task a worker holds: that worker, and since when."""
        ...

    def abandon(self, future: cf.Future[Any]) -> None:
        """Cancel a task held past its deadline."""
        ...

    def drop(self, address: str) -> None:
        """Send a worker no more work in this run."""
        ...


def placing(executor: cf.Executor) -> Placing | None:
    """``executor`` as a :class:`Placing` when its workers are not the arena machine, else None
    (a local pool: the arena machine's own processes)."""
    return cast(Placing, executor) if getattr(executor, "untrusted", False) else None


class RecordsRefused(ArenaError):
    """Matches whose records were refused or not returned, even when sent again."""


def match_seconds(limits: Limits) -> float:
    """The most one match may take: three seats, each the longer of what computing and what
    its match clock's bank allow. Computing: its whole CPU budget (loading included) at the
    wall-clock allowance of a decision (:data:`arena.sandbox.proxy.WALL_FACTOR` times its CPU).
    The bank: a bot may wait through all of it (``--clock-bank``)."""
    computing = WALL_FACTOR * limits.match_cpu_seconds
    return len(SEATINGS[0]) * max(computing, limits.clock_bank_seconds or 0.0)


def batch_deadline(batch: Batch) -> float:
    """Seconds a worker may hold ``batch``: its matches times :func:`match_seconds`, twice (a
    one-thread worker holds one batch ahead of it), plus :data:`BATCH_GRACE`."""
    return 2 * len(batch.matches) * match_seconds(batch.limits) + BATCH_GRACE


def picked(key: bytes, share: float, match_id: str) -> bool:
    """Whether ``match_id`` is among the ``share`` of matches cross-checked: an HMAC under
    ``key`` (derived from the tournament's secret: reproducible, and unknown to the workers,
    who see neither the secret nor this key), read as a number in [0, 1)."""
    if share <= 0:
        return False
    digest = hmac.new(key, f"arena/cross-check/{match_id}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def differs(a: MatchRecord, b: MatchRecord) -> str | None:
    """What differs between two records of one match, or None when the bots played the same:
    every hand and decision, the scores, places and end, each fault's seat, kind and decision,
    the decision counts. Timings (and a fault's wording) are measurements, not play."""
    if a.hands != b.hands:
        return "the play differs"
    faults_a = sorted((f.seat, f.kind, f.decision or -1) for f in a.faults)
    faults_b = sorted((f.seat, f.kind, f.decision or -1) for f in b.faults)
    if faults_a != faults_b:
        return f"the faults differ ({_faults(a)} against {_faults(b)})"
    if (a.scores, a.placements, a.truncated) != (b.scores, b.placements, b.truncated):
        return "the scores or places differ"
    if [(s.decisions, s.asked) for s in a.stats] != [(s.decisions, s.asked) for s in b.stats]:
        return "the decision counts differ"
    return None


def _faults(r: MatchRecord) -> str:
    return ", ".join(f"seat {f.seat} {f.kind}" for f in r.faults) or "none"


@dataclass
class Judge:
    """How a run holds untrusted workers to their results (see the module's docstring)."""

    cross_check: float = 0.0
    """The share of all matches played again elsewhere and compared."""
    key: bytes = b""
    """The key :func:`picked` reads (from the tournament's secret)."""
    dropped: dict[str, str] = field(default_factory=dict)
    """Each worker dropped from the run (``name (address)``) and why."""
    replayed: int = 0
    """Matches played again on another worker to check a claim (a fault or a cross-check)."""
    refereed: int = 0
    """Matches the arena machine played itself (a dispute, or no other worker to ask)."""
    misses: dict[str, int] = field(default_factory=dict)

    def wants_check(self, record: MatchRecord) -> bool:
        """Whether a worker's record is a claim to check before it is stored."""
        return bool(record.faults) or picked(self.key, self.cross_check, record.match_id)


@dataclass
class _Task:
    batch: Batch
    kind: str = PLAY
    avoid: frozenset[str] = frozenset()


@dataclass
class _Driver:
    executor: cf.Executor
    on_results: Callable[[list[MatchRecord]], None]
    judge: Judge | None
    referee: Callable[[], cf.Executor] | None
    pending: dict[cf.Future[str], _Task] = field(default_factory=dict)
    queue: list[_Task] = field(default_factory=list)
    held: dict[str, list[tuple[str, MatchRecord]]] = field(default_factory=dict)
    tries: dict[str, int] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)
    stopped: bool = False
    local: cf.Executor | None = None
    watched: float = 0.0
    exhausted: bool = False

    @property
    def untrusted(self) -> bool:
        return self.judge is not None

    @property
    def placed(self) -> Placing:
        """The executor as a :class:`Placing` (only called with a judge: an untrusted one)."""
        return cast(Placing, self.executor)

    # -- sending -------------------------------------------------------------------------

    def send(self, task: _Task) -> None:
        """Submit ``task``: a new batch anywhere, anything else elsewhere, the arena machine
        when no other worker is left (or for a referee)."""
        future: cf.Future[Any] | None = None
        if task.kind == PLAY and not task.avoid:
            future = self.executor.submit(play_batch, task.batch)
        elif task.kind != REFEREE and self.untrusted:
            future = self.placed.submit_elsewhere(play_batch, task.batch, avoid=task.avoid)
            if future is None:
                task = replace(task, kind=REFEREE)
            elif task.kind == CHECK and self.judge is not None:
                self.judge.replayed += len(task.batch.matches)
        elif task.kind != REFEREE:
            future = self.executor.submit(play_batch, task.batch)
        if future is None:
            future = self._local().submit(play_batch, task.batch)
            if self.judge is not None:
                self.judge.refereed += len(task.batch.matches)
        self.pending[future] = task

    def _local(self) -> cf.Executor:
        if self.local is None:
            if self.referee is None:
                raise ArenaError("a worker's record needs the arena machine to play it again")
            self.local = self.referee()
        return self.local

    def again(self, task: _Task, specs: Sequence[MatchSpec], worker: str | None) -> None:
        """Send ``specs`` of ``task`` again elsewhere; a match sent too often fails the run."""
        if self.stopped or not specs:
            return
        again = []
        for spec in specs:
            self.tries[spec.match_id] = tries = self.tries.get(spec.match_id, 0) + 1
            if tries <= RETRIES:
                again.append(spec)
            else:
                self.failed.append(spec.match_id)
        if again:
            avoid = task.avoid | ({worker} if worker else set())
            self.queue.append(_Task(replace(task.batch, matches=tuple(again)), task.kind, avoid))

    # -- judging -------------------------------------------------------------------------

    def label(self, worker: str) -> str:
        return self.placed.label(worker) if self.untrusted else worker

    def drop(self, worker: str, why: str) -> None:
        """Name ``worker`` and send it no more work in this run."""
        assert self.judge is not None
        name = self.label(worker)
        if name in self.judge.dropped:
            return
        self.judge.dropped[name] = why
        log.warning("dropped worker %s from the run: %s", name, why)
        self.placed.drop(worker)

    def miss(self, worker: str, why: str) -> None:
        """Count a miss of ``worker``; the :data:`MISSES`-th drops it."""
        assert self.judge is not None
        log.warning("worker %s %s", self.label(worker), why)
        self.judge.misses[worker] = count = self.judge.misses.get(worker, 0) + 1
        if count >= MISSES:
            self.drop(worker, f"{why} ({count} times)")

    def take(self, task: _Task, document: object, worker: str | None) -> None:
        """Check a finished task's records; hand over, hold or send again."""
        accepted, refused = check_results(task.batch, document)
        for line in refused:
            log.warning("refused a worker's record, not stored: %s", line)
        if refused and worker and self.untrusted:
            self.drop(worker, f"a record it returned does not stand: {refused[0]}")
        done = {r.match_id for r in accepted}
        missing = [s for s in task.batch.matches if s.match_id not in done]
        if missing and not refused and worker and self.untrusted and not self.stopped:
            self.miss(worker, f"returned {len(accepted)} of {len(task.batch.matches)} records")
        self.again(task, missing, worker)
        if not self.untrusted:
            if accepted:
                self.on_results(accepted)
            return
        self.judged(task, accepted, worker or "")

    def judged(self, task: _Task, records: list[MatchRecord], worker: str) -> None:
        """Records of an untrusted executor (or its referee): store, hold or compare."""
        assert self.judge is not None
        out: list[MatchRecord] = []
        checks: list[MatchSpec] = []
        referee: list[MatchSpec] = []
        specs = {s.match_id: s for s in task.batch.matches}
        for r in records:
            if task.kind == PLAY:
                if not self.judge.wants_check(r):
                    out.append(r)
                    continue
                self.held[r.match_id] = [(worker, r)]
                checks.append(specs[r.match_id])
                continue
            claims = self.held.get(r.match_id, [])
            if task.kind == CHECK and claims and differs(claims[0][1], r) is None:
                out.append(claims[0][1])
                del self.held[r.match_id]
            elif task.kind == CHECK:
                claims.append((worker, r))
                referee.append(specs[r.match_id])
            else:
                out.append(self.settle(r, self.held.pop(r.match_id, [])))
        for kind, todo in ((CHECK, checks), (REFEREE, referee)):
            if todo:
                avoid = frozenset(w for s in todo for w, _ in self.held.get(s.match_id, []))
                self.queue.append(_Task(replace(task.batch, matches=tuple(todo)), kind, avoid))
        if out:
            self.on_results(out)

    def settle(self, honest: MatchRecord, claims: list[tuple[str, MatchRecord]]) -> MatchRecord:
        """The arena machine's record of a disputed match: every worker whose claim differs
        from it is dropped, named with what differs."""
        for worker, claim in claims:
            why = differs(claim, honest)
            if why is not None and worker:
                self.drop(
                    worker,
                    f"its record of match {honest.match_id} differs from the arena machine's "
                    f"replay: {why}",
                )
        return honest

    def overdue(self) -> None:
        """Cancel every batch a worker has held past its deadline and send it elsewhere."""
        now = time.monotonic()
        if not self.untrusted or now - self.watched < WATCH_EVERY:
            return
        self.watched = now
        for future, (worker, since) in self.placed.watch().items():
            task = self.pending.get(future)
            if task is None or task.kind == REFEREE:
                continue
            allowed = batch_deadline(task.batch)
            if now - since > allowed:
                del self.pending[future]
                self.placed.abandon(future)
                self.miss(worker, f"held a batch past its deadline of {allowed:g} s")
                self.again(task, task.batch.matches, worker)

    def fill(self, todo: Iterator[Batch | Wait], in_flight: int) -> bool:
        """Send what is queued, then new batches while fewer than ``in_flight`` are out (for
        a cluster, two per worker left); whether the schedule waits for results."""
        while self.queue:
            self.send(self.queue.pop())
        limit = in_flight
        if self.untrusted:
            limit = min(in_flight, 2 * max(1, self.placed.live()))
        while not self.exhausted and len(self.pending) < limit:
            batch = next(todo, None)
            if batch is None:
                self.exhausted = True
            elif isinstance(batch, Wait):
                return True
            else:
                self.send(_Task(batch))
        return False

    def collect(self, done: Iterable[cf.Future[str]]) -> BaseException | None:
        """Take the finished tasks; the first error among them (a task that raised, or
        matches refused too often)."""
        error: BaseException | None = None
        for f in done:
            task = self.pending.pop(f)
            worker = _worker_of(self.executor, f, task)
            if f.cancelled():
                continue
            exc = f.exception()
            if exc is None:
                self.take(task, f.result(), worker)
                if not self.failed:
                    continue
                exc = self.error()
            error = error or exc
        return error

    def error(self) -> RecordsRefused:
        """The run's error once a match was refused (or not returned) too often."""
        shown = ", ".join(self.failed[:3]) + (" ..." if len(self.failed) > 3 else "")
        return RecordsRefused(
            f"refused the records of {len(self.failed)} match(es) from the workers, or never "
            f"got them, even when played again ({shown}); nothing of them was stored (the log "
            "says why)"
        )


def drive(
    executor: cf.Executor,
    work: Iterable[Batch | Wait],
    *,
    in_flight: int,
    on_results: Callable[[list[MatchRecord]], None],
    should_stop: Callable[[], bool],
    on_stop: Callable[[], None] = lambda: None,
    judge: Judge | None = None,
    referee: Callable[[], cf.Executor] | None = None,
) -> bool:
    """Submit ``work`` keeping at most ``in_flight`` batches queued; hand over each result.

    ``work`` may be lazy: it is read only when a batch can be submitted, after the results
    handed over so far, and may yield :data:`arena.tournaments.runner.WAIT` when its next batch
    depends on results still out. Returns True when every batch ran and every record was
    handed over, False when ``should_stop()`` turned true first (then ``on_stop`` runs once,
    not-started batches are cancelled, and the results of the batches already running are
    still handed over). A batch that raised stops the run: the others are cancelled, and the
    error re-raised.

    Only records that match their batch are handed over; a match refused or not returned is
    sent again (:data:`RETRIES` times), then the run stops with :class:`RecordsRefused`. With
    a ``judge`` (an untrusted executor's), every worker is held to its word as the module's
    docstring says, ``referee()`` making the arena machine's own executor when first needed.
    """
    d = _Driver(executor, on_results, judge, referee)
    todo = iter(work)
    error: BaseException | None = None

    def halt() -> None:
        if not d.stopped:
            d.stopped = True
            on_stop()
            for f in d.pending:
                f.cancel()

    try:
        while True:
            if not d.stopped and error is None and should_stop():
                halt()
            waiting = False
            if not (d.stopped or error):
                try:
                    waiting = d.fill(todo, in_flight)
                except ArenaError as e:
                    error = e
                    halt()
            if not d.pending:
                if waiting and not (d.stopped or error):
                    raise ArenaError(
                        "the run waits for matches that no worker returned (the log says "
                        "which); run the same command again to resume"
                    )
                break
            done, _ = cf.wait(d.pending, timeout=0.2, return_when=cf.FIRST_COMPLETED)
            failure = d.collect(done)
            if failure is not None and error is None:
                error = failure
                halt()
            if error is None:
                d.overdue()
    finally:
        if d.local is not None:
            d.local.shutdown(wait=True, cancel_futures=True)
    if error is not None:
        raise error
    return d.exhausted and not d.stopped and not d.queue and not d.held


def _worker_of(executor: cf.Executor, future: cf.Future[str], task: _Task) -> str | None:
    """Who played ``future`` (None: the arena machine, or a trusted executor's worker)."""
    placed = placing(executor)
    if task.kind == REFEREE or placed is None:
        return None
    worker = placed.worker_of(future)
    placed.forget(future)
    return worker or None


__all__ = [
    "BATCH_GRACE",
    "Judge",
    "MISSES",
    "Placing",
    "RETRIES",
    "RecordsRefused",
    "batch_deadline",
    "differs",
    "drive",
    "match_seconds",
    "picked",
    "placing",
]
