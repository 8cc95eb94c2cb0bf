"""Match results in the store: the records workers return, stored in one transaction per
batch and upserted by their natural keys (storing a batch twice changes nothing); the reads
that standings and replays need; the derived tables (standings, reports) replaced whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, cast

from arena.matches.record import MatchRecord
from arena.rules import HandRecord
from arena.stats.standings import PairRow, RatingRow
from arena.store.base import Columns
from arena.store.rows import DuplicateSeat, SeatPlace, StoredDeal, StoredFault, StoredMatch
from arena.store.schema import now
from arena.store.totals import Totals

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


class MatchRecords(Totals):
    """The ``matches``, ``match_seats``, ``hands``, ``faults`` and ``bot_logs`` tables, and
    the tables derived from them (``ratings``, ``pairwise``, the collusion reports)."""

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

    def seat_results(self, tid: str) -> list[SeatPlace]:
        """Every stored seat of the tournament with its match's set and round."""
        return [
            SeatPlace(**r)
            for r in self.rows(
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
            for r in self.rows(
                "SELECT s.match_id, m.set_key, m.round, s.seat, s.bot_version_id, s.place, "
                "s.faulted, s.score, h.dealer AS first_dealer "
                "FROM match_seats s JOIN matches m ON m.id = s.match_id "
                "LEFT JOIN hands h ON h.match_id = s.match_id AND h.hand_number = 0 "
                "WHERE s.tournament_id = ? ORDER BY s.match_id, s.seat",
                [tid],
            )
        ]

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

    def match(self, prefix: str) -> tuple[StoredMatch, list[HandRecord]]:
        """The match whose id starts with ``prefix``, and its hands' full records in order."""
        row = self._by_prefix("matches", "match", prefix)
        hands = [
            json.loads(r["record"])
            for r in self.rows(
                "SELECT record FROM hands WHERE match_id = ? ORDER BY hand_number", [row["id"]]
            )
        ]
        return StoredMatch.from_row(row), hands

    def match_faults(self, match_id: str) -> list[StoredFault]:
        """The faults of one match, by seat."""
        rows = self.db.query("SELECT * FROM faults WHERE match_id = ? ORDER BY seat", [match_id])
        return [StoredFault.from_row(r) for r in rows]

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

    def fault_counts(self, tid: str) -> dict[int, int]:
        """Matches forfeited by a fault, per bot version id."""
        rows = self.conn.execute(
            "SELECT bot_version_id, COUNT(*) FROM faults WHERE tournament_id = ? "
            "GROUP BY bot_version_id",
            (tid,),
        )
        return {int(b): int(n) for b, n in rows}

    def match_count(self, tid: str) -> int:
        """Finished matches of the tournament."""
        row = self.conn.execute("SELECT COUNT(*) FROM matches WHERE tournament_id = ?", (tid,))
        return int(row.fetchone()[0])

    def hand_count(self, tid: str) -> int:
        """Stored hands of the tournament's matches (a passed-out hand is one too): the deals
        :func:`arena.matches.secrecy.verify` checks."""
        row = self.conn.execute(
            "SELECT COUNT(*) FROM hands h JOIN matches m ON m.id = h.match_id "
            "WHERE m.tournament_id = ?",
            (tid,),
        )
        return int(row.fetchone()[0])

    def read_standings(self, tid: str) -> tuple[list[RatingRow], list[PairRow]]:
        """The stored ``ratings`` and ``pairwise`` rows of tournament ``tid``."""
        ratings = self.rows("SELECT * FROM ratings WHERE tournament_id = ?", [tid])
        pairs = self.rows("SELECT * FROM pairwise WHERE tournament_id = ?", [tid])
        # Every column of the table, by name: the rows the types say.
        return cast("list[RatingRow]", ratings), cast("list[PairRow]", pairs)

    def write_standings(
        self, tid: str, ratings: Sequence[RatingRow], pairwise: Sequence[PairRow]
    ) -> None:
        """Replace the stored ``ratings`` and ``pairwise`` rows of tournament ``tid``."""
        with self._transaction():
            self.conn.execute("DELETE FROM ratings WHERE tournament_id = ?", (tid,))
            self.conn.execute("DELETE FROM pairwise WHERE tournament_id = ?", (tid,))
            # The reports were made from the old standings (cycles, kingmaking): dropped.
            self.conn.execute("DELETE FROM reports WHERE tournament_id = ?", (tid,))
            if ratings:
                self.db.table("ratings").insert_all(dict(r) for r in ratings)
            if pairwise:
                self.db.table("pairwise").insert_all(dict(p) for p in pairwise)

    def read_reports(self, tid: str) -> tuple[int, Mapping[str, object]] | None:
        """The reports stored with tournament ``tid``'s standings: the matches they were made
        from and their JSON object (None when there are none)."""
        row = self.conn.execute(
            "SELECT matches, body FROM reports WHERE tournament_id = ?", (tid,)
        ).fetchone()
        return None if row is None else (int(row[0]), json.loads(row[1]))

    def write_reports(self, tid: str, matches: int, body: Mapping[str, object]) -> None:
        """Store the reports of tournament ``tid`` made from ``matches`` stored matches (a
        cache: :meth:`write_standings` drops them)."""
        with self._transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO reports (tournament_id, matches, body, computed_at) "
                "VALUES (?, ?, ?, ?)",
                (tid, matches, json.dumps(body, separators=(",", ":")), now()),
            )

    def replace_tournament_rows(
        self, tid: str, tables: Mapping[str, Sequence[Mapping[str, object]]]
    ) -> None:
        """Replace the rows of tournament ``tid`` in each of ``tables`` (a table's name to its
        rows, each a column name to its value) in one transaction."""
        with self._transaction():
            for table, rows in tables.items():
                self.conn.execute(f"DELETE FROM [{table}] WHERE tournament_id = ?", (tid,))
                if rows:
                    self.db.table(table).insert_all(dict(r) for r in rows)

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

    def duplicate_hands(self, tid: str) -> Iterator[tuple[Any, ...]]:
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

    def fault_decisions(self, tid: str) -> list[tuple[str, int, int | None]]:
        """Every fault of the tournament as ``(match id, seat, decision)`` (decision None:
        while loading)."""
        return self.conn.execute(
            "SELECT match_id, seat, decision FROM faults WHERE tournament_id = ?", (tid,)
        ).fetchall()
