"""The record of one finished match: what a worker returns and :meth:`Store.write_results` stores.

A :class:`MatchRecord` is made by the worker (:func:`arena.tournaments.runner.outcome_record`),
crosses to the parent as plain JSON (:meth:`MatchRecord.to_json`; a cluster sends nothing else), is
read back strictly (:meth:`MatchRecord.from_json`: exactly the known keys, values of the right JSON
types, anything else refused with :class:`RecordError`), checked against the batch sent
(:mod:`arena.tournaments.verify`) and stored. Every field has one name from the worker to the
database column (``max_think_seconds`` is ``max_think_seconds`` everywhere).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final, TypedDict

from arena.rules import HandRecord
from arena.sandbox.values import FAULT_KINDS, Fault, FaultDict, SeatStatsDict

MAX_INT: Final = 2**53
"""The largest count a record may carry (an exact JSON number everywhere; SQLite stores it)."""


class RecordError(ValueError):
    """A JSON value that is not a match record (unknown, missing or mistyped keys)."""


@dataclass(frozen=True)
class SeatStats:
    """One seat's decision counts and times in a match (seconds, rounded to microseconds).

    ``think_seconds`` and ``max_think_seconds`` are the wall time of the decisions the bot was
    asked (more than one legal action), in all and the slowest; ``cpu_seconds`` the CPU of its
    process in the whole match (loading included), ``max_cpu_seconds`` the most CPU of one
    asked decision; ``clock_seconds`` the wall time on its match clock (every turn, loading
    and forced decisions included: :mod:`arena.sandbox.clock`).
    """

    decisions: int = 0
    asked: int = 0
    think_seconds: float = 0.0
    max_think_seconds: float = 0.0
    cpu_seconds: float = 0.0
    max_cpu_seconds: float = 0.0
    clock_seconds: float = 0.0

    def to_json(self) -> SeatStatsDict:
        """The JSON object of the stats."""
        return {
            "decisions": self.decisions,
            "asked": self.asked,
            "think_seconds": self.think_seconds,
            "max_think_seconds": self.max_think_seconds,
            "cpu_seconds": self.cpu_seconds,
            "max_cpu_seconds": self.max_cpu_seconds,
            "clock_seconds": self.clock_seconds,
        }

    @classmethod
    def from_json(cls, data: object) -> SeatStats:
        """The stats of a JSON object with exactly :data:`STAT_KEYS`, non-negative numbers."""
        obj = _exact(data, STAT_KEYS, "a seat's stats")
        for key in ("decisions", "asked"):
            if type(obj[key]) is not int or not _non_negative(obj[key]):
                raise RecordError(f"a seat's {key} is not a non-negative integer")
        for key in _SECONDS:
            if not _non_negative(obj[key]):
                raise RecordError(f"a seat's {key} is not a non-negative number")
        return cls(**obj)


class SlotDict(TypedDict):
    """:meth:`MatchSlot.slot_json`."""

    match_id: str
    round: int
    seating: int
    seed: int
    set_key: str


class RecordDict(SlotDict):
    """:meth:`MatchRecord.to_json`: what crosses from a worker to the parent."""

    bots: list[int]
    scores: list[int]
    placements: list[int]
    truncated: bool
    hands: list[HandRecord]
    faults: list[FaultDict]
    stats: list[SeatStatsDict]
    logs: list[str]
    duration_seconds: float


@dataclass(frozen=True)
class MatchSlot:
    """A match's place in its tournament's schedule, the five fields a scheduled match
    (:class:`arena.matches.scheduler.MatchSpec`) and its record (:class:`MatchRecord`) share: its
    id, round, seating (of the six), public seed and duplicate set."""

    match_id: str
    round: int
    seating: int
    seed: int
    set_key: str

    @property
    def slot(self) -> MatchSlot:
        """Just the five fields (a spec and its record have equal slots)."""
        return MatchSlot(self.match_id, self.round, self.seating, self.seed, self.set_key)

    def slot_json(self) -> SlotDict:
        """The five fields as a JSON object."""
        return {
            "match_id": self.match_id,
            "round": self.round,
            "seating": self.seating,
            "seed": self.seed,
            "set_key": self.set_key,
        }


SLOT_KEYS: Final = tuple(MatchSlot.__dataclass_fields__)
"""The five fields of a :class:`MatchSlot`, in order."""


@dataclass(frozen=True)
class MatchRecord(MatchSlot):
    """A finished match: its slot in the schedule (:class:`MatchSlot`), the bots, the outcome,
    and each seat's faults, stats and captured log. ``hands`` are the played hands' JSON
    objects (:meth:`arena.game.Hand.to_dict`, with their decision logs), which
    :mod:`arena.tournaments.verify` replays."""

    bots: tuple[int, int, int]
    scores: tuple[int, int, int]
    placements: tuple[int, int, int]
    truncated: bool
    hands: tuple[HandRecord, ...]
    faults: tuple[Fault, ...]
    stats: tuple[SeatStats, SeatStats, SeatStats]
    logs: tuple[str, str, str]
    duration_seconds: float

    def to_json(self) -> RecordDict:
        """The record as a JSON object (lists, dicts, strings and numbers only)."""
        return {
            **self.slot_json(),
            "bots": list(self.bots),
            "scores": list(self.scores),
            "placements": list(self.placements),
            "truncated": self.truncated,
            "hands": list(self.hands),
            "faults": [f.to_dict() for f in self.faults],
            "stats": [s.to_json() for s in self.stats],
            "logs": list(self.logs),
            "duration_seconds": self.duration_seconds,
        }

    @classmethod
    def from_json(cls, data: object) -> MatchRecord:
        """The record of a JSON object with exactly :data:`RECORD_KEYS`; :class:`RecordError`
        for any other key, a missing one, or a value of the wrong type."""
        obj = _exact(data, RECORD_KEYS, "the record")
        for key in ("match_id", "set_key"):
            if not isinstance(obj[key], str):
                raise RecordError(f"its {key} is not a string")
        for key in ("round", "seating", "seed"):
            if type(obj[key]) is not int:
                raise RecordError(f"its {key} is not an integer")
        if type(obj["truncated"]) is not bool:
            raise RecordError("its truncated is not true or false")
        if not _non_negative(obj["duration_seconds"]):
            raise RecordError("its duration is not a non-negative number")
        hands = obj["hands"]
        if not isinstance(hands, list) or not all(
            isinstance(h, dict) and isinstance(h.get("log"), list) for h in hands
        ):
            raise RecordError("its hands are not a list of hands with decision logs")
        stats = _three(obj["stats"], "stats")
        logs = _three(obj["logs"], "logs")
        if not all(isinstance(t, str) for t in logs):
            raise RecordError("its logs are not three strings")
        return cls(
            **{key: obj[key] for key in SLOT_KEYS},
            bots=_ints(obj["bots"], "bots"),
            scores=_ints(obj["scores"], "scores"),
            placements=_ints(obj["placements"], "placements"),
            truncated=obj["truncated"],
            hands=tuple(hands),
            faults=_faults(obj["faults"]),
            stats=(
                SeatStats.from_json(stats[0]),
                SeatStats.from_json(stats[1]),
                SeatStats.from_json(stats[2]),
            ),
            logs=(logs[0], logs[1], logs[2]),
            duration_seconds=obj["duration_seconds"],
        )


RECORD_KEYS: Final = frozenset(MatchRecord.__dataclass_fields__)
"""Exactly the keys of a match record's JSON object."""
FAULT_KEYS: Final = frozenset({"seat", "kind", "message", "decision"})
"""Exactly the keys of a fault's JSON object."""
STAT_KEYS: Final = frozenset(SeatStats.__dataclass_fields__)
"""Exactly the keys of a seat's stats."""
_SECONDS: Final = tuple(k for k in SeatStats.__dataclass_fields__ if k.endswith("_seconds"))


def _exact(data: object, keys: frozenset[str], what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise RecordError(f"{what} is not a JSON object")
    if set(data) != keys:
        extra = sorted(str(k)[:40] for k in set(data) - keys)
        missing = sorted(keys - set(data))
        raise RecordError(f"{what}: keys differ (extra {extra[:5]}, missing {missing[:5]})")
    return data


def _non_negative(v: object) -> bool:
    """A JSON number a SQLite column holds: a finite float or an integer in 0 .. 2**53."""
    if type(v) is int:
        return 0 <= v <= MAX_INT
    return type(v) is float and math.isfinite(v) and v >= 0


def _three(value: object, what: str) -> list[Any]:
    if not isinstance(value, list) or len(value) != 3:
        raise RecordError(f"its {what} are not three")
    return value


def _ints(value: object, what: str) -> tuple[int, int, int]:
    v = _three(value, what)
    if not all(type(x) is int for x in v):
        raise RecordError(f"its {what} are not three integers")
    return (v[0], v[1], v[2])


def _faults(value: object) -> tuple[Fault, ...]:
    if not isinstance(value, list) or len(value) > 3:
        raise RecordError("its faults are not a list of at most three")
    out = []
    for f in value:
        obj = _exact(f, FAULT_KEYS, "a fault")
        seat, decision, message = obj["seat"], obj["decision"], obj["message"]
        if type(seat) is not int or seat not in (0, 1, 2):
            raise RecordError("a fault names a bad seat")
        if obj["kind"] not in FAULT_KINDS:
            raise RecordError("a fault has an unknown kind")
        if not isinstance(message, str):
            raise RecordError("a fault message is not a string")
        if decision is not None and (type(decision) is not int or not _non_negative(decision)):
            raise RecordError("a fault has a bad decision number")
        out.append(Fault(seat, obj["kind"], message, decision))
    return tuple(out)


__all__ = [
    "FAULT_KEYS",
    "RECORD_KEYS",
    "SLOT_KEYS",
    "STAT_KEYS",
    "MatchRecord",
    "MatchSlot",
    "RecordDict",
    "SlotDict",
    "RecordError",
    "SeatStats",
]
