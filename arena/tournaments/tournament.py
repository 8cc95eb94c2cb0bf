"""Tournaments: registering bots, planning a duplicate round robin, running it, standings.

The pieces live in their own modules: :mod:`arena.tournaments.entrants` (bot files),
:mod:`arena.matches.scheduler` (which matches, their ids and seeds), :mod:`arena.tournaments.runner`
(worker processes behind an executor), :mod:`arena.store` (SQLite) and :mod:`arena.stats`
(Plackett-Luce, intervals). This module ties them together for the ``submit``, ``run`` and
``standings`` commands.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import hmac
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Concatenate, ParamSpec

from arena import stats
from arena.engine import Rules
from arena.errors import ArenaError, InvalidSetting
from arena.events import FaultRecorded, MatchesStored, OnEvent, Planned, Stopped, ignore
from arena.matches.record import MatchRecord
from arena.matches.scheduler import (
    DEFAULT_ROUNDS,
    Entrant,
    match_count,
    schedule,
    tournament_id,
)
from arena.matches.secrecy import SecretFile
from arena.sandbox import BotSource, Limits
from arena.sandbox.layers import choose_isolation
from arena.sandbox.runtime import Artifact
from arena.store import BotFault, BotVersion, Store
from arena.store.runlock import RunLock
from arena.tournaments import runner
from arena.tournaments.driving import Judge, drive, placing
from arena.tournaments.entrants import check_field, register_files, resolve, runnable, submit
from arena.tournaments.owners import current_owner
from arena.tournaments.schedules import (
    UNTIL_SEPARATED_ROUNDS,
    FixedSchedule,
    Schedule,
    UntilSeparated,
    unfold,
)
from arena.tournaments.standings import current_standings, save_collusion
from arena.untrusted import clean_line

log = logging.getLogger(__name__)
P = ParamSpec("P")


__all__ = [
    "Plan",
    "RunResult",
    "RunSettings",
    "check_rounds",
    "check_worker_count",
    "plan_round_robin",
    "prepare",
    "register_files",
    "resolve",
    "run",
    "submit",
]


# --- planning -------------------------------------------------------------------------------


@dataclass
class Plan:
    """A tournament ready to run: its identity, its bots and its schedule."""

    tid: str
    config: Mapping[str, object]
    """Its identity (:func:`arena.matches.scheduler.tournament_id`): a JSON object."""
    versions: list[BotVersion]
    rules: Rules
    limits: Limits
    schedule: Schedule
    """What the run plays (:mod:`arena.tournaments.schedules`)."""
    commitment: str
    """SHA-256 of the tournament's deal secret."""
    stored: int = 0
    """Matches already stored when it was planned."""
    check_key: bytes = field(default=b"", repr=False)
    """The key that picks a cluster run's cross-checked matches
    (:func:`arena.tournaments.driving.picked`): derived from the deal secret, so the same
    tournament checks the same matches and no worker knows which."""

    @property
    def total(self) -> int:
        """Matches in the whole tournament (at most, for a schedule that stops by its own
        rule; 0: no bound)."""
        return self.schedule.total or 0


def check_rounds(rounds: int) -> int:
    """``rounds`` when a tournament can have that many (at least 1), else InvalidSetting."""
    if rounds < 1:
        raise InvalidSetting("rounds", f"must be at least 1, not {rounds}")
    return rounds


def check_worker_count(workers: int) -> int:
    """``workers`` when a run can have that many worker processes (at least 1), else
    InvalidSetting."""
    if workers < 1:
        raise InvalidSetting("workers", f"must be at least 1, not {workers}")
    return workers


def worker_count(workers: int | None, executor: Any = None) -> int:
    """How many workers a run has: a cluster executor's, else ``workers`` (checked), else
    the usable cores."""
    if executor is not None:
        return int(executor.workers)
    return runner.default_workers() if workers is None else check_worker_count(workers)


def run_limits(
    *,
    decision_seconds: float | None = None,
    match_cpu_seconds: float | None = None,
    clock_bank_seconds: float | None = None,
    clock_increment_seconds: float | None = None,
) -> Limits:
    """The sandbox's default limits with ``arena run``'s overrides (None: the default; the
    match clock's defaults follow the CPU limits given, see :class:`Limits`).

    The limits are part of the tournament's identity: other limits, another tournament.
    """
    given: dict[str, Any] = {
        "decision_seconds": decision_seconds,
        "match_cpu_seconds": match_cpu_seconds,
        "clock_bank_seconds": clock_bank_seconds,
        "clock_increment_seconds": clock_increment_seconds,
    }
    return Limits(**{k: v for k, v in given.items() if v is not None})


@dataclass(frozen=True)
class RunSettings:
    """How a round robin is played, beyond its bots and seed (:meth:`arena.Arena.run`).

    ``rounds`` deal seeds per set of three bots (None: 20; with ``until_separated``, the
    most: 200); ``until_separated`` adds rounds only until every pair of bots adjacent in the
    standings is separated. The four limits override the sandbox's (each bot's match clock:
    docs/sandbox.md); ``secret_file`` deals from an exported deal secret, to reproduce a
    tournament of another database; ``max_source_bytes`` refuses larger bot files unread.
    The limits are part of the tournament's identity: other limits, another tournament.
    """

    rounds: int | None = None
    until_separated: bool = False
    decision_seconds: float | None = None
    match_cpu_seconds: float | None = None
    clock_bank_seconds: float | None = None
    clock_increment_seconds: float | None = None
    secret_file: str | Path | None = None
    max_source_bytes: int | None = None

    def limits(self) -> Limits:
        """The sandbox's limits with these overrides (:func:`run_limits`)."""
        return run_limits(
            decision_seconds=self.decision_seconds, match_cpu_seconds=self.match_cpu_seconds,
            clock_bank_seconds=self.clock_bank_seconds,
            clock_increment_seconds=self.clock_increment_seconds,
        )  # fmt: skip


def prepare(
    store: Store,
    bots_or_files: Sequence[str],
    *,
    seed: int = 1,
    settings: RunSettings | None = None,
    rules: Rules | None = None,
) -> Plan:
    """The tournament ``arena run BOTS_OR_FILES`` plays: its bots (:func:`resolve`: files
    registered, names looked up) and its :func:`plan_round_robin`.

    An owner key is read (or made) only when a file may be stored; bundled and submitted
    names need none.
    """
    settings = settings or RunSettings()
    rounds = settings.rounds
    if rounds is None:
        rounds = UNTIL_SEPARATED_ROUNDS if settings.until_separated else DEFAULT_ROUNDS
    rounds = check_rounds(rounds)  # before registering
    limits = settings.limits()
    imported = SecretFile.read(settings.secret_file) if settings.secret_file else None
    files = any(Path(a).is_file() for a in bots_or_files)
    cap = settings.max_source_bytes
    versions = resolve(
        store,
        bots_or_files,
        owner=current_owner() if files else None,
        max_bytes=limits.source_bytes if cap is None else cap,
    )
    return plan_round_robin(
        store,
        versions,
        rounds=rounds,
        seed=seed,
        rules=rules or Rules(),
        limits=limits,
        secret_file=imported,
        until_separated=settings.until_separated,
    )


def plan_round_robin(
    store: Store,
    versions: Sequence[BotVersion],
    *,
    rounds: int,
    seed: int,
    rules: Rules,
    limits: Limits,
    secret_file: SecretFile | None = None,
    until_separated: bool = False,
) -> Plan:
    """Create (or find again) the tournament of these bots and settings; list what is left.

    A new tournament gets the deal secret of ``secret_file`` (to reproduce a tournament of
    another database) or else the database's unrevealed secret for ``seed``, drawn when
    there is none (:meth:`Store.ensure_tournament`). With ``until_separated`` it adds rounds
    only until every pair of adjacent bots in the standings is separated
    (:mod:`arena.stats.separation`), ``rounds`` at most: another tournament than the fixed one.
    """
    if secret_file is not None and secret_file.seed != seed:
        raise ArenaError(
            f"the secret file holds the deal secret of seed {secret_file.seed}, not of seed {seed}"
        )
    check_rounds(rounds)
    names = [v.name for v in versions]
    check_field(names)
    if len(set(names)) != len(names):
        raise ArenaError("a tournament cannot have two bots with the same name")
    versions = sorted(versions, key=lambda v: v.name)
    config = {
        "bots": [{"name": v.name, "sha256": v.sha256} for v in versions],
        "rounds": rounds,
        "seed": seed,
        "rules": rules.to_dict(),
        # Sorted keys, as the tournament id has always hashed them: a resumed run finds it.
        "limits": dict(sorted(limits.to_dict().items())),
    }
    if until_separated:
        config["until"] = "separated"
    tid = tournament_id(config)
    entrants = [Entrant(v.name, v.sha256, v.id) for v in versions]
    secret = store.ensure_tournament(
        tid,
        config,
        [v.id for v in versions],
        match_count(len(entrants), rounds),
        secret=None if secret_file is None else secret_file.secret,
    )
    matches = list(schedule(tid, entrants, rounds, seed, secret.secret))
    done = store.finished_match_ids(tid)
    unfolds: Schedule = (
        UntilSeparated(tid, matches) if until_separated else FixedSchedule(tid, matches, done)
    )
    return Plan(
        tid, config, versions, rules, limits, unfolds, secret.commitment, len(done),
        check_key(secret.secret),
    )  # fmt: skip


def planned(store: Store, the_plan: Plan, workers: int) -> Planned:
    """The event of ``the_plan`` planned in ``store``, to be played by ``workers``."""
    t = store.tournament(the_plan.tid)
    names = tuple(v.name for v in the_plan.versions)
    return Planned(
        t.id, t.kind, names, workers, the_plan.schedule.total, the_plan.schedule.exact,
        the_plan.stored, the_plan.commitment,
    )  # fmt: skip


def check_key(secret: bytes) -> bytes:
    """The cross-check key of a tournament with deal secret ``secret`` (:attr:`Plan.check_key`)."""
    return hmac.new(secret, b"arena/cross-check-key", hashlib.sha256).digest()


# --- running --------------------------------------------------------------------------------


@dataclass
class RunResult:
    """What one ``arena run`` did."""

    tid: str
    total: int
    played: int
    already: int
    completed: bool
    seconds: float
    standings: list[stats.BotStanding] = field(default_factory=list)
    faults: list[BotFault] = field(default_factory=list)
    """Every fault of the tournament, by bot (:meth:`arena.store.Store.faults_by_bot`)."""
    stopped: str | None = None
    """Why a tournament that stops by its own rule stopped, or where it stands (None: a
    fixed schedule)."""
    judge: Judge | None = None
    """On a cluster: the workers dropped from the run and why, the matches played again to
    check a worker's claim, those the arena machine played itself
    (:class:`arena.tournaments.driving.Judge`)."""


class Sources(dict[str, BotSource | Artifact]):
    """The bot file of each entrant by :attr:`~arena.matches.scheduler.Entrant.key`: the plan's
    versions, and any other version read from the store when a batch first needs it (a bot
    that joins a running ladder)."""

    def __init__(self, store: Store, versions: Iterable[BotVersion]) -> None:
        super().__init__((Entrant(v.name, v.sha256, v.id).key, runnable(v)) for v in versions)
        self.store = store

    def __missing__(self, key: str) -> BotSource | Artifact:
        name, _, sha256 = key.rpartition(":")
        v = self.store.version_by_key(name, sha256)
        if v is None:
            raise KeyError(key)
        self[key] = source = runnable(v)
        return source


def _under_run_lock(
    play: Callable[Concatenate[Store, Plan, P], RunResult],
) -> Callable[Concatenate[Store, Plan, P], RunResult]:
    """Hold the tournament's run lock (:mod:`arena.store.runlock`) while ``play`` runs.

    A second run of the same tournament on the same database is refused with one line naming
    the first; the schedule reads what is stored once the lock is held (``start``), so a match
    that another run stored meanwhile is not played twice.
    """

    @functools.wraps(play)
    def locked(store: Store, the_plan: Plan, *args: P.args, **kwargs: P.kwargs) -> RunResult:
        if store.in_memory:  # no other process can open it: nothing to lock
            return play(store, the_plan, *args, **kwargs)
        with RunLock(store.path, the_plan.tid):
            return play(store, the_plan, *args, **kwargs)

    return locked


def _play_todo(
    store: Store,
    the_plan: Plan,
    work: Iterable[runner.Batch | runner.Wait],
    *,
    workers: int,
    unsafe: bool,
    on_event: OnEvent,
    executor: cf.Executor | None,
    judge: Judge | None = None,
) -> tuple[int, bool]:
    """Play ``work``, storing each batch and reporting it to ``on_event``
    (:class:`~arena.events.MatchesStored`, a :class:`~arena.events.FaultRecorded` per fault);
    return how many matches were stored and whether every batch ran (False: Ctrl-C). Any
    failure of the arena itself marks the tournament ``interrupted`` and is one ArenaError
    line. ``judge``: a cluster's workers are held to their records
    (:mod:`arena.tournaments.driving`), the arena machine playing a disputed match itself."""
    tid, played, unfolds = the_plan.tid, 0, the_plan.schedule
    names = {v.id: v.name for v in the_plan.versions}
    with runner.interrupts() as interrupted:
        stop = runner.fork_context().Event()
        done = store.match_count(tid)

        def report(added: int) -> None:
            on_event(MatchesStored(tid, added, done + played, unfolds.total, unfolds.describe()))

        def store_batch(records: list[MatchRecord]) -> None:
            nonlocal played
            kept = unfolds.write(store, records)
            played += len(kept)
            report(len(kept))
            for r in kept:
                for f in r.faults:
                    bot = r.bots[f.seat]
                    name = names.get(bot) or names.setdefault(bot, store.bot_version(bot).name)
                    on_event(FaultRecorded(tid, r.match_id, name, f.kind, f.message))

        report(0)
        if executor is None:
            executor = runner.make_executor(workers, the_plan.limits, unsafe, stop)
        try:
            completed = drive(
                executor,
                work,
                in_flight=2 * workers,
                on_results=store_batch,
                should_stop=interrupted.is_set,
                on_stop=stop.set,
                judge=judge,
                referee=lambda: _referee(the_plan.limits, unsafe, stop),
            )
            # Its last check came after the last result.
            report(0)
        except ArenaError:
            store.set_status(tid, "interrupted")
            raise
        except Exception as e:
            store.set_status(tid, "interrupted")
            # Not a bot's fault (those are recorded): the arena itself failed.
            raise ArenaError(
                f"the run stopped ({type(e).__name__}: {e}); finished matches are "
                "stored, run the same command again to resume"
            ) from None
        except BaseException:  # a second Ctrl-C: workers drop their batches at once
            stop.set()
            store.set_status(tid, "interrupted")
            raise
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
    return played, completed


def _referee(limits: Limits, unsafe: bool, stop: Any) -> cf.Executor:
    """The arena machine's own worker process, made when a worker's record is disputed."""
    try:
        choose_isolation(unsafe)
    except ArenaError as e:
        raise ArenaError(
            f"a worker's record is disputed and the arena machine must play the match itself, "
            f"but it cannot sandbox bots: {e}"
        ) from None
    return runner.make_executor(1, limits, unsafe, stop)


@_under_run_lock
def run(
    store: Store,
    the_plan: Plan,
    *,
    workers: int,
    unsafe: bool = False,
    on_event: OnEvent = ignore,
    log_path: Path | None = None,
    executor: cf.Executor | None = None,
) -> RunResult:
    """Play ``the_plan.schedule`` as it unfolds in ``workers`` processes, storing each batch;
    then, for a tournament with standings (not a comparison), compute and store them.

    Holds the tournament's run lock throughout (a second run of it is refused).
    ``executor`` replaces the local process pool (a cluster's executor whose workers run
    :func:`arena.tournaments.runner.init_worker`); it is shut down at the end like the local one.
    Ctrl-C stops cleanly: nothing new starts, running batches finish their current match,
    every finished match is stored and the tournament is marked ``interrupted``.
    """
    check_worker_count(workers)
    tid, unfolds = the_plan.tid, the_plan.schedule
    ranked = unfolds.ranked  # a comparison has no standings; a ladder its own
    started = time.perf_counter()
    already = store.match_count(tid)
    played, completed = 0, True
    placed = None if executor is None else placing(executor)
    judge = None if placed is None else Judge(placed.cross_check, the_plan.check_key)
    if unfolds.start(store):
        if executor is None:
            # Fail here, in one line, rather than in every worker's initializer (which would
            # only surface as a broken process pool).
            choose_isolation(unsafe)
        sources = Sources(store, the_plan.versions)
        make = functools.partial(
            runner.batches,
            workers=workers,
            rules=the_plan.rules,
            limits=the_plan.limits,
            unsafe_no_sandbox=unsafe,
            sources=sources,
        )
        with runner.run_log(log_path):
            log.info("tournament %s: %s, %d workers", tid, unfolds.describe(), workers)
            played, completed = _play_todo(
                store,
                the_plan,
                unfold(unfolds, make),
                workers=workers,
                unsafe=unsafe,
                on_event=on_event,
                executor=executor,
                judge=judge,
            )
            log.info("tournament %s: %d matches stored in this run", tid, played)
    # An exact schedule plays exactly its own ``total`` (a caller's ``on_plan`` may narrow it).
    expected = unfolds.total
    if expected is None:
        expected = store.tournament(tid).total_matches
    if completed and unfolds.exact and store.match_count(tid) < expected:
        # Never finished (its secret revealed) with a hole, whatever the executor said.
        log.error("tournament %s: the run ended with matches missing", tid)
        completed = False
    if judge is not None:  # what the cluster's workers were held to, for the pages
        dropped = {clean_line(w, 200): clean_line(why, 300) for w, why in judge.dropped.items()}
        store.record_worker_check(tid, judge.replayed, judge.refereed, judge.cross_check, dropped)
    store.set_status(tid, "finished" if completed and unfolds.ends else "interrupted")
    unfolds.finish(store, completed)
    total = store.tournament(tid).total_matches  # a schedule that stopped early stored its size
    result = RunResult(tid, total, played, already, completed, time.perf_counter() - started)
    result.stopped = unfolds.why()
    result.judge = judge
    if ranked:
        result.standings = current_standings(store, tid, refit=True)
        rated = {s.bot: s.rating for s in result.standings if s.rating is not None}
        save_collusion(store, tid, rated)
    result.faults = store.faults_by_bot(tid)
    on_event(Stopped(tid, completed, played, result.stopped))
    return result
