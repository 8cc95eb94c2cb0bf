"""What the static site (:mod:`arena.site`) reads from the store: read-only queries that never
select a bot's ``source``.

The site turns these rows into its page values (:mod:`arena.site.data`); everything in them
that a bot author controls (names, authors, file names, fault messages, logs) is untrusted
text, escaped by the templates.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from arena.rules import HandRecord
from arena.stats.collusion import ClonePairDict, KingmakingDict
from arena.store.base import StoreBase
from arena.store.kinds import HUMAN_OWNER
from arena.store.rows import (
    FinishedSeat,
    LogText,
    PlaceCount,
    PlaceTotal,
    SeatTiming,
    StoredBot,
    StoredFault,
    StoredMatch,
    StoredSeat,
    VersionRef,
    VersionSummary,
)
from arena.store.schema import LADDER, ROUND_ROBIN


def _among(column: str, ids: Sequence[int]) -> str:
    """``column IN (?, ?, ...)`` for ``len(ids)`` parameters."""
    return f"{column} IN ({','.join('?' * len(ids))})"


def _ranked(column: str) -> str:
    """``column`` (a tournament id) is a round robin's or a ladder's: what a bot page counts.
    A comparison (``arena compare``) has its own page and stays off the bot pages."""
    return f"{column} IN (SELECT id FROM tournaments WHERE kind IN ('{ROUND_ROBIN}', '{LADDER}'))"


class PageReads(StoreBase):
    """The site's queries: bots and versions, entrants, matches, faults, hands, logs, reports."""

    def bot_rows(self) -> list[StoredBot]:
        """Every bot, oldest first (not the stand-ins of people in human games)."""
        rows = self.conn.execute(
            "SELECT id, name, created_at FROM bots WHERE owner IS NOT ? ORDER BY id", (HUMAN_OWNER,)
        )
        return [StoredBot(*r) for r in rows]

    def version_refs(self) -> list[VersionRef]:
        """Every bot version (no source), with its bot's latest version number and whether
        its bot is retired."""
        rows = self.conn.execute(
            "SELECT v.id, v.bot_id, v.name, v.version, v.author, "
            "(SELECT MAX(version) FROM bot_versions w WHERE w.bot_id = v.bot_id) AS latest, "
            "(SELECT retired_at IS NOT NULL FROM bots b WHERE b.id = v.bot_id) AS retired "
            "FROM bot_versions v"
        )
        return [VersionRef(r[0], r[1], r[2], r[3], r[4], r[5], retired=bool(r[6])) for r in rows]

    def entrant_ids(self, tid: str) -> list[int]:
        """The ids of the bot versions entered in tournament ``tid``."""
        rows = self.conn.execute(
            "SELECT bot_version_id FROM tournament_bots WHERE tournament_id = ?", (tid,)
        )
        return [r[0] for r in rows]

    def place_counts(self, tid: str) -> list[PlaceCount]:
        """Per bot version and place: its matches and faults."""
        rows = self.conn.execute(
            "SELECT bot_version_id, place, COUNT(*), COALESCE(SUM(faulted), 0) "
            "FROM match_seats WHERE tournament_id = ? GROUP BY bot_version_id, place",
            (tid,),
        )
        return [PlaceCount(*r) for r in rows]

    def place_totals(self, tid: str) -> list[PlaceTotal]:
        """Per bot version of the tournament: its matches in each place, the sum of its places
        and its matches forfeited by a fault, from the running totals."""
        rows = self.conn.execute(
            "SELECT bot_version_id, place1, place2, place3, seats, place_sum, faulted "
            "FROM seat_totals WHERE tournament_id = ? ORDER BY bot_version_id",
            (tid,),
        )
        return [PlaceTotal(v, (p1, p2, p3), n, ps, f) for v, p1, p2, p3, n, ps, f in rows]

    def match_rows(
        self, *, tid: str | None = None, versions: Sequence[int] | None = None
    ) -> list[StoredMatch]:
        """Stored matches (of one tournament, or with one of ``versions`` seated, or all) in
        schedule order: tournament, round, set, seating."""
        where, params = "1", list[Any]()
        if tid is not None:
            where, params = "tournament_id = ?", [tid]
        elif versions is not None:
            seated = _among("bot_version_id", versions)
            where = f"id IN (SELECT match_id FROM match_seats WHERE {seated})"
            where += f" AND {_ranked('tournament_id')}"
            params = [*versions]
        rows = self.db.query(
            f"SELECT * FROM matches WHERE {where} ORDER BY tournament_id, round, set_key, seating",
            params,
        )
        return [StoredMatch.from_row(r) for r in rows]

    def fault_rows(
        self, *, match_id: str | None = None, versions: Sequence[int] | None = None
    ) -> list[StoredFault]:
        """Stored faults of one match or of some bot versions, in tournament and match order."""
        params: list[Any]
        if match_id is not None:
            where, params = "match_id = ?", [match_id]
        else:
            where = f"{_among('bot_version_id', versions or [])} AND {_ranked('tournament_id')}"
            params = [*(versions or [])]
        rows = self.db.query(
            f"SELECT * FROM faults WHERE {where} ORDER BY tournament_id, match_id, seat", params
        )
        return [StoredFault.from_row(r) for r in rows]

    def hand_records(self, match_id: str) -> list[HandRecord]:
        """The full records of a match's hands, in order."""
        rows = self.conn.execute(
            "SELECT record FROM hands WHERE match_id = ? ORDER BY hand_number", (match_id,)
        )
        return [json.loads(r[0]) for r in rows]

    def seat_rows(self, match_id: str) -> list[StoredSeat]:
        """The seats of one match (scores, places, timing), by seat."""
        rows = self.db.query(
            "SELECT * FROM match_seats WHERE match_id = ? ORDER BY seat", [match_id]
        )
        return [StoredSeat.from_row(r) for r in rows]

    def match_logs(self, match_id: str) -> dict[int, str]:
        """What each seat's bot printed in one match (capped when stored), by seat."""
        rows = self.conn.execute("SELECT seat, text FROM bot_logs WHERE match_id = ?", (match_id,))
        return {int(seat): text for seat, text in rows}

    def report_rows(self, tid: str) -> tuple[list[ClonePairDict], list[KingmakingDict]]:
        """The stored clone pairs (most identical first) and kingmaking rows (flagged first)
        of tournament ``tid``."""
        clones, kingmaking = (
            self.rows(
                "SELECT * FROM clone_pairs WHERE tournament_id = ? "
                "ORDER BY share DESC, bot_a, bot_b",
                [tid],
            ),
            self.rows(
                "SELECT * FROM kingmaking WHERE tournament_id = ? "
                "ORDER BY flagged DESC, bot_a, bot_b",
                [tid],
            ),
        )
        # Every column of each table, by name (and its tournament_id).
        return cast("list[ClonePairDict]", clones), cast("list[KingmakingDict]", kingmaking)

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

    # -- a bot's page: every version of one bot together -----------------------------------

    def version_rows(self, versions: Sequence[int]) -> list[VersionSummary]:
        """Each version (no source), newest first, with the seats it played in round robins
        and ladders and its mean place there (from the running totals)."""
        rows = self.conn.execute(
            "SELECT v.version, v.sha256, v.filename, v.author, v.submitted_at, "
            "COALESCE(SUM(t.seats), 0), CAST(SUM(t.place_sum) AS REAL) / SUM(t.seats) "
            "FROM bot_versions v LEFT JOIN seat_totals t ON t.bot_version_id = v.id "
            f"AND {_ranked('t.tournament_id')} WHERE {_among('v.id', versions)} "
            "GROUP BY v.id ORDER BY v.version DESC",
            versions,
        )
        return [VersionSummary(*r) for r in rows]

    def opponent_totals(self, versions: Sequence[int]) -> list[dict[str, Any]]:
        """Per opponent version (``ob``) over the matches it shared with these versions: the
        matches (``n``), how often they placed above it (``above``, a tie counting one
        half) and the sum of their places (``pl``), from the running totals."""
        return self.rows(
            "SELECT opponent_id AS ob, SUM(matches) AS n, SUM(above) AS above, "
            "SUM(place_sum) AS pl FROM pair_totals "
            f"WHERE {_among('bot_version_id', versions)} AND {_ranked('tournament_id')} "
            "GROUP BY opponent_id",
            versions,
        )

    def play_counts(self, versions: Sequence[int]) -> dict[str, int]:
        """Over every hand these versions played with a trump named: ``hands``, ``maker``
        (they named it), ``alone``, ``made`` and ``euchred`` (as maker), ``defended`` (scored
        against the maker). Kept as running totals when matches are stored: a bot of a long
        ladder played millions of hands."""
        row = self.rows(
            "SELECT COALESCE(SUM(hands), 0) AS hands, COALESCE(SUM(maker), 0) AS maker, "
            "COALESCE(SUM(alone), 0) AS alone, COALESCE(SUM(made), 0) AS made, "
            "COALESCE(SUM(euchred), 0) AS euchred, COALESCE(SUM(defended), 0) AS defended "
            f"FROM seat_totals WHERE {_among('bot_version_id', versions)} "
            f"AND {_ranked('tournament_id')}",
            versions,
        )[0]
        return {k: int(v) for k, v in row.items()}

    def timing(self, versions: Sequence[int]) -> SeatTiming:
        """What these versions' round-robin and ladder seats add up to: seats, decisions,
        times asked, wall and CPU time thinking (in all, the most in one decision, the most
        in one match), from the running totals."""
        row = self.conn.execute(
            "SELECT COALESCE(SUM(seats), 0), COALESCE(SUM(decisions), 0), "
            "COALESCE(SUM(asked), 0), COALESCE(SUM(think_seconds), 0), "
            "COALESCE(MAX(max_think_seconds), 0), COALESCE(SUM(cpu_seconds), 0), "
            "COALESCE(MAX(max_cpu_seconds), 0), COALESCE(SUM(clock_seconds), 0), "
            "COALESCE(MAX(max_clock_seconds), 0), COALESCE(MAX(max_match_cpu_seconds), 0) "
            f"FROM seat_totals WHERE {_among('bot_version_id', versions)} "
            f"AND {_ranked('tournament_id')}",
            versions,
        ).fetchone()
        return SeatTiming(*row)

    def log_rows(self, versions: Sequence[int], limit: int) -> list[LogText]:
        """What these versions printed in the first ``limit`` matches by id."""
        rows = self.conn.execute(
            "SELECT match_id, text FROM bot_logs "
            f"WHERE {_among('bot_version_id', versions)} "
            f"AND match_id IN (SELECT id FROM matches WHERE {_ranked('tournament_id')}) "
            "ORDER BY match_id LIMIT ?",
            [*versions, limit],
        )
        return [LogText(*r) for r in rows]
