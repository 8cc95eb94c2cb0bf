"""Tournaments in the store (``tournaments``, ``tournament_bots``, ``deal_secrets``): creating
one with its deal secret, its status, its entrants, and the fingerprint of each that an
incremental render of the site compares.

A tournament's row keeps its configuration JSON exactly as planned (its id is the hash of
it, :func:`arena.matches.scheduler.tournament_id`), so a resumed run finds it again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Final

from arena.errors import ArenaError, NotFound
from arena.matches import secrecy
from arena.matches.secrecy import DealSecret
from arena.store.base import Row, StoreBase, fingerprint
from arena.store.bots import BotVersion
from arena.store.kinds import KINDS
from arena.store.rows import ListedTournament, StoredTournament, WorkerCheck
from arena.store.schema import HUMAN, ROUND_ROBIN, now

_ROW_STATE: Final = (
    "SELECT t.*, s.revealed_at FROM tournaments t "
    "JOIN deal_secrets s ON s.id = t.secret_id WHERE t.id = ?",
    # The running totals of its seats (arena.store.totals): seats, last match and seat
    # stored, faults; they change whenever a match is stored.
    "SELECT SUM(seats), MAX(last_match), MAX(last_seat), SUM(faulted) FROM seat_totals "
    "WHERE tournament_id = ?",
    "SELECT * FROM tournament_bots WHERE tournament_id = ? ORDER BY 2",
)
LADDER_STATE: Final = (
    "SELECT * FROM ratings WHERE tournament_id = ? ORDER BY bot_version_id",
    "SELECT COUNT(*), SUM(matches), SUM(above), SUM(low) FROM pairwise WHERE tournament_id = ?",
    "SELECT * FROM ladder_bots WHERE ladder_id = ? ORDER BY bot_version_id",
    "SELECT * FROM ladder_epochs WHERE ladder_id = ? ORDER BY epoch",
    "SELECT COUNT(*), MAX(step), COUNT(finished_at), MAX(finished_at) FROM ladder_sets "
    "WHERE ladder_id = ?",
)
"""What a ladder's pages show beyond its row: its standings (the first two), field, epochs
and sets."""


class TournamentStore(StoreBase):
    """The ``tournaments`` and ``tournament_bots`` tables, with the deal secret of each."""

    def ensure_tournament(
        self,
        tid: str,
        config: Mapping[str, object],
        version_ids: Iterable[int],
        total: int,
        *,
        secret: bytes | None = None,
        kind: str = ROUND_ROBIN,
    ) -> DealSecret:
        """Create the tournament row (or mark an existing one running again); return its secret.

        ``kind`` is :data:`ROUND_ROBIN` or :data:`COMPARE`; ``config["rounds"]`` is the number of
        rounds (for a tournament that stops by its own rule, the most it may play).

        A new tournament takes ``secret`` when given (imported from a secret file), else the
        newest unrevealed secret drawn in this database for its seed, else a fresh one: the
        tournaments of one seed share their deals until one of them finishes and so reveals
        the secret. An existing tournament keeps its own secret; another ``secret`` for it is
        an error.
        """
        with self._transaction():
            return self._put_tournament(tid, config, version_ids, total, secret, kind)

    def _put_tournament(
        self,
        tid: str,
        config: Mapping[str, object],
        version_ids: Iterable[int],
        total: int,
        secret: bytes | None,
        kind: str,
    ) -> DealSecret:
        """:meth:`ensure_tournament` inside the caller's write transaction."""
        stamp = now()
        row = self.conn.execute("SELECT secret_id FROM tournaments WHERE id = ?", (tid,))
        found = row.fetchone()
        if found is not None:
            current = self._secret(found[0])
            if secret is not None and current.secret != secret:
                raise ArenaError(
                    f"tournament {tid} was started with another deal secret than the "
                    "secret file's; rerun it without `secret_file`"
                ).naming("secret_file")
            self.conn.execute(
                "UPDATE tournaments SET status = CASE WHEN status = 'finished' "
                "THEN status ELSE 'running' END, updated_at = ? WHERE id = ?",
                (stamp, tid),
            )
            return current
        seed = config["seed"]
        assert isinstance(seed, int)  # every config has its seed
        chosen = self._choose_secret(seed, secret, stamp)
        self.db.table("tournaments").insert(
            {
                "id": tid,
                "config": json.dumps(config, sort_keys=True),
                "seed": config["seed"],
                "rounds": config["rounds"],
                "rules": json.dumps(config["rules"], sort_keys=True),
                "limits": json.dumps(config["limits"], sort_keys=True),
                "status": "running",
                "total_matches": total,
                "created_at": stamp,
                "updated_at": stamp,
                "finished_at": None,
                "secret_id": chosen.id,
                "kind": kind,
            }
        )
        self.db.table("tournament_bots").insert_all(
            {"tournament_id": tid, "bot_version_id": v} for v in version_ids
        )
        return chosen

    def _secret(self, secret_id: int) -> DealSecret:
        return DealSecret.from_row(
            self._rows("SELECT * FROM deal_secrets WHERE id = ?", [secret_id])[0]
        )

    def _choose_secret(self, seed: int, secret: bytes | None, stamp: str) -> DealSecret:
        """The secret of a new tournament of ``seed``, inside the caller's write transaction.

        ``secret`` (imported from a secret file) is stored once and used as given. Without
        one, the newest secret drawn here for ``seed`` that was never revealed is shared; when
        there is none, a fresh one is drawn. An imported secret is never shared this way: it
        may be public.
        """
        if secret is not None:
            found = self.conn.execute(
                "SELECT id FROM deal_secrets WHERE commitment = ?", (secrecy.commitment(secret),)
            ).fetchone()
            origin = "imported"
        else:
            found = self.conn.execute(
                "SELECT id FROM deal_secrets WHERE seed = ? AND origin = 'drawn' "
                "AND revealed_at IS NULL ORDER BY id DESC LIMIT 1",
                (seed,),
            ).fetchone()
            secret, origin = secrecy.new_secret(), "drawn"
        if found is None:
            cur = self.conn.execute(
                "INSERT INTO deal_secrets (seed, secret, commitment, origin, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (seed, secret.hex(), secrecy.commitment(secret), origin, stamp),
            )
            found = (cur.lastrowid,)
        return self._secret(found[0])

    def set_extent(self, tid: str, rounds: int, total: int) -> None:
        """Record the rounds and matches that a tournament which stops by its own rule (a
        comparison, ``arena run --until-separated``) played in the end; its ``config`` keeps
        the most it could have played, which is part of its identity."""
        with self._transaction():
            self.conn.execute(
                "UPDATE tournaments SET rounds = ?, total_matches = ? WHERE id = ?",
                (rounds, total, tid),
            )

    def tournament_secret(self, tid: str) -> DealSecret | None:
        """The deal secret of tournament ``tid`` (None: no such tournament)."""
        row = self.conn.execute("SELECT secret_id FROM tournaments WHERE id = ?", (tid,))
        found = row.fetchone()
        return None if found is None else self._secret(found[0])

    def record_worker_check(
        self, tid: str, replayed: int, refereed: int, cross_check: float,
        dropped: Mapping[str, str],
    ) -> None:  # fmt: skip
        """Keep what a run on a cluster checked of its workers (names and reasons cleaned to
        one line each by the caller)."""
        with self._transaction():
            cur = self.conn.execute(
                "INSERT INTO worker_checks (tournament_id, ended_at, replayed, refereed, "
                "cross_check) VALUES (?, ?, ?, ?, ?)",
                (tid, now(), replayed, refereed, cross_check),
            )
            self.conn.executemany(
                "INSERT INTO dropped_workers VALUES (?, ?, ?)",
                [(cur.lastrowid, worker, why) for worker, why in dropped.items()],
            )

    def worker_checks(self, tid: str) -> list[WorkerCheck]:
        """What each cluster run of tournament ``tid`` checked of its workers, oldest first
        (empty: it never ran on a cluster)."""
        dropped: dict[int, list[tuple[str, str]]] = {}
        for r in self._rows(
            "SELECT d.check_id, d.worker, d.why FROM dropped_workers d JOIN worker_checks c "
            "ON c.id = d.check_id WHERE c.tournament_id = ? ORDER BY d.rowid", [tid]
        ):  # fmt: skip
            dropped.setdefault(r["check_id"], []).append((r["worker"], r["why"]))
        return [
            WorkerCheck(
                r["ended_at"],
                r["replayed"],
                r["refereed"],
                r["cross_check"],
                tuple(dropped.get(r["id"], ())),
            )  # fmt: skip
            for r in self._rows(
                "SELECT * FROM worker_checks WHERE tournament_id = ? ORDER BY id", [tid]
            )
        ]

    def set_status(self, tid: str, status: str) -> None:
        """Record that the tournament is ``running``, ``interrupted`` or ``finished``.

        Finishing reveals the tournament's deal secret: it is published from then on, and no
        new tournament draws it again.
        """
        with self._transaction():
            self._put_status(tid, status)

    def _put_status(self, tid: str, status: str) -> None:
        """:meth:`set_status` inside the caller's write transaction."""
        stamp = now()
        self.conn.execute(
            "UPDATE tournaments SET status = ?, updated_at = ?, "
            "finished_at = CASE WHEN ? = 'finished' THEN coalesce(finished_at, ?) "
            "ELSE finished_at END WHERE id = ?",
            (status, stamp, status, stamp, tid),
        )
        if status == "finished":
            self.conn.execute(
                "UPDATE deal_secrets SET revealed_at = coalesce(revealed_at, ?) "
                "WHERE id = (SELECT secret_id FROM tournaments WHERE id = ?)",
                (stamp, tid),
            )

    def tournament(
        self, tid: str | None = None, *, prefer: str | None = ROUND_ROBIN
    ) -> StoredTournament:
        """The tournament ``tid`` (a unique prefix will do), or the most recently run one of
        kind ``prefer`` (the latest round robin, by default), else the most recently run one.

        The one rule of every command for "which tournament" when none is named: the latest
        round robin; a comparison is named by its id.

        Its ``status`` is the live one (see :meth:`tournaments`).
        """
        if tid is None:
            rows = self._rows(
                # A human game is one match, never "the latest tournament" of a command.
                "SELECT * FROM tournaments WHERE kind IS NOT ? "
                "ORDER BY kind IS NOT ?, updated_at DESC, rowid DESC",
                [HUMAN, prefer],
            )
            if not rows:
                raise NotFound(f"no tournament in {self.path} yet (run `arena run`)")
            return self._live_tournament(rows[0])
        return self._live_tournament(self._by_prefix("tournaments", "tournament", tid))

    def _live_tournament(self, row: Row) -> StoredTournament:
        return StoredTournament.from_row({**row, "status": self._live(row["id"], row["status"])})

    def tournaments(self) -> list[ListedTournament]:
        """Every tournament with its count of stored matches (``done``) and of their faults
        (``faults``), newest first.

        ``status`` is the live one: ``running`` only while an ``arena run`` of it holds its
        lock (:mod:`arena.store.runlock`), so a run killed with ``kill -9`` reads ``interrupted``.
        Each row also has its secret's ``commitment`` and, only once the tournament has
        finished, ``secret`` (None before).
        """
        rows = self._rows(
            # Counted from the running totals of the seats (arena.store.totals): three seats
            # a match, one fault a seat that forfeited.
            "SELECT t.*, (SELECT COALESCE(SUM(seats), 0) / 3 FROM seat_totals c "
            "WHERE c.tournament_id = t.id) AS done, (SELECT COALESCE(SUM(faulted), 0) "
            "FROM seat_totals c WHERE c.tournament_id = t.id) AS faults, "
            "s.commitment, s.secret FROM tournaments t "
            "JOIN deal_secrets s ON s.id = t.secret_id "
            "ORDER BY t.updated_at DESC, t.rowid DESC"
        )
        out = []
        for r in rows:
            t = self._live_tournament(r)
            secret = secrecy.shown_secret(t.status, r["secret"])
            out.append(ListedTournament(t, r["done"], r["faults"], r["commitment"], secret))
        return out

    def tournament_entrants(self, tid: str) -> list[BotVersion]:
        """The bot versions playing in tournament ``tid``."""
        rows = self._rows(
            "SELECT v.* FROM bot_versions v JOIN tournament_bots t ON t.bot_version_id = v.id "
            "WHERE t.tournament_id = ? ORDER BY v.name",
            [tid],
        )
        return [BotVersion.from_row(r) for r in rows]

    def entrant_ids(self, tid: str) -> list[int]:
        """The ids of the bot versions entered in tournament ``tid``."""
        rows = self.conn.execute(
            "SELECT bot_version_id FROM tournament_bots WHERE tournament_id = ?", (tid,)
        )
        return [r[0] for r in rows]

    def has_tournament(self, tid: str) -> bool:
        """Whether a tournament of this exact id is stored."""
        found = self.conn.execute("SELECT 1 FROM tournaments WHERE id = ?", (tid,)).fetchone()
        return found is not None

    def tournament_states(self) -> dict[str, str]:
        """A fingerprint per tournament of everything its pages show: its row and secret, its
        matches (count, last row), entrants and ladder rows, and a ladder's standings. It
        changes whenever any of them does (what an incremental render compares).

        A round robin's standings, pairwise, clone, kingmaking and duplicate reports are
        derived from its matches (and cached by the render itself when stale): its matches
        stand for them. A ladder keeps its own standings, updated as it goes: they count."""
        out: dict[str, str] = {}
        for tid, kind in self.conn.execute("SELECT id, kind FROM tournaments ORDER BY id"):
            queries = _ROW_STATE + (LADDER_STATE if KINDS[kind].ladder else ())
            parts = [self.conn.execute(sql, (tid,)).fetchall() for sql in queries]
            out[tid] = fingerprint([tuple(tuple(r) for r in p) for p in parts])
        return out
