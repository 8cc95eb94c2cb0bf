"""Faults and logs in the store (``faults``, ``bot_logs``): what the bots of stored matches did
wrong and what they printed, read by match, by tournament, by bot version or listed (``arena
faults``). They are written with their match (:meth:`arena.store.Store.write_results`).

Messages and logs are untrusted text, as stored (capped, controls stripped at the boundary):
whoever shows them escapes them.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.store.base import StoreBase, among, clauses, counted
from arena.store.rows import BotFault, ListedFault, LogText, StoredFault


class FaultStore(StoreBase):
    """The ``faults`` and ``bot_logs`` tables."""

    def match_faults(self, match_id: str) -> list[StoredFault]:
        """The faults of one match, by seat."""
        rows = self.db.query("SELECT * FROM faults WHERE match_id = ? ORDER BY seat", [match_id])
        return [StoredFault.from_row(r) for r in rows]

    def fault_rows(
        self, *, match_id: str | None = None, versions: Sequence[int] | None = None
    ) -> list[StoredFault]:
        """Stored faults of one match or of some bot versions, in tournament and match order."""
        params: list[object]
        if match_id is not None:
            where, params = "match_id = ?", [match_id]
        else:
            where = f"{among('bot_version_id', versions or [])} AND {counted('tournament_id')}"
            params = [*(versions or [])]
        rows = self.db.query(
            f"SELECT * FROM faults WHERE {where} ORDER BY tournament_id, match_id, seat", params
        )
        return [StoredFault.from_row(r) for r in rows]

    def fault_counts(self, tid: str) -> dict[int, int]:
        """Matches forfeited by a fault, per bot version id."""
        rows = self.conn.execute(
            "SELECT bot_version_id, COUNT(*) FROM faults WHERE tournament_id = ? "
            "GROUP BY bot_version_id",
            (tid,),
        )
        return {int(b): int(n) for b, n in rows}

    def fault_decisions(self, tid: str) -> list[tuple[str, int, int | None]]:
        """Every fault of the tournament as ``(match id, seat, decision)`` (decision None:
        while loading)."""
        return self.conn.execute(
            "SELECT match_id, seat, decision FROM faults WHERE tournament_id = ?", (tid,)
        ).fetchall()

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
        where, params = clauses(
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

    def match_logs(self, match_id: str) -> dict[int, str]:
        """What each seat's bot printed in one match (capped when stored), by seat."""
        rows = self.conn.execute("SELECT seat, text FROM bot_logs WHERE match_id = ?", (match_id,))
        return {int(seat): text for seat, text in rows}

    def log_rows(self, versions: Sequence[int], limit: int) -> list[LogText]:
        """What these versions printed in the first ``limit`` matches by id."""
        rows = self.conn.execute(
            "SELECT match_id, text FROM bot_logs "
            f"WHERE {among('bot_version_id', versions)} "
            f"AND match_id IN (SELECT id FROM matches WHERE {counted('tournament_id')}) "
            "ORDER BY match_id LIMIT ?",
            [*versions, limit],
        )
        return [LogText(*r) for r in rows]
