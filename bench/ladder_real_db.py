"""What ``bench/ladder_real.py`` reads from a ladder's database: its sets, whether each is
stored whole, the waits of its bots and its order.

Read-only SQLite connections (the database is in WAL mode, so reading while ``arena ladder``
writes is safe); the tables are those of ``docs/schema.md``.
"""

from __future__ import annotations

import os
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path


def connect(db: Path) -> sqlite3.Connection:
    """A read-only connection to ``db`` that waits for a writer's lock."""
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)


def copy(src: Path, dst: Path) -> None:
    """A copy of the database ``src`` at ``dst`` (private, like every arena database)."""
    dst.unlink(missing_ok=True)
    os.close(os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


def ladder_id(db: Path) -> str | None:
    """The id of the (latest) ladder in ``db``, None before one exists."""
    with connect(db) as conn:
        try:
            row = conn.execute(
                "SELECT id FROM tournaments WHERE kind = 'ladder' ORDER BY created_at DESC LIMIT 1"
            ).fetchone()
        except sqlite3.OperationalError:  # no tables yet
            return None
    return None if row is None else str(row[0])


def version_of(db: Path, name: str) -> int | None:
    """The latest version id of the bot ``name``, None when it is not stored."""
    with connect(db) as conn:
        row = conn.execute(
            "SELECT max(v.id) FROM bot_versions v JOIN bots b ON b.id = v.bot_id WHERE b.name = ?",
            (name,),
        ).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def joined_step(db: Path, lid: str, version: int) -> int | None:
    """The step at which ``version`` joined the ladder's field (None: it has not)."""
    with connect(db) as conn:
        row = conn.execute(
            "SELECT joined_step FROM ladder_bots WHERE ladder_id = ? AND bot_version_id = ?",
            (lid, version),
        ).fetchone()
    return None if row is None else int(row[0])


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
    with connect(db) as conn:
        counts = dict(
            conn.execute(
                "SELECT round || ' ' || set_key, count(*) FROM matches WHERE tournament_id = ? "
                "GROUP BY round, set_key",
                (lid,),
            ).fetchall()
        )
        rows = conn.execute(
            "SELECT step, bot0, bot1, bot2, set_key, reason, scheduled_at, finished_at "
            "FROM ladder_sets WHERE ladder_id = ? ORDER BY step",
            (lid,),
        ).fetchall()
    return [
        LadderSet(r[0], (r[1], r[2], r[3]), r[4], r[5], r[6], r[7], counts.get(f"{r[0]} {r[4]}", 0))
        for r in rows
    ]


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
    with connect(db) as conn:
        total = conn.execute(
            "SELECT count(*) FROM matches WHERE tournament_id = ?", (lid,)
        ).fetchone()[0]
    out.stray = int(total) - sum(s.matches for s in found)
    return out


def match_ids(db: Path, lid: str) -> set[str]:
    """The ids of the ladder's stored matches."""
    with connect(db) as conn:
        return {
            r[0] for r in conn.execute("SELECT id FROM matches WHERE tournament_id = ?", (lid,))
        }


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
    with connect(db) as conn:
        joined = conn.execute(
            "SELECT l.bot_version_id, l.joined_step, l.joined_at, l.left_step, v.name "
            "FROM ladder_bots l JOIN bot_versions v ON v.id = l.bot_version_id "
            "WHERE l.ladder_id = ?",
            (lid,),
        ).fetchall()
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
    with connect(db) as conn:
        rows = conn.execute(
            "SELECT name FROM ratings WHERE tournament_id = ? "
            "ORDER BY rank IS NULL, rank, rating DESC, mean_place",
            (tid,),
        ).fetchall()
    return [r[0] for r in rows]


def counts(db: Path, lid: str) -> tuple[int, int]:
    """Finished sets and stored matches of the ladder."""
    with connect(db) as conn:
        done = conn.execute(
            "SELECT count(*) FROM ladder_sets WHERE ladder_id = ? AND finished_at IS NOT NULL",
            (lid,),
        ).fetchone()[0]
        played = conn.execute(
            "SELECT count(*) FROM matches WHERE tournament_id = ?", (lid,)
        ).fetchone()[0]
    return int(done), int(played)
