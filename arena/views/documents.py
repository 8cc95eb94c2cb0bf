"""The JSON documents of the listing commands' ``--json`` (docs/cli.md), as types: what
:mod:`arena.views.terminal` makes and its tables read. ``arena standings --json``'s bots are
:class:`arena.stats.standings.StandingJSON`."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from arena.stats.standings import StandingJSON
from arena.store.ladder import EpochDict


class StandingsCounts(TypedDict):
    """The ``counts`` of ``arena standings --json``."""

    bots: int
    matches_played: int
    matches_total: int
    faults: int


class StandingsJSON(TypedDict):
    """``arena standings --json`` (docs/tournaments.md): no dates, so the same tournament
    gives the same document."""

    tournament: str
    commitment: str
    status: str
    seed: int
    rounds: int
    counts: StandingsCounts
    bots: list[StandingJSON]


class FaultJSON(TypedDict):
    """One fault of ``arena faults --json``."""

    match: str
    tournament: str
    bot: str
    version: int
    seat: int
    kind: str
    decision: int | None
    round: int
    seating: int
    summary: str
    message: str
    clock_seconds: float
    cpu_seconds: float


class SeatJSON(TypedDict):
    """One seat of a match of ``arena matches --json``."""

    seat: int
    bot: str
    version: int
    score: int
    place: int
    faulted: bool


class MatchJSON(TypedDict):
    """One match of ``arena matches --json``."""

    id: str
    tournament: str
    round: int
    seating: int
    seed: int
    hands: int
    truncated: bool
    faults: int
    seats: list[SeatJSON]


class TournamentJSON(TypedDict):
    """One tournament of ``arena tournaments --json``."""

    id: str
    kind: str
    status: str
    seed: int
    rounds: int
    total_matches: int
    done: int
    created_at: str
    updated_at: str
    commitment: str
    secret: str | None
    epochs: NotRequired[list[EpochDict]]
    """A ladder's epochs, each with its own deal secret."""
