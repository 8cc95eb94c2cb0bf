"""Running totals of the stored matches, per tournament and bot version (``seat_totals``) and
per tournament and pair of versions (``pair_totals``), kept in the transaction that stores
the matches.

The pages of the site and the listings read these instead of summing a bot's whole history:
what one more set costs stays what the set changed, whatever the age of the database. Each
total is defined by the same SQL over the stored rows that the pages used to run (the
:data:`_SEAT_SQL` and :data:`_PAIR_SQL` aggregates): storing new matches adds that aggregate
over them; storing a match again (an upsert) recomputes the totals it touches from every
stored row; :meth:`TotalStore.totals_problems` compares the stored totals with a full
recomputation (``arena verify`` and the tests run it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from arena.store.base import StoreBase, among, counted
from arena.store.rows import OpponentTotal, PlaceTotal, PlayCounts, SeatTiming

SEAT_COLUMNS: Final = (
    "seats", "place1", "place2", "place3", "place_sum", "faulted",
    "decisions", "asked", "think_seconds", "max_think_seconds", "cpu_seconds",
    "max_cpu_seconds", "clock_seconds", "max_clock_seconds", "max_match_cpu_seconds",
    "last_seat", "last_match",
    "hands", "maker", "alone", "made", "euchred", "defended",
)  # fmt: skip
"""The columns of ``seat_totals`` after its key (``tournament_id``, ``bot_version_id``)."""

_MAXED: Final = frozenset(
    ["max_think_seconds", "max_cpu_seconds", "max_clock_seconds", "max_match_cpu_seconds",
     "last_seat", "last_match"]
)  # fmt: skip
"""Columns kept as a running maximum; every other one is a running sum."""

PAIR_COLUMNS: Final = ("matches", "above", "place_sum")
"""The columns of ``pair_totals`` after its key (``tournament_id``, ``bot_version_id``,
``opponent_id``)."""

_POINT: Final = "json_extract(h.points, '$[' || s.seat || ']')"

_SEAT_SQL: Final = (
    "SELECT s.tournament_id, s.bot_version_id, COUNT(*), SUM(s.place = 1), SUM(s.place = 2), "
    "SUM(s.place = 3), SUM(s.place), SUM(s.faulted), SUM(s.decisions), SUM(s.asked), "
    "SUM(s.think_seconds), MAX(s.max_think_seconds), SUM(s.cpu_seconds), "
    "MAX(s.max_cpu_seconds), SUM(s.clock_seconds), MAX(s.clock_seconds), MAX(s.cpu_seconds), "
    "MAX(s.rowid), MAX(m.rowid), "
    "COALESCE(SUM(p.hands), 0), COALESCE(SUM(p.maker), 0), COALESCE(SUM(p.alone), 0), "
    "COALESCE(SUM(p.made), 0), COALESCE(SUM(p.euchred), 0), COALESCE(SUM(p.defended), 0) "
    "FROM match_seats s JOIN matches m ON m.id = s.match_id LEFT JOIN ("
    # Per seat, over the hands of its match with a trump named: what the bot page's play
    # statistics count (`alone` is a JSON list of seats 0..2: the digit is there or not).
    "SELECT s.match_id, s.seat, COUNT(*) AS hands, SUM(h.maker = s.seat) AS maker, "
    "SUM(instr(h.alone, s.seat) > 0) AS alone, "
    f"SUM(h.maker = s.seat AND {_POINT} > 0) AS made, "
    f"SUM(h.maker = s.seat AND {_POINT} <= 0) AS euchred, "
    f"SUM(h.maker != s.seat AND {_POINT} > 0) AS defended "
    "FROM match_seats s JOIN hands h ON h.match_id = s.match_id "
    "WHERE h.trump IS NOT NULL AND {where} GROUP BY s.match_id, s.seat"
    ") p ON p.match_id = s.match_id AND p.seat = s.seat "
    "WHERE {where} GROUP BY s.tournament_id, s.bot_version_id"
)
"""Every ``seat_totals`` column over the seats that ``{where}`` (a condition on ``s``)
selects."""

_PAIR_SQL: Final = (
    "SELECT a.tournament_id, a.bot_version_id, b.bot_version_id, COUNT(*), "
    "SUM(CASE WHEN a.place < b.place THEN 1.0 WHEN a.place = b.place THEN 0.5 ELSE 0.0 END), "
    "SUM(a.place) FROM match_seats a JOIN match_seats b "
    "ON a.match_id = b.match_id AND a.seat != b.seat "
    "WHERE {where} GROUP BY a.tournament_id, a.bot_version_id, b.bot_version_id"
)
"""Every ``pair_totals`` column over the seats ``a`` that ``{where}`` selects."""

_NEW: Final = "match_id IN (SELECT id FROM temp.totals_new)"


def _upsert(table: str, key: Sequence[str], columns: Sequence[str]) -> str:
    """``INSERT ... SELECT`` that adds a selected aggregate to the stored one."""
    sets = ", ".join(
        f"{c} = max({c}, excluded.{c})" if c in _MAXED else f"{c} = {c} + excluded.{c}"
        for c in columns
    )
    names = ", ".join([*key, *columns])
    conflict = ", ".join(key)
    return f"INSERT INTO {table} ({names}) {{select}} ON CONFLICT ({conflict}) DO UPDATE SET {sets}"


_SEAT_KEY: Final = ("tournament_id", "bot_version_id")
_PAIR_KEY: Final = ("tournament_id", "bot_version_id", "opponent_id")


class TotalStore(StoreBase):
    """The ``seat_totals`` and ``pair_totals`` tables: kept by :meth:`_add_totals`, read by
    the pages and listings, checked by :meth:`totals_problems`."""

    def _add_totals(self, match_ids: Sequence[str], existed: bool) -> None:
        """Add the matches ``match_ids``, just upserted, to the totals (inside the caller's
        transaction). ``existed``: some of them were stored before this upsert, so the totals
        of their tournaments and versions are recomputed from every stored row instead."""
        conn = self.conn
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS totals_new (id TEXT PRIMARY KEY)")
        conn.execute("DELETE FROM temp.totals_new")
        conn.executemany(
            "INSERT OR IGNORE INTO temp.totals_new VALUES (?)", [(m,) for m in match_ids]
        )
        if existed:
            self._recompute_touched()
        else:
            seat_where = f"s.{_NEW}"
            conn.execute(
                _upsert("seat_totals", _SEAT_KEY, SEAT_COLUMNS).format(
                    select=_SEAT_SQL.format(where=seat_where)
                )
            )
            conn.execute(
                _upsert("pair_totals", _PAIR_KEY, PAIR_COLUMNS).format(
                    select=_PAIR_SQL.format(where=f"a.{_NEW}")
                )
            )
        conn.execute("DELETE FROM temp.totals_new")

    def _recompute_touched(self) -> None:
        """Recompute from every stored row the totals of each (tournament, version) seated
        in the matches of ``temp.totals_new`` (a batch stored again)."""
        touched = self.conn.execute(
            f"SELECT DISTINCT tournament_id, bot_version_id FROM match_seats WHERE {_NEW}"
        ).fetchall()
        for tid, version in touched:
            self.conn.execute(
                "DELETE FROM seat_totals WHERE tournament_id = ? AND bot_version_id = ?",
                (tid, version),
            )
            self.conn.execute(
                "DELETE FROM pair_totals WHERE tournament_id = ? AND bot_version_id = ?",
                (tid, version),
            )
            seat = "s.tournament_id = ? AND s.bot_version_id = ?"
            sql = _SEAT_SQL.format(where=seat)
            self.conn.execute(
                f"INSERT INTO seat_totals ({', '.join([*_SEAT_KEY, *SEAT_COLUMNS])}) {sql}",
                (tid, version, tid, version),
            )
            pair = "a.tournament_id = ? AND a.bot_version_id = ?"
            self.conn.execute(
                f"INSERT INTO pair_totals ({', '.join([*_PAIR_KEY, *PAIR_COLUMNS])}) "
                + _PAIR_SQL.format(where=pair),
                (tid, version),
            )

    def rebuild_totals(self) -> None:
        """Recompute every total from the stored rows (for a database whose matches were
        written around the store, e.g. copied in SQL)."""
        with self._transaction():
            self.conn.execute("DELETE FROM seat_totals")
            self.conn.execute("DELETE FROM pair_totals")
            self.conn.execute(
                f"INSERT INTO seat_totals ({', '.join([*_SEAT_KEY, *SEAT_COLUMNS])}) "
                + _SEAT_SQL.format(where="1")
            )
            self.conn.execute(
                f"INSERT INTO pair_totals ({', '.join([*_PAIR_KEY, *PAIR_COLUMNS])}) "
                + _PAIR_SQL.format(where="1")
            )

    def totals_problems(self, tid: str | None = None) -> list[str]:
        """Where the stored totals (of the tournament ``tid``, or of all) differ from a
        recomputation over every stored match, one line each (empty: they agree). Sums of
        seconds agree to a relative 1e-9 (the order of a floating-point sum)."""
        out: list[str] = []
        for table, key, columns, sql in (
            ("seat_totals", _SEAT_KEY, SEAT_COLUMNS, _SEAT_SQL.format(where="1")),
            ("pair_totals", _PAIR_KEY, PAIR_COLUMNS, _PAIR_SQL.format(where="1")),
        ):
            n = len(key)
            want = {tuple(r[:n]): r[n:] for r in self.conn.execute(sql)}
            names = ", ".join([*key, *columns])
            have = {tuple(r[:n]): r[n:] for r in self.conn.execute(f"SELECT {names} FROM {table}")}
            for k in sorted(set(want) | set(have), key=repr):
                if tid is not None and k[0] != tid:
                    continue
                a, b = have.get(k), want.get(k)
                if a is None or b is None:
                    out.append(f"{table} {k}: {'missing' if a is None else 'no such seats'}")
                    continue
                for c, x, y in zip(columns, a, b, strict=True):
                    if not _same(x, y):
                        out.append(f"{table} {k} {c}: stored {x}, recomputed {y}")
        return out

    def place_totals(self, tid: str) -> list[PlaceTotal]:
        """Per bot version of the tournament: its matches in each place, the sum of its places
        and its matches forfeited by a fault, from the running totals."""
        rows = self.conn.execute(
            "SELECT bot_version_id, place1, place2, place3, seats, place_sum, faulted "
            "FROM seat_totals WHERE tournament_id = ? ORDER BY bot_version_id",
            (tid,),
        )
        return [PlaceTotal(v, (p1, p2, p3), n, ps, f) for v, p1, p2, p3, n, ps, f in rows]

    def opponent_totals(self, versions: Sequence[int]) -> list[OpponentTotal]:
        """Per opponent version over the matches it shared with these versions (in round
        robins and ladders): the matches, how often they placed above it (a tie counting one
        half) and the sum of their places, from the running totals."""
        rows = self.conn.execute(
            "SELECT opponent_id, SUM(matches), SUM(above), SUM(place_sum) FROM pair_totals "
            f"WHERE {among('bot_version_id', versions)} AND {counted('tournament_id')} "
            "GROUP BY opponent_id",
            versions,
        )
        return [OpponentTotal(*r) for r in rows]

    def play_counts(self, versions: Sequence[int]) -> PlayCounts:
        """Over every hand these versions played with a trump named: ``hands``, ``maker``
        (they named it), ``alone``, ``made`` and ``euchred`` (as maker), ``defended`` (scored
        against the maker). Kept as running totals when matches are stored: a bot of a long
        ladder played millions of hands."""
        row = self.conn.execute(
            "SELECT COALESCE(SUM(hands), 0), COALESCE(SUM(maker), 0), COALESCE(SUM(alone), 0), "
            "COALESCE(SUM(made), 0), COALESCE(SUM(euchred), 0), COALESCE(SUM(defended), 0) "
            f"FROM seat_totals WHERE {among('bot_version_id', versions)} "
            f"AND {counted('tournament_id')}",
            versions,
        ).fetchone()
        return PlayCounts(*(int(v) for v in row))

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
            f"FROM seat_totals WHERE {among('bot_version_id', versions)} "
            f"AND {counted('tournament_id')}",
            versions,
        ).fetchone()
        return SeatTiming(*row)

    def seat_states(self) -> dict[int, tuple[int, int]]:
        """Per bot version: its seats stored and the last seat row written (from the running
        totals)."""
        rows = self.conn.execute(
            "SELECT bot_version_id, SUM(seats), MAX(last_seat) FROM seat_totals "
            "GROUP BY bot_version_id"
        )
        return {int(v): (int(n), int(last)) for v, n, last in rows}


def _same(x: Any, y: Any) -> bool:
    if isinstance(x, float) or isinstance(y, float):
        return x is not None and y is not None and math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    return bool(x == y)
