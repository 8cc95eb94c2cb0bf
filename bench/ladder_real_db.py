"""What ``bench/ladder_real.py`` reads from a ladder's database: its sets, whether each is
stored whole, the waits of its bots and its order.

Read through reading stores (``Store(db, create=False)``) beside the ``arena ladder`` that
writes the database: it is in WAL mode, and ``arena submit`` made it and its schema before any
ladder starts, so a reading store creates and changes nothing.
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.store import Store
from arena.store.schema import LADDER


def copy(src: Path, dst: Path) -> None:
    """A copy of the database ``src`` at ``dst`` (private, like every arena database), by
    SQLite's backup API: a file copy, no query (the store has no copy)."""
    dst.unlink(missing_ok=True)
    os.close(os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


def ladder_id(db: Path) -> str | None:
    """The id of the (latest) ladder in ``db``, None before one exists."""
    with Store(db, create=False) as store:
        try:
            found = store.tournament(prefer=LADDER)
        except ArenaError:  # no tournament yet
            return None
    return found.id if found.kind == LADDER else None


def version_of(db: Path, name: str) -> int | None:
    """The latest version id of the bot ``name``, None when it is not stored."""
    with Store(db, create=False) as store:
        found = store.latest_version(name)
    return None if found is None else found.id


def joined_step(db: Path, lid: str, version: int) -> int | None:
    """The step at which ``version`` joined the ladder's field (None: it has not)."""
    with Store(db, create=False) as store:
        members = store.ladder_members(lid)
    return next((m.joined_step for m in members if m.version_id == version), None)


@dataclass
class LadderSet:
    """One row of ``ladder_sets`` and how many ``matches`` rows it has."""

    step: int
    bots: tuple[int, int, int]
    set_key: str
    reason: str
    scheduled_at: str
    finished_at: str | None
    matches: int


def sets(db: Path, lid: str) -> list[LadderSet]:
    """Every set of the ladder ``lid``, by step, with its stored matches counted."""
    with Store(db, create=False) as store:
        counts = Counter((m.round, m.set_key) for m in store.match_rows(tid=lid))
        stored = store.ladder_sets(lid)
    return [
        LadderSet(s.step, s.bots, s.set_key, s.reason, s.scheduled_at, s.finished_at,
                  counts[s.step, s.set_key])
        for s in stored
    ]  # fmt: skip


def finished_with(db: Path, lid: str, version: int) -> LadderSet | None:
    """The first finished set of ``version`` in the ladder, None while it has none."""
    for s in sets(db, lid):
        if s.finished_at is not None and version in s.bots:
            return s
    return None


@dataclass
class Integrity:
    """Whether every set is stored whole or not at all."""

    finished: int = 0
    in_flight: list[int] = field(default_factory=list)
    half: list[int] = field(default_factory=list)
    """Steps whose matches are neither 0 (unfinished) nor 6 (finished)."""
    stray: int = 0
    """``matches`` rows of the ladder that belong to no set."""

    @property
    def whole(self) -> bool:
        """No half-stored set and no stray match."""
        return not self.half and self.stray == 0


def integrity(db: Path, lid: str) -> Integrity:
    """Check that each finished set has its six matches, each unfinished one none."""
    found = sets(db, lid)
    out = Integrity()
    for s in found:
        if s.finished_at is None:
            out.in_flight.append(s.step)
            if s.matches:
                out.half.append(s.step)
        else:
            out.finished += 1
            if s.matches != 6:
                out.half.append(s.step)
    with Store(db, create=False) as store:
        total = store.match_count(lid)
    out.stray = total - sum(s.matches for s in found)
    return out


def match_ids(db: Path, lid: str) -> set[str]:
    """The ids of the ladder's stored matches."""
    with Store(db, create=False) as store:
        return store.finished_match_ids(lid)


def _when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


@dataclass
class Wait:
    """The longest wait of any bot: in sets scheduled and in seconds."""

    sets: int
    sets_bot: str
    seconds: float
    seconds_bot: str


def longest_wait(db: Path, lid: str) -> Wait:
    """The most sets scheduled, and the most seconds, between a bot's joining or last set
    and its next one (or the ladder's last step, for a bot still waiting at the end)."""
    found = sets(db, lid)
    with Store(db, create=False) as store:
        members = store.ladder_members(lid)
    joined = [(m.version_id, m.joined_step, m.joined_at, m.left_step, m.name) for m in members]
    played: dict[int, list[LadderSet]] = defaultdict(list)
    for s in found:
        for b in s.bots:
            played[b].append(s)
    last = found[-1] if found else None
    best = Wait(0, "-", 0.0, "-")
    for bot, joined_step, joined_at, left_step, name in joined:
        marks = [(joined_step, joined_at)] + [(s.step, s.scheduled_at) for s in played[bot]]
        if left_step is None and last is not None:
            marks.append((last.step, last.scheduled_at))
        for (step0, at0), (step1, at1) in zip(marks, marks[1:], strict=False):
            if step1 - step0 > best.sets:
                best.sets, best.sets_bot = step1 - step0, name
            gap = (_when(at1) - _when(at0)).total_seconds()
            if gap > best.seconds:
                best.seconds, best.seconds_bot = gap, name
    return best


def order(db: Path, tid: str) -> list[str]:
    """The names of the tournament's (or ladder's) stored standings, best first."""
    with Store(db, create=False) as store:
        rows = store.read_standings(tid)[0]
    return [r["name"] for r in sorted(rows, key=_best_first)]


def _best_first(row: dict[str, Any]) -> tuple[bool, int, bool, float, bool, float]:
    # Ranked first, by rank; then by rating, highest first (none last); then mean place.
    rating, mean = row["rating"], row["mean_place"]
    return (row["rank"] is None, row["rank"] or 0, rating is None, -(rating or 0.0),
            mean is not None, mean or 0.0)  # fmt: skip


def counts(db: Path, lid: str) -> tuple[int, int]:
    """Finished sets and stored matches of the ladder."""
    with Store(db, create=False) as store:
        done = sum(s.finished_at is not None for s in store.ladder_sets(lid))
        return done, store.match_count(lid)
