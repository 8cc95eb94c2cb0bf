"""Typed rows the store returns: a stored tournament, match, seat and fault (a row of their
table each: :class:`StoredTournament`, :class:`StoredMatch`, :class:`StoredSeat`,
:class:`StoredFault`) and the rows of the listings that join them with their bots
(:class:`ListedTournament`, :class:`ListedMatch`, :class:`ListedFault`, :class:`BotFault`,
:class:`VersionSummary`). Built from a row by its column names: a missing column is an
error, not a silent ``None``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from arena.stats.outcomes import DuplicateSeat, SeatPlace
from arena.store.kinds import KINDS


def _three(row: Mapping[str, Any], prefix: str) -> tuple[Any, Any, Any]:
    return (row[f"{prefix}0"], row[f"{prefix}1"], row[f"{prefix}2"])


@dataclass(frozen=True)
class StoredMatch:
    """One row of ``matches`` (docs/schema.md), the seats' columns as triples by seat."""

    id: str
    tournament_id: str
    set_key: str
    round: int
    seating: int
    seed: int
    bots: tuple[int, int, int]
    scores: tuple[int, int, int]
    places: tuple[int, int, int]
    hands_played: int
    truncated: bool
    faults: int
    duration_seconds: float
    status: str
    finished_at: str

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StoredMatch:
        """The match of a ``SELECT * FROM matches`` row."""
        return cls(
            id=row["id"],
            tournament_id=row["tournament_id"],
            set_key=row["set_key"],
            round=row["round"],
            seating=row["seating"],
            seed=row["seed"],
            bots=_three(row, "bot"),
            scores=_three(row, "score"),
            places=_three(row, "place"),
            hands_played=row["hands_played"],
            truncated=bool(row["truncated"]),
            faults=row["faults"] or 0,
            duration_seconds=row["duration_seconds"],
            status=row["status"],
            finished_at=row["finished_at"],
        )


@dataclass(frozen=True)
class ListedMatch:
    """A stored match of :meth:`arena.store.Store.match_listing`: its row, each seat's bot
    name and version number, and the seats that faulted."""

    match: StoredMatch
    names: tuple[str, str, str]
    versions: tuple[int, int, int]
    faulted: frozenset[int]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ListedMatch:
        """The listing's row: the match's columns, ``name0``.., ``ver0``.. and ``faulted``
        (the faulty seats, ``"0,2"``, or NULL)."""
        seats = frozenset(int(s) for s in (row["faulted"] or "").split(",") if s)
        return cls(StoredMatch.from_row(row), _three(row, "name"), _three(row, "ver"), seats)


@dataclass(frozen=True)
class StoredTournament:
    """One row of ``tournaments`` (docs/schema.md). ``config``, ``rules`` and ``limits`` are
    the JSON documents as stored; ``status`` is the live one (``running`` only while a run
    holds the tournament's lock)."""

    id: str
    kind: str
    config: str
    seed: int
    rounds: int
    rules: str
    limits: str
    status: str
    total_matches: int
    created_at: str
    updated_at: str
    finished_at: str | None
    secret_id: int

    @property
    def ranked(self) -> bool:
        """Its standings are a Plackett-Luce fit stored by its run (a round robin)."""
        return KINDS[self.kind].ranked

    @property
    def is_ladder(self) -> bool:
        """A ladder: its field changes while it runs, its deals verified an epoch at a time."""
        return KINDS[self.kind].ladder

    @property
    def is_comparison(self) -> bool:
        """A comparison of two bots: a test and a verdict, no standings."""
        return KINDS[self.kind].comparison

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StoredTournament:
        """The tournament of a ``SELECT * FROM tournaments`` row."""
        return cls(
            id=row["id"],
            kind=row["kind"],
            config=row["config"],
            seed=row["seed"],
            rounds=row["rounds"],
            rules=row["rules"],
            limits=row["limits"],
            status=row["status"],
            total_matches=row["total_matches"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            finished_at=row["finished_at"],
            secret_id=row["secret_id"],
        )


@dataclass(frozen=True)
class ListedTournament:
    """A tournament of :meth:`arena.store.Store.tournaments`: its row, its stored matches
    (``done``) and their faults, its deal ``commitment`` and, only once it has finished, its
    ``secret`` (hex; None before)."""

    tournament: StoredTournament
    done: int
    faults: int
    commitment: str
    secret: str | None


@dataclass(frozen=True)
class StoredSeat:
    """One row of ``match_seats``: a seat of a stored match, its bot version, result and
    timing."""

    match_id: str
    seat: int
    tournament_id: str
    bot_version_id: int
    score: int
    place: int
    faulted: bool
    decisions: int
    asked: int
    think_seconds: float
    max_think_seconds: float
    cpu_seconds: float
    max_cpu_seconds: float
    clock_seconds: float

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StoredSeat:
        """The seat of a ``SELECT * FROM match_seats`` row."""
        return cls(
            match_id=row["match_id"],
            seat=row["seat"],
            tournament_id=row["tournament_id"],
            bot_version_id=row["bot_version_id"],
            score=row["score"],
            place=row["place"],
            faulted=bool(row["faulted"]),
            decisions=row["decisions"],
            asked=row["asked"],
            think_seconds=row["think_seconds"],
            max_think_seconds=row["max_think_seconds"],
            cpu_seconds=row["cpu_seconds"],
            max_cpu_seconds=row["max_cpu_seconds"],
            clock_seconds=row["clock_seconds"],
        )


@dataclass(frozen=True)
class StoredFault:
    """One row of ``faults``: the first fault of one seat of a stored match. ``decision``
    counts from 0 (None: while loading); ``message`` is the bot's text as stored (capped,
    controls stripped at the boundary)."""

    match_id: str
    seat: int
    tournament_id: str
    bot_version_id: int
    kind: str
    message: str
    decision: int | None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StoredFault:
        """The fault of a row with the ``faults`` columns."""
        return cls(
            match_id=row["match_id"],
            seat=row["seat"],
            tournament_id=row["tournament_id"],
            bot_version_id=row["bot_version_id"],
            kind=row["kind"],
            message=row["message"],
            decision=row["decision"],
        )


@dataclass(frozen=True)
class BotFault:
    """A fault of :meth:`arena.store.Store.faults_by_bot`: where, what, and its bot's
    ``name`` and ``filename``."""

    match_id: str
    kind: str
    message: str
    decision: int | None
    name: str
    filename: str


@dataclass(frozen=True)
class ListedFault:
    """A fault of :meth:`arena.store.Store.fault_listing`: its row, its bot's ``name``,
    ``version`` and ``filename``, its match's ``round`` and ``seating``, and the seat's think
    time in that match: the wall time on its match clock and its process's CPU (seconds)."""

    fault: StoredFault
    name: str
    version: int
    filename: str
    round: int
    seating: int
    clock_seconds: float = 0.0
    cpu_seconds: float = 0.0


@dataclass(frozen=True)
class VersionSummary:
    """A version of a bot's page (:meth:`arena.store.Store.version_rows`): its file, who
    submitted it when, the seats it played in round robins and its mean place there (None:
    none played)."""

    version: int
    sha256: str
    filename: str
    author: str | None
    submitted_at: str
    seats: int
    mean_place: float | None


@dataclass(frozen=True)
class StoredBot:
    """One row of ``bots`` without its owner: a bot by ``name`` (its versions share it)."""

    id: int
    name: str
    created_at: str


@dataclass(frozen=True)
class ListedVersion:
    """A bot version of :meth:`arena.store.Store.bot_listing` (no source): its file's
    ``size`` in characters and its bot's ``owner`` id (None: stored by a library call)."""

    id: int
    name: str
    version: int
    sha256: str
    author: str | None
    filename: str
    submitted_at: str
    size: int
    owner: str | None


@dataclass(frozen=True)
class VersionRef:
    """A bot version without its source (:meth:`arena.store.Store.version_refs`): its bot,
    name, number, author, and the number of its bot's ``latest`` version."""

    id: int
    bot_id: int
    name: str
    version: int
    author: str | None
    latest: int
    retired: bool = False
    """Its bot is retired from the ladder (``arena retire``)."""


@dataclass(frozen=True)
class PlaceCount:
    """How often one bot version finished in one ``place`` of a tournament (``matches``)
    and how many of those matches it forfeited by a fault (``faults``)."""

    version_id: int
    place: int
    matches: int
    faults: int


@dataclass(frozen=True)
class PlaceTotal:
    """A bot version's record in one tournament (:meth:`arena.store.Store.place_totals`):
    its matches in first, second and third place, all its matches, the sum of its places
    and the matches it forfeited by a fault."""

    version_id: int
    places: tuple[int, int, int]
    matches: int
    place_sum: int
    faults: int


@dataclass(frozen=True)
class FinishedSeat:
    """A seat of :meth:`arena.store.Store.seats_in_finish_order`: its match, the match's
    duplicate set and round, the bot version seated and its place."""

    match_id: str
    set_key: str
    round: int
    bot_version_id: int
    place: int


@dataclass(frozen=True)
class SeatTiming:
    """What some bot versions' seats add up to (:meth:`arena.store.Store.timing`): seats
    played, decisions, times asked; the wall time of the asked decisions (in all, the slowest)
    and their CPU (the process's in all, loading included; the most in one decision); the
    wall time on the match clock (in all, the most in one match) and the most CPU in one
    match."""

    seats: int
    decisions: int
    asked: int
    think_seconds: float
    max_think_seconds: float
    cpu_seconds: float = 0.0
    max_cpu_seconds: float = 0.0
    clock_seconds: float = 0.0
    max_clock_seconds: float = 0.0
    max_match_cpu_seconds: float = 0.0


@dataclass(frozen=True)
class StoredDeal:
    """A stored hand's deal with its match (:meth:`arena.store.Store.stored_deals`): what
    ``arena verify`` recomputes. ``hand`` is ``(hand number, dealer, up-card, deal)``, the
    deal the JSON text of the hand record's; None for the one row of a match without hands."""

    id: str
    seed: int
    round: int
    bots: tuple[int, int, int]
    hands_played: int
    hand: tuple[int, int, str, str] | None


@dataclass(frozen=True)
class CachedReports:
    """The reports stored with a tournament's standings (:meth:`arena.store.Store.read_reports`):
    how many stored ``matches`` they were made from, and their JSON object (``body``: one
    report per key and the reports' ``version``; decoded strictly by
    :mod:`arena.views.reports`)."""

    matches: int
    body: Mapping[str, object]


@dataclass(frozen=True)
class FlaggedClone:
    """A flagged row of ``clone_pairs`` (:meth:`arena.store.Store.flagged_clone_pairs`): two
    bot versions of one tournament that made the same decision in ``identical`` of
    ``comparable`` comparable decisions (``share``)."""

    tournament_id: str
    bot_a: int
    bot_b: int
    comparable: int
    identical: int
    share: float


@dataclass(frozen=True)
class OpponentTotal:
    """Some bot versions' record against one opponent version
    (:meth:`arena.store.Store.opponent_totals`): the matches they shared, how often they placed
    above it (a tie counting one half) and the sum of their places."""

    opponent: int
    matches: int
    above: float
    place_sum: int


@dataclass(frozen=True)
class PlayCounts:
    """Over every hand some bot versions played with a trump named
    (:meth:`arena.store.Store.play_counts`): the hands, those they named trump in (``maker``),
    went ``alone`` in, ``made`` and were ``euchred`` in as maker, and ``defended`` (scored
    against the maker)."""

    hands: int
    maker: int
    alone: int
    made: int
    euchred: int
    defended: int


@dataclass(frozen=True)
class ListedEpoch:
    """An epoch of a ladder's page (:meth:`arena.store.Store.ladder_epoch_listing`): its
    first step, its finished ``sets``, its secret's commitment and, only once the epoch has
    closed (``closed_at``), the revealed ``secret`` (hex; None before)."""

    epoch: int
    first_step: int
    sets: int
    commitment: str
    secret: str | None
    opened_at: str
    closed_at: str | None


DuplicateHand: TypeAlias = tuple[str, int, str, int, int, int, str]
"""A stored hand of :meth:`arena.store.Store.duplicate_hands`: ``(set_key, round, match id,
bot0, bot1, bot2, hand record JSON)``."""


@dataclass(frozen=True)
class LogText:
    """What one seat's bot printed in a match (capped when stored)."""

    match_id: str
    text: str


__all__ = [
    "BotFault",
    "CachedReports",
    "DuplicateHand",
    "FlaggedClone",
    "ListedEpoch",
    "OpponentTotal",
    "PlayCounts",
    "DuplicateSeat",
    "SeatPlace",
    "StoredDeal",
    "FinishedSeat",
    "LogText",
    "PlaceCount",
    "PlaceTotal",
    "SeatTiming",
    "StoredBot",
    "VersionRef",
    "ListedFault",
    "ListedMatch",
    "ListedTournament",
    "ListedVersion",
    "StoredFault",
    "StoredMatch",
    "StoredSeat",
    "StoredTournament",
    "VersionSummary",
]


@dataclass(frozen=True)
class WorkerCheck:
    """What one run on a cluster checked of its workers (``worker_checks``): matches played
    again on another worker and on the arena machine, the share cross-checked, and each worker
    dropped from the run with why (``dropped_workers``)."""

    ended_at: str
    replayed: int
    refereed: int
    cross_check: float
    dropped: tuple[tuple[str, str], ...]
