"""Running a tournament from Python: what ``arena run`` does, as one call.

:func:`run_tournament` resolves the bots (files registered, names looked up), plans the
duplicate round robin, plays it on local worker processes or a given executor, stores every
match and its standings in the SQLite database, and renders the standings site when asked.
It returns a :class:`TournamentRun`: what was played, the standings, and whether the run
finished. ``arena run`` only parses its options, calls it and prints the result; ``arena
compare`` is :func:`arena.tournaments.compare.run_comparison` and ``arena render`` is
:func:`arena.site.publish_site` the same way. ``arena ladder`` is :func:`run_ladder` (a
ladder that runs until stopped), ``arena ladder --status`` :func:`ladder_status` and ``arena
retire`` :func:`retire`.

Errors are :class:`~arena.errors.ArenaError`; a setting out of range is an
:class:`~arena.errors.InvalidSetting` naming the parameter (``rounds must be at least 1, not
0``).
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from rich.console import Console

from arena import stats
from arena.engine import Rules
from arena.errors import ArenaError
from arena.ladder import field as ladder_field
from arena.ladder.epochs import verify_epoch
from arena.ladder.field import FieldChanged
from arena.ladder.run import LadderSettings, SetsStored, ladder_config, plan_ladder
from arena.matches.scheduler import tournament_id
from arena.matches.secrecy import Verification
from arena.matches.secrecy import verify as verify_tournament
from arena.sandbox import Limits
from arena.sandbox.artifacts import load_artifact
from arena.sandbox.check import check_bot as _check_artifact
from arena.site import publish_site, site_folder
from arena.site import update as site_update
from arena.store import (
    LADDER,
    BotVersion,
    LadderEpoch,
    LadderMember,
    LadderSet,
    Store,
    StoredTournament,
)
from arena.store.runlock import RunLock
from arena.tournaments import tournament
from arena.tournaments.owners import current_owner
from arena.tournaments.tournament import Plan, RunResult

__all__ = [
    "LadderRun",
    "LadderStatus",
    "TournamentRun",
    "check_bot",
    "ladder_status",
    "retire",
    "run_ladder",
    "run_tournament",
    "verify_deals",
]


class _Played(NamedTuple):
    plan: Plan
    result: RunResult
    workers: int
    log_path: Path


def _play(
    db: str | Path,
    plan: Callable[[Store], Plan],
    workers: int | None,
    executor: cf.Executor | None,
    unsafe: bool,
    log_path: str | Path | None,
    console: Console | None,
    on_plan: Callable[[Plan, int], object] | None,
    one_at_a_time: Callable[[Path], AbstractContextManager[object]] | None = None,
) -> _Played:
    """What :func:`run_tournament` and :func:`run_ladder` share: ``plan`` in the database
    (under ``one_at_a_time(path)`` when given), tell ``on_plan``, play the plan, and shut the
    executor down whatever happened (``log_path`` defaults to the database's name with
    ``.log``)."""
    try:
        workers = tournament.worker_count(workers, executor)
        log_file = Path(log_path) if log_path else Path(db).with_suffix(".log")
        with Store(db) as store:
            with one_at_a_time(store.path) if one_at_a_time else nullcontext():
                the_plan = plan(store)
                if on_plan is not None:
                    on_plan(the_plan, workers)
                result = tournament.run(
                    store, the_plan, workers=workers, unsafe=unsafe, console=console,
                    log_path=log_file, executor=executor,
                )  # fmt: skip
    finally:
        if executor is not None:  # already shut down when matches ran; idempotent
            executor.shutdown(wait=False, cancel_futures=True)
    return _Played(the_plan, result, workers, log_file)


@dataclass
class TournamentRun:
    """What one :func:`run_tournament` did."""

    plan: Plan
    """The tournament: its id, configuration, bots and matches."""
    result: RunResult
    """What was played in this call, and the standings."""
    workers: int
    """Worker processes (or the executor's workers) that played."""
    log_path: Path
    """The run's log file."""
    site: Path | None = None
    """``index.html`` of the rendered site; None when not asked for or not finished."""

    @property
    def tid(self) -> str:
        """The tournament's id."""
        return self.plan.tid

    @property
    def completed(self) -> bool:
        """Every match was played (False: interrupted; the same call again resumes)."""
        return self.result.completed

    @property
    def status(self) -> str:
        """``finished`` or ``interrupted``, as the tournament is stored."""
        return "finished" if self.completed else "interrupted"

    @property
    def reason(self) -> str | None:
        """Why a tournament that stops by its own rule (``until_separated``) stopped; None for
        a fixed schedule."""
        return self.result.stopped

    @property
    def standings(self) -> list[stats.BotStanding]:
        """The standings after the run, best first."""
        return self.result.standings


def run_tournament(
    db: str | Path,
    bots: Sequence[str | Path] = (),
    *,
    rounds: int | None = None,
    seed: int = 1,
    workers: int | None = None,
    until_separated: bool = False,
    decision_seconds: float | None = None,
    match_cpu_seconds: float | None = None,
    clock_bank_seconds: float | None = None,
    clock_increment_seconds: float | None = None,
    secret_file: str | Path | None = None,
    max_source_bytes: int | None = None,
    unsafe: bool = False,
    executor: cf.Executor | None = None,
    log_path: str | Path | None = None,
    site: bool | str | Path = False,
    console: Console | None = None,
    on_plan: Callable[[Plan, int], object] | None = None,
) -> TournamentRun:
    """Run the duplicate round robin of ``bots`` in the database ``db`` (``arena run``).

    ``bots``: bot files (registered under their ``Bot.name``, else their stem), bundled bots'
    names (``random``, ``heuristic``, ``montecarlo``) or submitted bots' names; none: every
    submitted bot. ``rounds`` deal seeds per set of three bots (default 20; with
    ``until_separated``, the most: 200), each in all 6 seatings; ``seed`` the tournament seed.
    ``workers`` local worker processes (default: the usable cores), or ``executor`` (a
    cluster's, :func:`arena.cluster.client.open_executor`) plays instead and is shut down at the
    end. ``decision_seconds``, ``match_cpu_seconds``, ``clock_bank_seconds`` and
    ``clock_increment_seconds`` (each bot's match clock: docs/sandbox.md) override the
    sandbox's limits;
    ``secret_file`` deals from an exported deal secret; ``unsafe`` runs trusted bots without
    the sandbox. ``log_path`` defaults to the database's name with ``.log``.

    ``site``: render the standings site when the run finishes (True: into the database's
    name with ``-site``; a path: into that folder). ``console`` shows the progress (default:
    stdout); ``on_plan(plan, workers)`` is called once the tournament is planned, before
    any match is played. The same call again after an interruption plays only the missing
    matches. Raises :class:`~arena.errors.ArenaError` (one line) on any refusal.
    """

    def plan(store: Store) -> Plan:
        limits = tournament.run_limits(
            decision_seconds=decision_seconds, match_cpu_seconds=match_cpu_seconds,
            clock_bank_seconds=clock_bank_seconds, clock_increment_seconds=clock_increment_seconds,
        )  # fmt: skip
        return tournament.prepare(
            store, [str(b) for b in bots], rounds=rounds, seed=seed, limits=limits,
            secret_file=secret_file, max_source_bytes=max_source_bytes,
            until_separated=until_separated,
        )  # fmt: skip

    played = _play(db, plan, workers, executor, unsafe, log_path, console, on_plan)
    done = TournamentRun(played.plan, played.result, played.workers, played.log_path)
    if site is not False and done.completed:
        done.site = publish_site(db, None if site is True else site, feature=done.tid)
    return done


def check_bot(path: str | Path, limits: Limits | None = None) -> list[str]:
    """``arena check``: every protocol-v1 problem of the bot at ``path`` (a source file of
    any supported language, or a directory with a manifest), one line each; empty when it
    conforms. Runs it in the real sandbox (:mod:`arena.sandbox.check`). Raises
    :class:`ArenaError` for a file that is no bot (unknown extension, missing toolchain)."""
    limits = limits or Limits()
    return _check_artifact(load_artifact(path, limits.source_bytes), limits)


def verify_deals(db: str | Path, tid: str | None = None, epoch: int | None = None) -> Verification:
    """Recompute the stored deals of a finished tournament (``tid``: an id or prefix; default
    the latest round robin), or with ``epoch`` of one closed epoch of a ladder, from the
    revealed secret (``arena verify``). A ladder is verified an epoch at a time: its secrets
    are revealed epoch by epoch. Raises :class:`~arena.errors.ArenaError` when nothing can be
    verified yet; a deal that differs is in the returned report."""
    with Store(db, create=False) as store:
        if epoch is not None:
            return verify_epoch(store, tid, epoch)
        t = store.tournament(tid)
        if t.kind == LADDER:
            raise ArenaError(
                f"{t.id} is a ladder: it is verified an epoch at a time (`epoch`), once the "
                "epoch is closed (`arena ladder --status` lists them)"
            ).naming("epoch")
        return verify_tournament(store, t.id)


# --- ladders ---------------------------------------------------------------------------------


@dataclass
class LadderRun:
    """What one :func:`run_ladder` did."""

    plan: Plan
    """The ladder: its id, configuration and the field it started with."""
    result: RunResult
    """What was played in this call (``completed`` False: Ctrl-C or SIGTERM; ``stopped``
    says why it stopped)."""
    workers: int
    log_path: Path
    status: LadderStatus
    """The ladder after the run."""
    site: Path | None = None
    """``index.html`` of the site, when rendered."""

    @property
    def tid(self) -> str:
        """The ladder's id."""
        return self.plan.tid


def run_ladder(
    db: str | Path,
    bundled: Sequence[str] = (),
    *,
    settings: LadderSettings | None = None,
    workers: int | None = None,
    unsafe: bool = False,
    executor: cf.Executor | None = None,
    log_path: str | Path | None = None,
    site: bool | str | Path = False,
    site_every: int = 5,
    on_sets_stored: SetsStored | None = None,
    console: Console | None = None,
    on_plan: Callable[[Plan, int], object] | None = None,
    on_field_change: FieldChanged | None = None,
) -> LadderRun:
    """Run the ladder of the database ``db`` until stopped (``arena ladder``).

    The field is every submitted bot not retired, plus the ``bundled`` bots named
    (``random``, ``heuristic``, ``montecarlo``); a bot submitted while it runs joins at the
    next step, a new version replaces the old. ``settings`` (:class:`LadderSettings`): the
    seed and the sets per deal-secret epoch (with ``bundled``, the ladder's identity: the
    same call finds it again and resumes it), the lookahead, and this run's bounds
    (``max_sets``, ``seconds``; None: until Ctrl-C or SIGTERM, which end it cleanly).
    ``workers``, ``executor``, ``unsafe``, ``log_path`` and ``console`` are
    :func:`run_tournament`'s. ``site``: render the standings site every ``site_every`` sets
    stored and at the end (True: into the database's name with ``-site``; a path: there);
    ``on_sets_stored(store, steps)`` is called after each stored set (the live pages' hook);
    ``on_field_change(change)`` when a bot joins or leaves the field
    (:class:`arena.ladder.field.FieldChange`; the run's log records each too). One ladder
    runs on a database at a time. Raises :class:`~arena.errors.ArenaError`.
    """
    out = None if site is False else (None if site is True else Path(site))
    lid: list[str] = []  # the ladder's id, once planned: its site features it
    hook = on_sets_stored
    if site is not False:
        hook = _site_hook(db, out, site_every, on_sets_stored, lid)

    def plan(store: Store) -> Plan:
        found = plan_ladder(
            store, bundled, settings, on_sets_stored=hook, on_field_change=on_field_change
        )
        lid.append(found.tid)
        return found

    played = _play(
        db, plan, workers, executor, unsafe, log_path, console, on_plan,
        one_at_a_time=_one_ladder,
    )  # fmt: skip
    with Store(db, create=False) as store:
        status = _status(store, played.plan.tid)
    done = LadderRun(played.plan, played.result, played.workers, played.log_path, status)
    if site is not False:
        done.site = publish_site(db, out, feature=played.plan.tid)
    return done


def _site_hook(
    db: str | Path, out: Path | None, every: int, then: SetsStored | None, lid: list[str]
) -> SetsStored:
    """Bring the site up to date every ``every`` sets stored (:func:`arena.site.update`:
    incremental, atomic page by page, so ``arena serve`` shows it while the ladder runs), its
    front page featuring the ladder (``lid``: its id), then call ``then``."""
    count = 0

    def hook(store: Store, steps: Sequence[int]) -> None:
        nonlocal count
        before, count = count, count + len(steps)
        if count // every > before // every:  # only the pages the new sets change
            site_update(store, out or site_folder(db), feature=lid[-1] if lid else None)
        if then is not None:
            then(store, steps)

    return hook


class _one_ladder:
    """One ladder at a time on a database: a run lock of its own beside the ladder's."""

    def __init__(self, path: Path) -> None:
        self.lock = RunLock(path, "ladder")

    def __enter__(self) -> None:
        try:
            self.lock.__enter__()
        except ArenaError as e:
            raise ArenaError(f"a ladder is already running on this database: {e}") from None

    def __exit__(self, *exc: object) -> None:
        self.lock.__exit__(*exc)


@dataclass
class LadderStatus:
    """A ladder as stored (``arena ladder --status``)."""

    tournament: StoredTournament
    """Its ``tournaments`` row, with the live status."""
    epochs: list[LadderEpoch]
    """Each with its commitment, and its secret once closed."""
    members: list[LadderMember]
    sets: int
    """Sets stored."""
    in_flight: list[LadderSet]
    """Sets scheduled and not stored (being played, or lost to a kill: played again first)."""
    standings: list[dict[str, object]]
    """Its latest ``ratings`` rows, best first."""

    @property
    def tid(self) -> str:
        """The ladder's id."""
        return self.tournament.id

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (names are checked bot names)."""
        return {
            "id": self.tid,
            "status": self.tournament.status,
            "sets": self.sets,
            "matches": self.tournament.total_matches,
            "epochs": [e.to_dict() for e in self.epochs],
            "field": [m.name for m in self.members if m.left_reason is None],
            "left": [
                {"name": m.name, "version_id": m.version_id, "reason": m.left_reason}
                for m in self.members
                if m.left_reason is not None
            ],
            "in_flight": [{"step": s.step, "bots": list(s.bots)} for s in self.in_flight],
            "standings": self.standings,
        }


def _status(store: Store, lid: str) -> LadderStatus:
    rows, _ = store.read_standings(lid)
    keep = ("bot_version_id", "name", "rank", "rating", "rating_low", "rating_high", "units")
    return LadderStatus(
        store.tournament(lid),
        store.ladder_epochs(lid),
        store.ladder_members(lid),
        store.finished_set_count(lid),
        store.ladder_sets(lid, unfinished=True),
        [{k: r[k] for k in keep} for r in sorted(rows, key=lambda r: r["rank"] or 0)],
    )


def ladder_status(
    db: str | Path, bundled: Sequence[str] = (), settings: LadderSettings | None = None
) -> LadderStatus:
    """The ladder that :func:`run_ladder` with these ``bundled`` bots and ``settings`` runs,
    or else the latest ladder of the database, as stored (ArenaError: none)."""
    config = ladder_config(bundled, settings or LadderSettings(), Rules(), Limits())
    with Store(db, create=False) as store:
        lid = tournament_id(config)
        try:
            t = store.tournament(lid)
        except ArenaError:
            ladders = [r.tournament for r in store.tournaments() if r.tournament.kind == LADDER]
            if not ladders:
                raise ArenaError(f"no ladder in {db} yet (arena ladder starts one)") from None
            t = ladders[0]
        return _status(store, t.id)


def retire(db: str | Path, name: str, *, force: bool = False) -> tuple[BotVersion, bool]:
    """Retire bot ``name`` from the ladder's field (``arena retire``), checked against this
    user's owner key (:func:`arena.ladder.field.retire_bot`): its results stay, it plays no
    new set. Returns its latest version and whether it changed (False: already retired).
    Submitting it again (``arena submit``) brings it back."""
    with Store(db) as store:
        return ladder_field.retire_bot(store, name, owner=current_owner(), force=force)
