"""Typed rows the store returns where the site and the views read the most: a stored match
(:class:`StoredMatch`, a row of ``matches``) and a match of a listing with its bots' names and
versions (:class:`ListedMatch`). Built from a row by its column names: a missing column is
an error, not a silent ``None``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


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


__all__ = ["ListedMatch", "StoredMatch"]
