"""Running a tournament from Python: what ``arena run`` does, as one call.

:func:`run_tournament` resolves the bots (files registered, names looked up), plans the
duplicate round robin, plays it on local worker processes or a given executor, stores every
match and its standings in the SQLite database, and renders the standings site when asked.
It returns a :class:`TournamentRun`: what was played, the standings, and whether the run
finished. ``arena run`` only parses its options, calls it and prints the result; ``arena
compare`` is :func:`arena.compare.run_comparison` and ``arena render`` is
:func:`arena.site.publish_site` the same way.

Errors are :class:`~arena.errors.ArenaError`; a setting out of range is an
:class:`~arena.errors.InvalidSetting` naming the parameter (``rounds must be at least 1, not
0``).
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from arena import stats, tournament
from arena.site import publish_site
from arena.store import Store
from arena.tournament import Plan, RunResult

__all__ = ["TournamentRun", "run_tournament"]


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
    cluster's, :func:`arena.cluster.open_executor`) plays instead and is shut down at the
    end. ``decision_seconds`` and ``match_cpu_seconds`` override the sandbox's limits;
    ``secret_file`` deals from an exported deal secret; ``unsafe`` runs trusted bots without
    the sandbox. ``log_path`` defaults to the database's name with ``.log``.

    ``site``: render the standings site when the run finishes (True: into the database's
    name with ``-site``; a path: into that folder). ``console`` shows the progress (default:
    stdout); ``on_plan(plan, workers)`` is called once the tournament is planned, before
    any match is played. The same call again after an interruption plays only the missing
    matches. Raises :class:`~arena.errors.ArenaError` (one line) on any refusal.
    """
    try:
        workers = tournament.worker_count(workers, executor)
        log_file = Path(log_path) if log_path else Path(db).with_suffix(".log")
        limits = tournament.run_limits(
            decision_seconds=decision_seconds, match_cpu_seconds=match_cpu_seconds
        )
        with Store(db) as store:
            the_plan = tournament.prepare(
                store, [str(b) for b in bots], rounds=rounds, seed=seed, limits=limits,
                secret_file=secret_file, max_source_bytes=max_source_bytes,
                until_separated=until_separated,
            )  # fmt: skip
            if on_plan is not None:
                on_plan(the_plan, workers)
            result = tournament.run(
                store, the_plan, workers=workers, unsafe=unsafe, console=console,
                log_path=log_file, executor=executor,
            )  # fmt: skip
    finally:
        if executor is not None:  # already shut down when matches ran; idempotent
            executor.shutdown(wait=False, cancel_futures=True)
    done = TournamentRun(the_plan, result, workers, log_file)
    if site is not False and done.completed:
        done.site = publish_site(db, None if site is True else site)
    return done
