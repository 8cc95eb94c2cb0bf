"""What an incremental render of the site (:func:`arena.site.update`) reads to decide which
pages changed, the bounded match lists of its pages, and a ladder's tables.

Read-only, like :mod:`arena.store.pages`, and cheap: the fingerprints are a few aggregates per
tournament, so deciding that nothing changed costs milliseconds whatever the number of stored
matches.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from arena.store.base import StoreBase
from arena.store.kinds import KINDS
from arena.store.rows import StoredMatch

SHOWN_KINDS = tuple(k.name for k in KINDS.values() if not k.comparison and not k.human)
"""The kinds of tournament whose matches count on the bot pages (a comparison has its own;
a human game counts nowhere)."""

LADDER_KINDS = ",".join(f"'{k.name}'" for k in KINDS.values() if k.ladder)
"""The ladders' kinds, for SQL's ``kind IN (...)``."""


def _digest(rows: Sequence[Any]) -> str:
    return hashlib.sha256(repr(list(rows)).encode()).hexdigest()[:24]


def _shown(column: str) -> str:
    kinds = ",".join(f"'{k}'" for k in SHOWN_KINDS)
    return f"{column} IN (SELECT id FROM tournaments WHERE kind IN ({kinds}))"


_ROW_STATE = (
    "SELECT t.*, s.revealed_at FROM tournaments t "
    "JOIN deal_secrets s ON s.id = t.secret_id WHERE t.id = ?",
    # The running totals of its seats (arena.store.totals): seats, last match and seat
    # stored, faults; they change whenever a match is stored.
    "SELECT SUM(seats), MAX(last_match), MAX(last_seat), SUM(faulted) FROM seat_totals "
    "WHERE tournament_id = ?",
    "SELECT * FROM tournament_bots WHERE tournament_id = ? ORDER BY 2",
)
_LADDER_STATE = (
    "SELECT * FROM ratings WHERE tournament_id = ? ORDER BY bot_version_id",
    "SELECT COUNT(*), SUM(matches), SUM(above), SUM(low) FROM pairwise WHERE tournament_id = ?",
    "SELECT * FROM ladder_bots WHERE ladder_id = ? ORDER BY bot_version_id",
    "SELECT * FROM ladder_epochs WHERE ladder_id = ? ORDER BY epoch",
    "SELECT COUNT(*), MAX(step), COUNT(finished_at), MAX(finished_at) FROM ladder_sets "
    "WHERE ladder_id = ?",
)


class SiteState(StoreBase):
    """Fingerprints of what the site's pages are rendered from, bounded match lists, and the
    ladder tables (``ladder_bots``, ``ladder_epochs``, ``ladder_sets``; docs/schema.md)."""

    def tournament_states(self) -> dict[str, str]:
        """A fingerprint per tournament of everything its pages show: its row and secret, its
        matches (count, last row), entrants and ladder rows, and a ladder's standings. It
        changes whenever any of them does.

        A round robin's standings, pairwise, clone, kingmaking and duplicate reports are
        derived from its matches (and cached by the render itself when stale): its matches
        stand for them. A ladder keeps its own standings, updated as it goes: they count."""
        out: dict[str, str] = {}
        for tid, kind in self.conn.execute("SELECT id, kind FROM tournaments ORDER BY id"):
            queries = _ROW_STATE + (_LADDER_STATE if KINDS[kind].ladder else ())
            parts = [self.conn.execute(sql, (tid,)).fetchall() for sql in queries]
            out[tid] = _digest([tuple(tuple(r) for r in p) for p in parts])
        return out

    def standings_state(self, tid: str) -> str:
        """A fingerprint of the tournament's stored standings: its ``ratings`` rows and an
        aggregate of its ``pairwise`` rows (what a ladder's head-to-head shows)."""
        parts = [self.conn.execute(sql, (tid,)).fetchall() for sql in _LADDER_STATE[:2]]
        return _digest([tuple(tuple(r) for r in p) for p in parts])

    def standings_time(self, tid: str) -> str | None:
        """When the tournament's stored standings were computed (None: none stored)."""
        row = self.conn.execute(
            "SELECT MAX(computed_at) FROM ratings WHERE tournament_id = ?", (tid,)
        ).fetchone()
        return None if row is None else row[0]

    def bot_states(self) -> dict[int, str]:
        """A fingerprint per bot of its own rows (the bot, its versions without source)."""
        rows = self.conn.execute(
            "SELECT b.id, b.name, b.created_at, b.retired_at, v.id, v.version, v.sha256, "
            "v.filename, v.name, v.author, v.submitted_at FROM bots b "
            "LEFT JOIN bot_versions v ON v.bot_id = b.id ORDER BY b.id, v.id"
        ).fetchall()
        grouped: dict[int, list[Any]] = {}
        for r in rows:
            grouped.setdefault(r[0], []).append(tuple(r))
        return {b: _digest(rs) for b, rs in grouped.items()}

    def seat_states(self) -> dict[int, tuple[int, int]]:
        """Per bot version: its seats stored and the last seat row written (from the running
        totals)."""
        rows = self.conn.execute(
            "SELECT bot_version_id, SUM(seats), MAX(last_seat) FROM seat_totals "
            "GROUP BY bot_version_id"
        )
        return {int(v): (int(n), int(last)) for v, n, last in rows}

    def rating_states(self) -> dict[int, list[tuple[Any, ...]]]:
        """Per bot version: its rows of ``ratings`` in ladders (one per ladder), as tuples.
        (A round robin's are derived from its matches: see :meth:`tournament_states`.)"""
        out: dict[int, list[tuple[Any, ...]]] = {}
        for r in self.conn.execute(
            "SELECT * FROM ratings WHERE tournament_id IN "
            f"(SELECT id FROM tournaments WHERE kind IN ({LADDER_KINDS})) "
            "ORDER BY tournament_id, bot_version_id"
        ).fetchall():
            out.setdefault(int(r[1]), []).append(tuple(r))
        return out

    def bot_tournaments(self) -> dict[int, set[str]]:
        """The tournaments each bot (by bot id) was entered in or played in a ladder of."""
        out: dict[int, set[str]] = {}
        for bot, tid in self.conn.execute(
            "SELECT v.bot_id, t.tournament_id FROM tournament_bots t "
            "JOIN bot_versions v ON v.id = t.bot_version_id "
            "UNION SELECT v.bot_id, l.ladder_id FROM ladder_bots l "
            "JOIN bot_versions v ON v.id = l.bot_version_id "
            "UNION SELECT v.bot_id, s.tournament_id FROM seat_totals s "
            "JOIN bot_versions v ON v.id = s.bot_version_id"
        ):
            out.setdefault(bot, set()).add(tid)
        return out

    def last_result_times(self) -> dict[str, str]:
        """Per tournament with matches: when its most recently stored match finished."""
        out = {}
        for (tid,) in self.conn.execute("SELECT id FROM tournaments").fetchall():
            row = self.conn.execute(
                "SELECT finished_at FROM matches WHERE tournament_id = ? "
                "ORDER BY rowid DESC LIMIT 1",
                (tid,),
            ).fetchone()
            if row is not None:
                out[tid] = row[0]
        return out

    def match_page_rows(
        self,
        *,
        tid: str | None = None,
        versions: Sequence[int] | None = None,
        limit: int,
        offset: int = 0,
    ) -> list[StoredMatch]:
        """A page of stored matches, the most recently stored first: of one tournament, or
        with one of ``versions`` seated (in the tournaments the bot pages count)."""
        params: list[Any]
        if tid is not None:
            where, params = "tournament_id = ?", [tid]
        else:
            ids = list(versions or [])
            marks = ",".join("?" * len(ids))
            # Newest first from the versions' last match (the running totals know it), the
            # seats read from the match rows: a page of the latest costs a few rows, not a
            # pass over every seat the bot ever played.
            where = (
                "rowid <= (SELECT COALESCE(MAX(last_match), 0) FROM seat_totals "
                f"WHERE bot_version_id IN ({marks})) "
                f"AND (bot0 IN ({marks}) OR bot1 IN ({marks}) OR bot2 IN ({marks}))"
                f" AND {_shown('tournament_id')}"
            )
            params = [*ids, *ids, *ids, *ids]
        rows = self.db.query(
            f"SELECT * FROM matches WHERE {where} ORDER BY rowid DESC LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        return [StoredMatch.from_row(r) for r in rows]

    def match_total(self, *, tid: str | None = None, versions: Sequence[int] = ()) -> int:
        """How many matches :meth:`match_page_rows` pages through."""
        if tid is not None:
            return int(
                self.conn.execute(
                    "SELECT COUNT(*) FROM matches WHERE tournament_id = ?", (tid,)
                ).fetchone()[0]
            )
        seated = f"bot_version_id IN ({','.join('?' * len(versions))})"
        return int(
            self.conn.execute(
                f"SELECT COUNT(DISTINCT match_id) FROM match_seats WHERE {seated} "
                f"AND {_shown('tournament_id')}",
                [*versions],
            ).fetchone()[0]
        )

    def stored_match(self, match_id: str) -> StoredMatch | None:
        """The match of this exact id, or None."""
        rows = list(self.db.query("SELECT * FROM matches WHERE id = ?", [match_id]))
        return StoredMatch.from_row(rows[0]) if rows else None

    # -- a ladder ---------------------------------------------------------------------------

    def ladder_bot_rows(self, ladder_id: str) -> list[dict[str, Any]]:
        """The ladder's field over time: every version that joined, with its ``bot_id`` and
        its bot's ``retired_at``, in joining order."""
        return self.rows(
            "SELECT l.*, v.bot_id, b.retired_at FROM ladder_bots l "
            "JOIN bot_versions v ON v.id = l.bot_version_id "
            "JOIN bots b ON b.id = v.bot_id WHERE l.ladder_id = ? "
            "ORDER BY l.joined_step, l.bot_version_id",
            [ladder_id],
        )

    def ladder_epoch_count(self, ladder_id: str) -> int:
        """How many epochs the ladder has opened."""
        return int(
            self.conn.execute(
                "SELECT COUNT(*) FROM ladder_epochs WHERE ladder_id = ?", (ladder_id,)
            ).fetchone()[0]
        )

    def ladder_set_counts(self, ladder_id: str) -> dict[int, tuple[int, int]]:
        """Per bot version: its finished sets in the ladder and the step of its latest."""
        seats = " UNION ALL ".join(
            f"SELECT bot{i} AS v, step FROM ladder_sets "
            "WHERE ladder_id = ? AND finished_at IS NOT NULL"
            for i in range(3)
        )
        rows = self.conn.execute(
            f"SELECT v, COUNT(*), MAX(step) FROM ({seats}) GROUP BY v", (ladder_id,) * 3
        )
        return {int(v): (int(n), int(last)) for v, n, last in rows}

    def ladder_epoch_rows(self, ladder_id: str, limit: int) -> list[dict[str, Any]]:
        """The ladder's ``limit`` latest epochs, newest first, with their finished ``sets``,
        their secret's commitment and, once the epoch has closed (``closed_at``), the revealed
        ``secret``."""
        rows = self.rows(
            "SELECT e.*, s.commitment, s.secret, s.revealed_at, 0 AS sets FROM ladder_epochs e "
            "JOIN deal_secrets s ON s.id = e.secret_id WHERE e.ladder_id = ? "
            "ORDER BY e.epoch DESC LIMIT ?",
            [ladder_id, limit],
        )
        counts = dict(
            self.conn.execute(
                "SELECT epoch, COUNT(*) FROM ladder_sets WHERE ladder_id = ? AND epoch >= ? "
                "AND finished_at IS NOT NULL GROUP BY epoch",
                (ladder_id, rows[-1]["epoch"] if rows else 0),
            ).fetchall()
        )
        for r in rows:
            r["sets"] = counts.get(r["epoch"], 0)
            if r["closed_at"] is None:
                r["secret"] = None  # never shown before its epoch closes
        return rows

    def ladder_set_rows(
        self,
        ladder_id: str,
        *,
        running: bool,
        limit: int,
        version: int | None = None,
    ) -> list[dict[str, Any]]:
        """The ladder's sets in flight (``running``: ``finished_at`` NULL) or finished, newest
        step first, at most ``limit``; only those of one bot ``version`` when given."""
        where = "ladder_id = ? AND finished_at IS " + ("NULL" if running else "NOT NULL")
        params: list[Any] = [ladder_id]
        if version is not None:
            where += " AND ? IN (bot0, bot1, bot2)"
            params.append(version)
        return self.rows(
            f"SELECT * FROM ladder_sets WHERE {where} ORDER BY step DESC LIMIT ?",
            [*params, limit],
        )
