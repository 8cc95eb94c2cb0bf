"""Standings and reports in the store: the tables derived from a tournament's matches and
replaced whole (``ratings``, ``pairwise``, the collusion reports ``clone_pairs`` and
``kingmaking``, and the ``reports`` cache), a ladder's own ratings, and the fingerprints of
them that an incremental render of the site compares.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TypedDict, cast

from arena.stats.collusion import ClonePairDict, KingmakingDict
from arena.stats.standings import PairRow, RatingRow
from arena.store.base import StoreBase, fingerprint
from arena.store.kinds import KINDS
from arena.store.rows import CachedReports, FlaggedClone
from arena.store.schema import LADDER, now
from arena.store.tournaments import LADDER_STATE

LADDER_KINDS = ",".join(f"'{k.name}'" for k in KINDS.values() if k.ladder)
"""The ladders' kinds, for SQL's ``kind IN (...)``."""


class LadderLine(TypedDict):
    """A bot's line of a ladder's own ratings (:meth:`StandingStore.write_ladder_standings`)."""

    bot_version_id: int
    rating: float
    rating_low: float | None
    rating_high: float | None
    units: int


class StandingStore(StoreBase):
    """The ``ratings``, ``pairwise``, ``clone_pairs``, ``kingmaking`` and ``reports`` tables."""

    def read_standings(self, tid: str) -> tuple[list[RatingRow], list[PairRow]]:
        """The stored ``ratings`` and ``pairwise`` rows of tournament ``tid``."""
        ratings = self._rows("SELECT * FROM ratings WHERE tournament_id = ?", [tid])
        pairs = self._rows("SELECT * FROM pairwise WHERE tournament_id = ?", [tid])
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

    def write_ladder_standings(self, lid: str, lines: Sequence[LadderLine]) -> None:
        """Replace the ladder's ``ratings`` rows with ``lines`` (``bot_version_id``,
        ``rating``, ``rating_low``, ``rating_high``, ``units``), counting each bot's matches,
        wins, mean place and faults from its stored seats."""
        stamp = now()
        tally = {
            r[0]: r[1:]
            for r in self.conn.execute(
                "SELECT bot_version_id, COUNT(*), SUM(place = 1), AVG(place), SUM(faulted) "
                "FROM match_seats WHERE tournament_id = ? GROUP BY bot_version_id",
                (lid,),
            )
        }
        names = {r[0]: r[1] for r in self.conn.execute("SELECT id, name FROM bot_versions")}
        rows = []
        for rank, line in enumerate(lines, 1):
            bot = line["bot_version_id"]
            matches, wins, mean, faults = tally.get(bot, (0, 0, None, 0))
            rows.append(
                {
                    **line,
                    "tournament_id": lid,
                    "name": names[bot],
                    "rank": rank,
                    "rating_bound": None,
                    "matches": matches,
                    "wins": wins or 0,
                    "mean_place": mean,
                    "faults": faults or 0,
                    "method": LADDER,
                    "computed_at": stamp,
                }
            )
        self.replace_tournament_rows(lid, {"ratings": rows})

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

    def read_reports(self, tid: str) -> CachedReports | None:
        """The reports stored with tournament ``tid``'s standings: the matches they were made
        from and their JSON object (None when there are none)."""
        row = self.conn.execute(
            "SELECT matches, body FROM reports WHERE tournament_id = ?", (tid,)
        ).fetchone()
        return None if row is None else CachedReports(int(row[0]), json.loads(row[1]))

    def write_reports(self, tid: str, matches: int, body: Mapping[str, object]) -> None:
        """Store the reports of tournament ``tid`` made from ``matches`` stored matches (a
        cache: :meth:`write_standings` drops them)."""
        with self._transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO reports (tournament_id, matches, body, computed_at) "
                "VALUES (?, ?, ?, ?)",
                (tid, matches, json.dumps(body, separators=(",", ":")), now()),
            )

    def report_rows(self, tid: str) -> tuple[list[ClonePairDict], list[KingmakingDict]]:
        """The stored clone pairs (most identical first) and kingmaking rows (flagged first)
        of tournament ``tid``."""
        clones, kingmaking = (
            self._rows(
                "SELECT * FROM clone_pairs WHERE tournament_id = ? "
                "ORDER BY share DESC, bot_a, bot_b",
                [tid],
            ),
            self._rows(
                "SELECT * FROM kingmaking WHERE tournament_id = ? "
                "ORDER BY flagged DESC, bot_a, bot_b",
                [tid],
            ),
        )
        # Every column of each table, by name (and its tournament_id).
        return cast("list[ClonePairDict]", clones), cast("list[KingmakingDict]", kingmaking)

    def standings_state(self, tid: str) -> str:
        """A fingerprint of the tournament's stored standings: its ``ratings`` rows and an
        aggregate of its ``pairwise`` rows (what a ladder's head-to-head shows)."""
        parts = [self.conn.execute(sql, (tid,)).fetchall() for sql in LADDER_STATE[:2]]
        return fingerprint([tuple(tuple(r) for r in p) for p in parts])

    def standings_time(self, tid: str) -> str | None:
        """When the tournament's stored standings were computed (None: none stored)."""
        row = self.conn.execute(
            "SELECT MAX(computed_at) FROM ratings WHERE tournament_id = ?", (tid,)
        ).fetchone()
        return None if row is None else row[0]

    def rating_states(self) -> dict[int, str]:
        """Per bot version: a fingerprint of its rows of ``ratings`` in ladders (one per
        ladder). (A round robin's are derived from its matches: see
        :meth:`arena.store.Store.tournament_states`.)"""
        rows: dict[int, list[tuple[object, ...]]] = {}
        for r in self.conn.execute(
            "SELECT * FROM ratings WHERE tournament_id IN "
            f"(SELECT id FROM tournaments WHERE kind IN ({LADDER_KINDS})) "
            "ORDER BY tournament_id, bot_version_id"
        ).fetchall():
            rows.setdefault(int(r[1]), []).append(tuple(r))
        return {v: fingerprint(rs) for v, rs in rows.items()}

    def flagged_clone_pairs(self) -> list[FlaggedClone]:
        """Every flagged row of ``clone_pairs`` (any tournament), the most alike first."""
        rows = self.conn.execute(
            "SELECT tournament_id, bot_a, bot_b, comparable, identical, share FROM clone_pairs"
            " WHERE flagged = 1 ORDER BY share DESC, bot_a, bot_b"
        )
        return [FlaggedClone(*r) for r in rows]
