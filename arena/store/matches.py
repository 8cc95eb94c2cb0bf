"""Matches in the store (``matches``, ``match_seats``, ``hands``): the records workers return,
stored in one transaction per batch with their faults and logs and upserted by their natural
keys (storing a batch twice changes nothing), and every read of stored matches, their seats
and hands: for standings, replays, ``arena verify``, the listings and the site's pages.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Final

from arena.matches.record import MatchRecord
from arena.rules import HandRecord
from arena.store.base import Columns, among, clauses, counted
from arena.store.rows import (
    DuplicateHand,
    DuplicateSeat,
    FinishedSeat,
    ListedMatch,
    PlaceCount,
    SeatPlace,
    StoredDeal,
    StoredMatch,
    StoredSeat,
)
from arena.store.schema import now
from arena.store.totals import TotalStore

LOG_CAP: Final = 8192
"""Characters of a bot's output kept per match and seat."""


def _match_row(tid: str, r: MatchRecord, stamp: str) -> Columns:
    return {
        "id": r.match_id,
        "tournament_id": tid,
        "set_key": r.set_key,
        "round": r.round,
        "seating": r.seating,
        "seed": r.seed,
        **{f"bot{s}": r.bots[s] for s in range(3)},
        **{f"score{s}": r.scores[s] for s in range(3)},
        **{f"place{s}": r.placements[s] for s in range(3)},
        "hands_played": len(r.hands),
        "truncated": int(r.truncated),
        "faults": len({f.seat for f in r.faults}),
        "duration_seconds": r.duration_seconds,
        "status": "finished",
        "finished_at": stamp,
    }


def _seat_rows(tid: str, r: MatchRecord) -> list[Columns]:
    faulted = {f.seat for f in r.faults}
    return [
        {
            "match_id": r.match_id,
            "seat": s,
            "tournament_id": tid,
            "bot_version_id": r.bots[s],
            "score": r.scores[s],
            "place": r.placements[s],
            "faulted": int(s in faulted),
            **vars(r.stats[s]),
        }
        for s in range(3)
    ]


def _log_rows(r: MatchRecord) -> list[Columns]:
    return [
        {
            "match_id": r.match_id,
            "seat": s,
            "bot_version_id": r.bots[s],
            "text": text[:LOG_CAP],
            "truncated": int(len(text) > LOG_CAP),
        }
        for s, text in enumerate(r.logs)
        if text
    ]


def _fault_rows(tid: str, r: MatchRecord) -> list[Columns]:
    # One row per seat: the sandbox records only a seat's first fault.
    faulted = {f.seat: f for f in r.faults}
    return [
        {
            "match_id": r.match_id,
            "seat": s,
            "tournament_id": tid,
            "bot_version_id": r.bots[s],
            "kind": f.kind,
            "message": f.message,
            "decision": f.decision,
        }
        for s, f in faulted.items()
    ]


def _hand_rows(r: MatchRecord) -> list[Columns]:
    return [
        {
            "match_id": r.match_id,
            "hand_number": h["hand_number"],
            "dealer": h["dealer"],
            "upcard": h["upcard"],
            "trump": h["trump"],
            "maker": h["maker"],
            "alone": json.dumps(h["alone"]),
            "sitting_out": h["sitting_out"],
            "passed_out": int(h["passed_out"]),
            "tricks_won": json.dumps(h["tricks_won"]),
            "points": json.dumps(h["points"]),
            "scores_before": json.dumps(h["scores_before"]),
            "record": json.dumps(h, separators=(",", ":")),
        }
        for h in r.hands
    ]


class MatchStore(TotalStore):
    """The ``matches``, ``match_seats`` and ``hands`` tables (and, written with a match, its
    ``faults`` and ``bot_logs`` rows)."""

    def write_results(self, tid: str, records: Sequence[MatchRecord]) -> None:
        """Store finished matches (:class:`~arena.matches.record.MatchRecord`, as workers return
        them) in one transaction, upserting by key."""
        if not records:
            return
        with self._transaction():
            self._put_results(tid, records)

    def _put_results(self, tid: str, records: Sequence[MatchRecord]) -> None:
        """Upsert the rows of ``records`` inside the caller's transaction (a ladder writes a
        set's matches and its ``finished_at`` in one)."""
        stamp = now()
        matches = [_match_row(tid, r, stamp) for r in records]
        seats = [row for r in records for row in _seat_rows(tid, r)]
        hands = [row for r in records for row in _hand_rows(r)]
        faults = [row for r in records for row in _fault_rows(tid, r)]
        logs = [row for r in records for row in _log_rows(r)]
        ids = [r.match_id for r in records]
        existed = self._any_stored(ids)
        self.db.table("matches").upsert_all(matches, pk="id")
        self.db.table("match_seats").upsert_all(seats, pk=("match_id", "seat"))
        self.db.table("hands").upsert_all(hands, pk=("match_id", "hand_number"))
        if faults:
            self.db.table("faults").upsert_all(faults, pk=("match_id", "seat"))
        if logs:
            self.db.table("bot_logs").upsert_all(logs, pk=("match_id", "seat"))
        self._add_totals(ids, existed)

    def _any_stored(self, ids: Sequence[str]) -> bool:
        """Whether any of these match ids is stored already."""
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT 1 FROM matches WHERE id IN ({marks}) LIMIT 1"
            if self.conn.execute(sql, part).fetchone() is not None:
                return True
        return False

    def match(self, prefix: str) -> tuple[StoredMatch, list[HandRecord]]:
        """The match whose id starts with ``prefix``, and its hands' full records in order."""
        row = self._by_prefix("matches", "match", prefix)
        hands = [
            json.loads(r["record"])
            for r in self._rows(
                "SELECT record FROM hands WHERE match_id = ? ORDER BY hand_number", [row["id"]]
            )
        ]
        return StoredMatch.from_row(row), hands

    def stored_match(self, match_id: str) -> StoredMatch | None:
        """The match of this exact id, or None."""
        rows = list(self.db.query("SELECT * FROM matches WHERE id = ?", [match_id]))
        return StoredMatch.from_row(rows[0]) if rows else None

    def finished_match_ids(self, tid: str) -> set[str]:
        """Ids of the tournament's matches already stored."""
        rows = self.conn.execute("SELECT id FROM matches WHERE tournament_id = ?", (tid,))
        return {r[0] for r in rows}

    def match_count(self, tid: str) -> int:
        """Finished matches of the tournament."""
        row = self.conn.execute("SELECT COUNT(*) FROM matches WHERE tournament_id = ?", (tid,))
        return int(row.fetchone()[0])

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

    def match_rows(
        self, *, tid: str | None = None, versions: Sequence[int] | None = None
    ) -> list[StoredMatch]:
        """Stored matches (of one tournament, or with one of ``versions`` seated, or all) in
        schedule order: tournament, round, set, seating."""
        where, params = "1", list[object]()
        if tid is not None:
            where, params = "tournament_id = ?", [tid]
        elif versions is not None:
            seated = among("bot_version_id", versions)
            where = f"id IN (SELECT match_id FROM match_seats WHERE {seated})"
            where += f" AND {counted('tournament_id')}"
            params = [*versions]
        rows = self.db.query(
            f"SELECT * FROM matches WHERE {where} ORDER BY tournament_id, round, set_key, seating",
            params,
        )
        return [StoredMatch.from_row(r) for r in rows]

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
        params: list[object]
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
                f" AND {counted('tournament_id')}"
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
                f"AND {counted('tournament_id')}",
                [*versions],
            ).fetchone()[0]
        )

    def match_listing(
        self, *, bot: str | None = None, tid: str | None = None, limit: int | None = None
    ) -> tuple[list[ListedMatch], int]:
        """Stored matches (with one bot, of one tournament, or all) in schedule order, at
        most ``limit``, and how many there are: each with its seats' bot names, versions
        and the seats that faulted."""
        where, params = clauses(
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

    def match_outcomes(self, tid: str) -> list[tuple[str, int, int, int, int, int, int]]:
        """Every finished match of the tournament as ``(unit, bot0, bot1, bot2, place0,
        place1, place2)``, the unit being its duplicate set and round (``"1,2,5/0"``).

        Plain tuples straight from the ``matches`` table: a refresh of the standings reads
        100,000 matches in a fraction of a second."""
        return self.conn.execute(
            "SELECT set_key || '/' || round, bot0, bot1, bot2, place0, place1, place2 "
            "FROM matches WHERE tournament_id = ? ORDER BY id",
            (tid,),
        ).fetchall()

    def seating_results(self, tid: str) -> list[tuple[int, ...]]:
        """Every stored match of the tournament as ``(round, seating, place0, place1, place2,
        score0, score1, score2, forfeited)``, in round and seating order (a comparison's sets);
        ``forfeited`` has bit ``s`` set when seat ``s`` forfeited the match by a fault."""
        return self.conn.execute(
            "SELECT round, seating, place0, place1, place2, score0, score1, score2, "
            "(SELECT COALESCE(SUM(1 << seat), 0) FROM "
            "(SELECT DISTINCT seat FROM faults f WHERE f.match_id = m.id)) "
            "FROM matches m WHERE tournament_id = ? ORDER BY round, seating",
            (tid,),
        ).fetchall()

    def seat_rows(self, match_id: str) -> list[StoredSeat]:
        """The seats of one match (scores, places, timing), by seat."""
        rows = self.db.query(
            "SELECT * FROM match_seats WHERE match_id = ? ORDER BY seat", [match_id]
        )
        return [StoredSeat.from_row(r) for r in rows]

    def seat_results(self, tid: str) -> list[SeatPlace]:
        """Every stored seat of the tournament with its match's set and round."""
        return [
            SeatPlace(**r)
            for r in self._rows(
                "SELECT s.match_id, m.set_key, m.round, s.seat, s.bot_version_id, s.place, "
                "s.faulted FROM match_seats s JOIN matches m ON m.id = s.match_id "
                "WHERE s.tournament_id = ? ORDER BY s.match_id, s.seat",
                [tid],
            )
        ]

    def duplicate_seats(self, tid: str) -> list[DuplicateSeat]:
        """Every stored seat of the tournament with its duplicate set and round and its match's
        first dealer: the rows :func:`arena.stats.duplicate.seat_records` reads."""
        return [
            DuplicateSeat(**r)
            for r in self._rows(
                "SELECT s.match_id, m.set_key, m.round, s.seat, s.bot_version_id, s.place, "
                "s.faulted, s.score, h.dealer AS first_dealer "
                "FROM match_seats s JOIN matches m ON m.id = s.match_id "
                "LEFT JOIN hands h ON h.match_id = s.match_id AND h.hand_number = 0 "
                "WHERE s.tournament_id = ? ORDER BY s.match_id, s.seat",
                [tid],
            )
        ]

    def seats_in_finish_order(self, tid: str) -> list[FinishedSeat]:
        """Every seat of the tournament in the order its matches finished."""
        rows = self.conn.execute(
            "SELECT s.match_id, m.set_key, m.round, s.bot_version_id, s.place "
            "FROM match_seats s JOIN matches m ON m.id = s.match_id "
            "WHERE s.tournament_id = ? "
            "ORDER BY m.finished_at, m.round, m.set_key, m.seating, s.seat",
            (tid,),
        )
        return [FinishedSeat(*r) for r in rows]

    def place_counts(self, tid: str) -> list[PlaceCount]:
        """Per bot version and place: its matches and faults."""
        rows = self.conn.execute(
            "SELECT bot_version_id, place, COUNT(*), COALESCE(SUM(faulted), 0) "
            "FROM match_seats WHERE tournament_id = ? GROUP BY bot_version_id, place",
            (tid,),
        )
        return [PlaceCount(*r) for r in rows]

    def hand_records(self, match_id: str) -> list[HandRecord]:
        """The full records of a match's hands, in order."""
        rows = self.conn.execute(
            "SELECT record FROM hands WHERE match_id = ? ORDER BY hand_number", (match_id,)
        )
        return [json.loads(r[0]) for r in rows]

    def hand_count(self, tid: str) -> int:
        """Stored hands of the tournament's matches (a passed-out hand is one too): the deals
        :func:`arena.matches.secrecy.verify` checks."""
        row = self.conn.execute(
            "SELECT COUNT(*) FROM hands h JOIN matches m ON m.id = h.match_id "
            "WHERE m.tournament_id = ?",
            (tid,),
        )
        return int(row.fetchone()[0])

    def stored_deals(self, tid: str) -> Iterator[StoredDeal]:
        """Every stored hand's deal, dealer and up-card with its match, in match and hand
        order (what ``arena verify`` recomputes).

        A match without hands still yields one row (its hand columns NULL). ``deal`` is the
        JSON text of the record's deal: only that part of each record is read.
        """
        cur = self.conn.execute(
            "SELECT m.id, m.seed, m.round, m.bot0, m.bot1, m.bot2, m.hands_played, "
            "h.hand_number, h.dealer, h.upcard, json_extract(h.record, '$.deal') AS deal "
            "FROM matches m LEFT JOIN hands h ON h.match_id = m.id "
            "WHERE m.tournament_id = ? ORDER BY m.id, h.hand_number",
            (tid,),
        )
        for mid, seed, round_, b0, b1, b2, played, number, dealer, upcard, deal in cur:
            hand = None if number is None else (number, dealer, upcard, deal)
            yield StoredDeal(mid, seed, round_, (b0, b1, b2), played, hand)

    def duplicate_hands(self, tid: str) -> Iterator[DuplicateHand]:
        """Every stored hand's record with its match's bots, by set, round, match and hand:
        ``(set_key, round, match id, bot0, bot1, bot2, record JSON)``.

        Streamed (a large tournament's records do not fit in memory at once); the order
        brings the six seatings of each duplicate set and round together.
        """
        return self.conn.execute(
            "SELECT m.set_key, m.round, m.id, m.bot0, m.bot1, m.bot2, h.record "
            "FROM matches m JOIN hands h ON h.match_id = m.id "
            "WHERE m.tournament_id = ? ORDER BY m.set_key, m.round, m.id, h.hand_number",
            (tid,),
        )
