"""What the listing commands (``arena faults``, ``arena matches``) read from the store: stored
faults and matches with their bots' names, filtered by bot, tournament or match, and counted.

Rows come out as stored (0-based rounds and seatings, raw messages); :mod:`arena.views.terminal`
turns them into what the user reads.
"""

from __future__ import annotations

from typing import Any

from arena.errors import NotFound
from arena.store.base import StoreBase
from arena.store.rows import BotFault, ListedFault, ListedMatch, StoredFault


def _where(filters: list[tuple[str, Any]]) -> tuple[str, list[Any]]:
    """`` WHERE a AND b`` of the clauses whose value is not None, and their parameters."""
    used = [(clause, value) for clause, value in filters if value is not None]
    if not used:
        return "", []
    return " WHERE " + " AND ".join(c for c, _ in used), [v for _, v in used]


class ListingReads(StoreBase):
    """The listing commands' queries."""

    def check_bot(self, name: str | None) -> None:
        """Refuse a ``--bot`` name that no stored bot has (None: no filter, nothing to check)."""
        if name is None:
            return
        if self.conn.execute("SELECT 1 FROM bots WHERE name = ?", (name,)).fetchone() is None:
            raise NotFound(f"no bot named {name!r} in {self.path} (arena bots lists them)")

    def fault_listing(
        self,
        *,
        bot: str | None = None,
        tid: str | None = None,
        match: str | None = None,
        limit: int | None = None,
    ) -> tuple[list[ListedFault], int]:
        """Stored faults (of one bot, tournament or match, or all), newest first, at most
        ``limit``, and how many there are. Each row: the fault's columns with its bot's
        ``name``, ``version`` and ``filename``, its match's ``round`` and ``seating`` and the
        seat's think time in the match (its match clock's wall time, its CPU)."""
        where, params = _where(
            [("v.name = ?", bot), ("f.tournament_id = ?", tid), ("f.match_id = ?", match)]
        )
        base = (
            "FROM faults f JOIN bot_versions v ON v.id = f.bot_version_id "
            f"JOIN matches m ON m.id = f.match_id "
            f"LEFT JOIN match_seats s ON s.match_id = f.match_id AND s.seat = f.seat{where}"
        )
        total = int(self.conn.execute(f"SELECT COUNT(*) {base}", params).fetchone()[0])
        rows = self.db.query(
            f"SELECT f.*, v.name, v.version, v.filename, m.round, m.seating, "
            f"s.clock_seconds, s.cpu_seconds {base} "
            "ORDER BY m.finished_at DESC, f.match_id, f.seat LIMIT ?",
            [*params, -1 if limit is None else limit],
        )
        listed = [
            ListedFault(
                StoredFault.from_row(r), r["name"], r["version"], r["filename"], r["round"],
                r["seating"], r["clock_seconds"] or 0.0, r["cpu_seconds"] or 0.0,
            )
            for r in rows
        ]  # fmt: skip
        return listed, total

    def faults_by_bot(self, tid: str) -> list[BotFault]:
        """Every fault of tournament ``tid`` with its bot's ``name`` and ``filename``, by bot
        name and match."""
        rows = self.conn.execute(
            "SELECT f.match_id, f.kind, f.message, f.decision, v.name, v.filename "
            "FROM faults f JOIN bot_versions v ON v.id = f.bot_version_id "
            "WHERE f.tournament_id = ? ORDER BY v.name, f.match_id",
            (tid,),
        )
        return [BotFault(*r) for r in rows]

    def match_listing(
        self, *, bot: str | None = None, tid: str | None = None, limit: int | None = None
    ) -> tuple[list[ListedMatch], int]:
        """Stored matches (with one bot, of one tournament, or all) in schedule order, at
        most ``limit``, and how many there are: each with its seats' bot names, versions
        and the seats that faulted."""
        where, params = _where(
            [("m.tournament_id = ?", tid), ("? IN (v0.name, v1.name, v2.name)", bot)]
        )
        base = (
            "FROM matches m JOIN bot_versions v0 ON v0.id = m.bot0 "
            "JOIN bot_versions v1 ON v1.id = m.bot1 JOIN bot_versions v2 ON v2.id = m.bot2" + where
        )
        total = int(self.conn.execute(f"SELECT COUNT(*) {base}", params).fetchone()[0])
        rows = self.db.query(
            "SELECT m.*, v0.name AS name0, v1.name AS name1, v2.name AS name2, "
            "v0.version AS ver0, v1.version AS ver1, v2.version AS ver2, "
            "(SELECT group_concat(seat) FROM faults f WHERE f.match_id = m.id) AS faulted "
            f"{base} ORDER BY m.tournament_id, m.round, m.set_key, m.seating LIMIT ?",
            [*params, -1 if limit is None else limit],
        )
        return [ListedMatch.from_row(r) for r in rows], total
