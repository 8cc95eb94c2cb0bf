"""The standings of a stored tournament: fitted, stored and read back, with the clone and
kingmaking reports beside them (:func:`current_standings`, :func:`standings_report`)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena import stats
from arena.engine import Rules
from arena.errors import ArenaError
from arena.stats import collusion
from arena.store import BotFault, BotVersion, Store, StoredTournament, now

if TYPE_CHECKING:
    from arena.tournaments.tournament import Plan, RunResult

log = logging.getLogger(__name__)

__all__ = [
    "StandingsReport",
    "clone_report",
    "current_standings",
    "fit_standings",
    "kingmaking_report",
    "refresh_standings",
    "save_collusion",
    "standings_report",
]

# --- standings ------------------------------------------------------------------------------


def fit_standings(store: Store, tid: str) -> list[stats.BotStanding]:
    """The standings of tournament ``tid``, computed from its stored matches."""
    names = {v.id: v.name for v in store.tournament_entrants(tid)}
    out = stats.Outcomes.build(names, store.match_outcomes(tid), store.fault_counts(tid))
    return stats.compute(out, names)


def clone_report(store: Store, tid: str) -> list[collusion.ClonePair]:
    """The clone report of tournament ``tid`` (:mod:`arena.stats.collusion`): every pair of
    its bots with its share of identical decisions."""
    t = store.tournament(tid)
    rules = Rules.from_dict(json.loads(t.rules))
    bots = [v.id for v in store.tournament_entrants(t.id)]
    hands, faults = store.duplicate_hands(t.id), store.fault_decisions(t.id)
    return collusion.clone_pairs(collusion.duplicate_groups(hands, faults), rules, bots)


def kingmaking_report(
    store: Store, tid: str, ratings: dict[int, float]
) -> list[collusion.KingmakingRow]:
    """The kingmaking table of tournament ``tid`` given each bot's rating."""
    return collusion.kingmaking_rows(store.seat_results(tid), ratings)


def save_collusion(store: Store, tid: str, ratings: dict[int, float]) -> None:
    """Compute both collusion reports and store them in ``clone_pairs`` and ``kingmaking``."""
    clones = clone_report(store, tid)
    king = kingmaking_report(store, tid, ratings)
    store.replace_tournament_rows(
        tid,
        {
            "clone_pairs": [{"tournament_id": tid, **p.as_dict()} for p in clones],
            "kingmaking": [{"tournament_id": tid, **r.as_dict()} for r in king],
        },
    )


@dataclass(frozen=True)
class Standing:
    """A bot's row in the standings, one type for a round robin, a ladder and a comparison's
    field: what :meth:`arena.Arena.standings` returns and ``arena standings --json`` prints.

    ``rating`` is None without an estimate (no finished match, or a one-sided result:
    ``bound`` ``"upper"`` or ``"lower"``); ``low``/``high`` its 95 % interval (None below two
    duplicate units); ``units`` the duplicate units (a set of six seatings of one deal) the
    bot played; ``rank`` None before its first finished match."""

    name: str
    rank: int | None
    rating: float | None
    low: float | None
    high: float | None
    units: int
    matches: int
    wins: int
    mean_place: float | None
    faults: int
    """Matches it forfeited by a fault."""
    bound: str | None
    bot_version_id: int
    version: int | None
    sha256: str | None

    @classmethod
    def of(cls, s: stats.BotStanding, versions: dict[int, BotVersion]) -> Standing:
        """The row of ``s``, with its version from ``versions`` (by id)."""
        v = versions.get(s.bot)
        return cls(
            s.name, s.rank, s.rating, s.rating_low, s.rating_high, s.units, s.matches, s.wins,
            s.mean_place, s.faults, s.bound, s.bot, v.version if v else None,
            v.sha256 if v else None,
        )  # fmt: skip

    @classmethod
    def from_row(cls, row: stats.RatingRow, versions: dict[int, BotVersion]) -> Standing:
        """The row of a stored ``ratings`` row (docs/schema.md), with its version."""
        v = versions.get(row["bot_version_id"])
        return cls(
            row["name"], row["rank"], row["rating"], row["rating_low"], row["rating_high"],
            row["units"], row["matches"], row["wins"], row["mean_place"], row["faults"],
            row["rating_bound"], row["bot_version_id"], v.version if v else None,
            v.sha256 if v else None,
        )  # fmt: skip


@dataclass
class StandingsReport:
    """What ``arena standings`` shows of one tournament, read and computed once
    (:mod:`arena.views.terminal` formats it)."""

    tournament: StoredTournament
    """The tournament, with its live status."""
    table: list[stats.BotStanding]
    entrants: list[BotVersion]
    played: int
    """Matches stored so far."""
    commitment: str
    """SHA-256 of the deal secret."""
    clones: list[collusion.ClonePair]
    kingmaking: list[collusion.KingmakingRow]
    faults: list[BotFault]
    """Every fault, by bot (:meth:`arena.store.Store.faults_by_bot`)."""

    @property
    def names(self) -> dict[int, str]:
        """Each entrant's name by version id."""
        return {s.bot: s.name for s in self.table}

    @property
    def rows(self) -> list[Standing]:
        """The standings, best first, one :class:`Standing` per bot."""
        versions = {v.id: v for v in self.entrants}
        return [Standing.of(s, versions) for s in self.table]


def standings_report(
    store: Store,
    tid: str | None = None,
    *,
    refit: bool = False,
    save: bool = True,
    collusion_reports: Callable[
        [list[stats.BotStanding]],
        tuple[list[collusion.ClonePair], list[collusion.KingmakingRow]],
    ]
    | None = None,
) -> StandingsReport:
    """The standings of tournament ``tid`` (default: the latest round robin), up to date (see
    :func:`current_standings`), with the clone and kingmaking reports and its faults.

    ``collusion_reports`` gives the two reports for the standings (stored ones:
    :func:`arena.views.reports.standings_with_reports`); without it they are computed here."""
    t = store.tournament(tid)
    tid = t.id
    table = current_standings(store, tid, refit=refit, save=save)
    if collusion_reports is not None:
        clones, king = collusion_reports(table)
    else:
        rated = {s.bot: s.rating for s in table if s.rating is not None}
        clones = clone_report(store, tid)
        king = kingmaking_report(store, tid, rated)
    secret = store.tournament_secret(tid)
    assert secret is not None  # the tournament exists
    return StandingsReport(
        tournament=t,
        table=table,
        entrants=store.tournament_entrants(tid),
        played=store.match_count(tid),
        commitment=secret.commitment,
        clones=clones,
        kingmaking=king,
        faults=store.faults_by_bot(tid),
    )


def current_standings(
    store: Store, tid: str, *, refit: bool = False, save: bool = True
) -> list[stats.BotStanding]:
    """The stored standings of ``tid`` when they are up to date, else (or with ``refit``)
    freshly computed ones, which are then stored too (``save=False``: a read, only shown).

    Up to date: computed with this version's statistics (:data:`arena.stats.METHOD`) from
    every match stored so far, for every entrant. Storing is a cache write: when another
    process holds the write lock (a run in progress), the fresh standings are still shown.
    """
    if not refit:
        rows, pairs = store.read_standings(tid)
        entrants = {v.id for v in store.tournament_entrants(tid)}
        if (
            rows
            and all(r["method"] == stats.METHOD for r in rows)
            and {r["bot_version_id"] for r in rows} == entrants
            and sum(r["matches"] for r in rows) == 3 * store.match_count(tid)
        ):
            return stats.from_rows(rows, pairs)
    table = fit_standings(store, tid)
    if not save:
        return table
    try:
        store.write_standings(tid, *stats.to_rows(tid, table, now()))
    except ArenaError:
        log.info("standings of %s not stored: the database is busy", tid)
    return table


def refresh_standings(store: Store) -> None:
    """Bring the stored standings of every tournament up to date (see
    :func:`current_standings`)."""
    for listed in store.tournaments():
        if listed.tournament.ranked:  # a comparison has no standings; a ladder its own
            current_standings(store, listed.tournament.id)


@dataclass
class TournamentRun:
    """What one :meth:`arena.api.Arena.run` did."""

    plan: Plan
    """The tournament: its id, configuration, bots and matches."""
    result: RunResult
    """What was played in this call."""
    standings: list[Standing]
    """The standings after the run, best first."""
    workers: int
    """Worker processes (or the executor's workers) that played."""
    log_path: Path | None
    """The run's log file (None: an in-memory database and no ``log_path`` given)."""
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
