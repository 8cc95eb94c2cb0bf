"""The SQLite store (``arena.db``) through sqlite-utils: migrations, bots, tournaments, results.

Only the parent process writes (workers return plain records); writes are batched, one
transaction per batch, and idempotent: every row is upserted by its natural key, so storing a
batch twice changes nothing. The schema is documented for users in ``docs/schema.md``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import sqlite_utils

from arena import dbfile, secrecy
from arena.errors import ArenaError
from arena.secrecy import DealSecret

LOG_CAP: Final = 8192
"""Characters of a bot's output kept per match and seat."""

ROUND_ROBIN: Final = "round-robin"
"""The ``kind`` of a duplicate round-robin tournament (``arena run``)."""

COMPARE: Final = "compare"
"""The ``kind`` of a sequential comparison of two bots (``arena compare``)."""


def now() -> str:
    """The current UTC time as stored: ``2026-11-30T09:12:03Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sha256_text(source: str) -> str:
    """The hex SHA-256 of a bot's source (UTF-8)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


# --- migrations -------------------------------------------------------------------------------


def _script(db: sqlite_utils.Database, sql: str) -> None:
    # Not executescript(): that commits first, and a migration must be one transaction.
    for statement in sql.split(";"):
        if statement.strip():
            db.conn.execute(statement)


def _m1_core(db: sqlite_utils.Database) -> None:
    _script(
        db,
        """
        CREATE TABLE bots (
            id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
        CREATE TABLE bot_versions (
            id INTEGER PRIMARY KEY, bot_id INTEGER NOT NULL REFERENCES bots(id),
            version INTEGER NOT NULL, sha256 TEXT NOT NULL, source TEXT NOT NULL,
            filename TEXT NOT NULL, name TEXT NOT NULL, author TEXT,
            submitted_at TEXT NOT NULL, UNIQUE (bot_id, version));
        CREATE TABLE tournaments (
            id TEXT PRIMARY KEY, config TEXT NOT NULL, seed INTEGER NOT NULL,
            rounds INTEGER NOT NULL, rules TEXT NOT NULL, limits TEXT NOT NULL,
            status TEXT NOT NULL, total_matches INTEGER NOT NULL,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL, finished_at TEXT);
        CREATE TABLE tournament_bots (
            tournament_id TEXT NOT NULL REFERENCES tournaments(id),
            bot_version_id INTEGER NOT NULL REFERENCES bot_versions(id),
            PRIMARY KEY (tournament_id, bot_version_id));
        CREATE TABLE matches (
            id TEXT PRIMARY KEY, tournament_id TEXT NOT NULL REFERENCES tournaments(id),
            set_key TEXT NOT NULL, round INTEGER NOT NULL, seating INTEGER NOT NULL,
            seed INTEGER NOT NULL,
            bot0 INTEGER NOT NULL REFERENCES bot_versions(id),
            bot1 INTEGER NOT NULL REFERENCES bot_versions(id),
            bot2 INTEGER NOT NULL REFERENCES bot_versions(id),
            score0 INTEGER NOT NULL, score1 INTEGER NOT NULL, score2 INTEGER NOT NULL,
            place0 INTEGER NOT NULL, place1 INTEGER NOT NULL, place2 INTEGER NOT NULL,
            hands_played INTEGER NOT NULL, truncated INTEGER NOT NULL, faults INTEGER NOT NULL,
            duration_seconds REAL NOT NULL, status TEXT NOT NULL, finished_at TEXT NOT NULL);
        CREATE TABLE match_seats (
            match_id TEXT NOT NULL REFERENCES matches(id), seat INTEGER NOT NULL,
            tournament_id TEXT NOT NULL,
            bot_version_id INTEGER NOT NULL REFERENCES bot_versions(id),
            score INTEGER NOT NULL, place INTEGER NOT NULL, faulted INTEGER NOT NULL,
            decisions INTEGER NOT NULL, asked INTEGER NOT NULL, think_seconds REAL NOT NULL,
            max_think_seconds REAL NOT NULL, cpu_seconds REAL NOT NULL,
            PRIMARY KEY (match_id, seat));
        CREATE TABLE hands (
            match_id TEXT NOT NULL REFERENCES matches(id), hand_number INTEGER NOT NULL,
            dealer INTEGER NOT NULL, upcard TEXT NOT NULL, trump TEXT, maker INTEGER,
            alone TEXT NOT NULL, sitting_out INTEGER, passed_out INTEGER NOT NULL,
            tricks_won TEXT NOT NULL, points TEXT NOT NULL, scores_before TEXT NOT NULL,
            record TEXT NOT NULL, PRIMARY KEY (match_id, hand_number));
        CREATE TABLE faults (
            match_id TEXT NOT NULL REFERENCES matches(id), seat INTEGER NOT NULL,
            tournament_id TEXT NOT NULL,
            bot_version_id INTEGER NOT NULL REFERENCES bot_versions(id),
            kind TEXT NOT NULL, message TEXT NOT NULL, decision INTEGER,
            PRIMARY KEY (match_id, seat));
        CREATE TABLE bot_logs (
            match_id TEXT NOT NULL REFERENCES matches(id), seat INTEGER NOT NULL,
            bot_version_id INTEGER NOT NULL, text TEXT NOT NULL, truncated INTEGER NOT NULL,
            PRIMARY KEY (match_id, seat));
        CREATE INDEX matches_tournament ON matches (tournament_id);
        CREATE INDEX match_seats_bot ON match_seats (tournament_id, bot_version_id);
        """,
    )


def _m2_ratings(db: sqlite_utils.Database) -> None:
    _script(
        db,
        """
        CREATE TABLE ratings (
            tournament_id TEXT NOT NULL, bot_version_id INTEGER NOT NULL, name TEXT NOT NULL,
            rank INTEGER NOT NULL, rating REAL NOT NULL, rating_low REAL,
            rating_high REAL, matches INTEGER NOT NULL, wins INTEGER NOT NULL,
            mean_place REAL, faults INTEGER NOT NULL, computed_at TEXT NOT NULL,
            PRIMARY KEY (tournament_id, bot_version_id));
        CREATE TABLE pairwise (
            tournament_id TEXT NOT NULL, bot_a INTEGER NOT NULL, bot_b INTEGER NOT NULL,
            matches INTEGER NOT NULL, above REAL NOT NULL, rate REAL, low REAL, high REAL,
            PRIMARY KEY (tournament_id, bot_a, bot_b));
        CREATE INDEX faults_bot ON faults (tournament_id, bot_version_id);
        """,
    )


def _m3_secrets(db: sqlite_utils.Database) -> None:
    # Tournaments made before this migration keep secret_id NULL: they were dealt from their
    # public match seeds, and resuming them must go on doing so.
    _script(
        db,
        """
        CREATE TABLE deal_secrets (
            id INTEGER PRIMARY KEY, seed INTEGER NOT NULL, secret TEXT NOT NULL,
            commitment TEXT NOT NULL UNIQUE, origin TEXT NOT NULL, created_at TEXT NOT NULL,
            revealed_at TEXT);
        CREATE INDEX deal_secrets_seed ON deal_secrets (seed, origin, revealed_at);
        ALTER TABLE tournaments ADD COLUMN secret_id INTEGER REFERENCES deal_secrets(id);
        CREATE TABLE clone_pairs (
            tournament_id TEXT NOT NULL, bot_a INTEGER NOT NULL, bot_b INTEGER NOT NULL,
            comparable INTEGER NOT NULL, identical INTEGER NOT NULL, share REAL,
            flagged INTEGER NOT NULL, PRIMARY KEY (tournament_id, bot_a, bot_b));
        CREATE TABLE kingmaking (
            tournament_id TEXT NOT NULL, bot_a INTEGER NOT NULL, bot_b INTEGER NOT NULL,
            matches INTEGER NOT NULL, units INTEGER NOT NULL, rate REAL, expected REAL,
            low REAL, high REAL, flagged INTEGER NOT NULL,
            PRIMARY KEY (tournament_id, bot_a, bot_b));
        """,
    )


def _m4_owners(db: sqlite_utils.Database) -> None:
    # NULL: stored before owner keys (docs/tournaments.md, "Bot names and owners").
    _script(db, "ALTER TABLE bots ADD COLUMN owner TEXT")


def _m5_standings(db: sqlite_utils.Database) -> None:
    # Ratings may be absent (no finished match, or only a one-sided bound) and so may ranks
    # (a bot without a finished match is not ranked): the tables are rebuilt, since SQLite
    # cannot drop a NOT NULL. Rows computed by older versions are dropped, not converted:
    # they are derived data (the next `arena standings` or `arena run` recomputes them) and
    # their intervals came from a method whose coverage fell short (docs/statistics.md).
    _script(
        db,
        """
        DROP TABLE ratings;
        DROP TABLE pairwise;
        CREATE TABLE ratings (
            tournament_id TEXT NOT NULL, bot_version_id INTEGER NOT NULL, name TEXT NOT NULL,
            rank INTEGER, rating REAL, rating_low REAL, rating_high REAL, rating_bound TEXT,
            units INTEGER NOT NULL, matches INTEGER NOT NULL, wins INTEGER NOT NULL,
            mean_place REAL, faults INTEGER NOT NULL, method TEXT NOT NULL,
            computed_at TEXT NOT NULL, PRIMARY KEY (tournament_id, bot_version_id));
        CREATE TABLE pairwise (
            tournament_id TEXT NOT NULL, bot_a INTEGER NOT NULL, bot_b INTEGER NOT NULL,
            matches INTEGER NOT NULL, units INTEGER NOT NULL, above REAL NOT NULL, rate REAL,
            low REAL, high REAL, PRIMARY KEY (tournament_id, bot_a, bot_b));
        """,
    )


def _m6_kinds(db: sqlite_utils.Database) -> None:
    # Every tournament stored before this migration is a duplicate round robin.
    _script(
        db,
        f"ALTER TABLE tournaments ADD COLUMN kind TEXT NOT NULL DEFAULT '{ROUND_ROBIN}'",
    )


MIGRATIONS: Final[tuple[tuple[int, str, Callable[[sqlite_utils.Database], None]], ...]] = (
    (1, "bots, versions, tournaments, matches, seats, hands, faults, logs", _m1_core),
    (2, "ratings and pairwise tables, faults index", _m2_ratings),
    (3, "deal secrets and commitments; clone and kingmaking reports", _m3_secrets),
    (4, "owner key of each bot name", _m4_owners),
    (5, "ratings: optional rating and rank, one-sided bounds, units, method", _m5_standings),
    (6, "tournament kinds: round robin or compare", _m6_kinds),
)
"""Numbered migrations, applied in order; each one runs in its own transaction."""


@dataclass(frozen=True)
class BotVersion:
    """One stored version of a bot."""

    id: int
    bot_id: int
    name: str
    version: int
    sha256: str
    source: str
    filename: str
    author: str | None
    submitted_at: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> BotVersion:
        """Build from a ``bot_versions`` row."""
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})


class Store:
    """An open ``arena.db``: checks it is SQLite, not locked and not from a newer arena, then
    migrates it.

    ``create=True`` (the commands that write) creates a missing file and checks at once that
    the database can be written; a new file that is still empty when the ``with`` block fails
    is removed again, so a refused command leaves nothing behind. ``create=False`` (the
    commands that only read) refuses a missing file and reads a database on a read-only file
    system as it is. ``upto`` stops migrating at that version (tests of old databases).
    """

    def __init__(self, path: str | Path, *, create: bool = True, upto: int | None = None):
        self.path = Path(path)
        self.writer = create
        self.created = dbfile.create_private(self.path, create)
        try:
            self.conn, immutable = dbfile.connect(self.path, writer=create)
        except BaseException:
            self._discard()
            raise
        self.db = sqlite_utils.Database(self.conn)
        try:
            self.conn.execute("PRAGMA schema_version").fetchone()
            self._check_arena_schema()
            if not immutable and self.conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if mode != "wal":
                    raise ArenaError(f"cannot switch {self.path} to WAL mode (got {mode})")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self._migrate(upto)
            if self.writer:
                with self._transaction():
                    pass  # a read-only or locked database is refused now, before any work
                self.settle_runs()
        except BaseException as e:
            self.conn.close()
            self._discard()
            if isinstance(e, sqlite3.DatabaseError):
                raise ArenaError(dbfile.explain(self.path, e)) from None
            raise

    def _check_arena_schema(self) -> None:
        # An empty file becomes an arena database; one of another program or of a newer
        # arena is refused untouched.
        tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}
        if "schema_migrations" not in tables:
            if tables:  # someone else's database: never add our tables to it
                raise ArenaError(
                    f"{self.path} is not an arena database (another program's SQLite file)"
                )
            return
        known = {v for v, _, _ in MIGRATIONS}
        unknown = sorted(set(self.applied_migrations()) - known)
        if unknown:
            from arena import __version__

            raise ArenaError(
                f"{self.path} was written by a newer arena (schema migration "
                f"{unknown[-1]}; arena {__version__} knows up to {max(known)}): upgrade arena "
                "to use it"
            )

    def _discard(self) -> None:
        # Only a file this Store created, so a refused command leaves no empty database.
        if self.created:
            dbfile.discard(self.path)
            self.created = False

    def _is_empty(self) -> bool:
        try:
            row = self.conn.execute(
                "SELECT NOT EXISTS (SELECT 1 FROM bots) AND NOT EXISTS (SELECT 1 FROM tournaments)"
            ).fetchone()
        except sqlite3.Error:
            return False
        return bool(row[0])

    # -- plumbing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        empty = exc_type is not None and self.created and self._is_empty()
        self.close()
        if empty:
            self._discard()

    def _transaction(self) -> dbfile.Transaction:
        return dbfile.Transaction(self.conn, self.path)

    def _migrate(self, upto: int | None) -> None:
        wanted = {v for v, _, _ in MIGRATIONS if upto is None or v <= upto}
        exists = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        ).fetchone()
        if exists and wanted <= set(self.applied_migrations()):
            return  # up to date: no write lock needed, so readers work beside a writer
        with self._transaction():
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
        done = self.applied_migrations()
        for version, name, apply in MIGRATIONS:
            if version in done or (upto is not None and version > upto):
                continue
            with self._transaction():
                # Re-check inside the write lock: another process may have just migrated.
                if self.conn.execute(
                    "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
                ).fetchone():
                    continue
                apply(self.db)
                self.conn.execute(
                    "INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, now())
                )

    def applied_migrations(self) -> list[int]:
        """Version numbers of the migrations applied to this database."""
        rows = self.conn.execute("SELECT version FROM schema_migrations ORDER BY version")
        return [r[0] for r in rows]

    def rows(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[dict[str, Any]]:
        """Run a query and return its rows as dicts."""
        return [dict(r) for r in self.db.query(sql, params)]

    # -- bots -------------------------------------------------------------------------------

    def latest_version(self, name: str) -> BotVersion | None:
        """The latest stored version of the bot called ``name``, if any."""
        rows = self.rows(
            "SELECT v.* FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
            "WHERE b.name = ? ORDER BY v.version DESC LIMIT 1",
            [name],
        )
        return BotVersion.from_row(rows[0]) if rows else None

    def add_bot_version(
        self,
        name: str,
        source: str,
        filename: str,
        author: str | None = None,
        owner: str | None = None,
    ) -> tuple[BotVersion, bool]:
        """Store ``source`` as a new version of bot ``name`` unless it equals the latest one.

        A new name is bound to ``owner`` (an owner id, see :mod:`arena.owners`); so is a name
        stored before owner ids were kept. Whether this owner may add a version is the
        caller's check (:func:`arena.entrants.check_owner`). Returns the (new or latest)
        version and whether it was created.
        """
        digest = sha256_text(source)
        with self._transaction():
            latest = self.latest_version(name)
            if latest is not None and latest.sha256 == digest:
                return latest, False
            stamp = now()
            if latest is None:
                cur = self.conn.execute(
                    "INSERT INTO bots (name, created_at) VALUES (?, ?)", (name, stamp)
                )
                bot_id, version = int(cur.lastrowid or 0), 1
            else:
                bot_id, version = latest.bot_id, latest.version + 1
            if owner is not None:
                self.conn.execute(
                    "UPDATE bots SET owner = ? WHERE id = ? AND owner IS NULL", (owner, bot_id)
                )
            self.conn.execute(
                "INSERT INTO bot_versions (bot_id, version, sha256, source, filename, name, "
                "author, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (bot_id, version, digest, source, filename, name, author, stamp),
            )
        created = self.latest_version(name)
        assert created is not None
        return created, True

    def bot_owners(self) -> dict[str, str | None]:
        """Every bot name with its owner id (None: stored before owner ids were kept)."""
        return {r[0]: r[1] for r in self.conn.execute("SELECT name, owner FROM bots")}

    def latest_versions(self) -> list[BotVersion]:
        """The latest version of every submitted bot, by name."""
        rows = self.rows(
            "SELECT v.* FROM bot_versions v JOIN ("
            "  SELECT bot_id, MAX(version) AS version FROM bot_versions GROUP BY bot_id"
            ") last USING (bot_id, version) ORDER BY v.name"
        )
        return [BotVersion.from_row(r) for r in rows]

    def bot_version(self, version_id: int) -> BotVersion:
        """The bot version with this id."""
        rows = self.rows("SELECT * FROM bot_versions WHERE id = ?", [version_id])
        if not rows:
            raise ArenaError(f"no bot version {version_id}")
        return BotVersion.from_row(rows[0])

    def bot_listing(self) -> list[dict[str, Any]]:
        """Every bot version with its bot's name, oldest first within each bot."""
        return self.rows(
            "SELECT v.id, v.name, v.version, v.sha256, v.author, v.filename, v.submitted_at, "
            "length(v.source) AS size, b.owner FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
            "ORDER BY v.name, v.version"
        )

    # -- tournaments ------------------------------------------------------------------------

    def ensure_tournament(
        self,
        tid: str,
        config: dict[str, Any],
        version_ids: Iterable[int],
        total: int,
        *,
        secret: bytes | None = None,
        kind: str = ROUND_ROBIN,
    ) -> DealSecret | None:
        """Create the tournament row (or mark an existing one running again); return its secret.

        ``kind`` is :data:`ROUND_ROBIN` or :data:`COMPARE`; ``config["rounds"]`` is the number of
        rounds (for a tournament that stops by its own rule, the most it may play).

        A new tournament takes ``secret`` when given (imported from a secret file), else the
        newest unrevealed secret drawn in this database for its seed, else a fresh one: the
        tournaments of one seed share their deals until one of them finishes and so reveals
        the secret. An existing tournament keeps its own secret (None for one created before
        deal secrets, dealt from its public seeds); another ``secret`` for it is an error.
        """
        stamp = now()
        with self._transaction():
            row = self.conn.execute("SELECT secret_id FROM tournaments WHERE id = ?", (tid,))
            found = row.fetchone()
            if found is not None:
                current = secrecy.secret_by_id(self.conn, found[0])
                if secret is not None and (current is None or current.secret != secret):
                    raise ArenaError(
                        f"tournament {tid} was started with another deal secret than the "
                        "secret file's; rerun it without --secret-file"
                    )
                self.conn.execute(
                    "UPDATE tournaments SET status = CASE WHEN status = 'finished' "
                    "THEN status ELSE 'running' END, updated_at = ? WHERE id = ?",
                    (stamp, tid),
                )
                return current
            chosen = secrecy.choose_secret(self.conn, int(config["seed"]), secret, stamp)
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
        """The deal secret of tournament ``tid`` (None: created before deal secrets)."""
        row = self.conn.execute("SELECT secret_id FROM tournaments WHERE id = ?", (tid,))
        found = row.fetchone()
        return None if found is None else secrecy.secret_by_id(self.conn, found[0])

    def set_status(self, tid: str, status: str) -> None:
        """Record that the tournament is ``running``, ``interrupted`` or ``finished``.

        Finishing reveals the tournament's deal secret: it is published from then on, and no
        new tournament draws it again.
        """
        stamp = now()
        with self._transaction():
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

    def tournament(self, tid: str | None = None, *, prefer: str | None = None) -> dict[str, Any]:
        """The tournament ``tid`` (a unique prefix will do), or the most recently run one (of
        kind ``prefer`` when there is one).

        Its ``status`` is the live one (see :meth:`tournaments`).
        """
        if tid is None:
            rows = self.rows(
                "SELECT * FROM tournaments ORDER BY kind IS NOT ?, updated_at DESC, rowid DESC",
                [prefer],
            )
            if not rows:
                raise ArenaError(f"no tournament in {self.path} yet (run `arena run`)")
            return self._live(rows[0])
        row = self._by_prefix("tournaments", "tournament", tid)
        return self._live(row)

    def tournaments(self) -> list[dict[str, Any]]:
        """Every tournament with its count of stored matches, newest first.

        ``status`` is the live one: ``running`` only while an ``arena run`` of it holds its
        lock (:mod:`arena.runlock`), so a run killed with ``kill -9`` reads ``interrupted``.
        Each row also has its secret's ``commitment`` and, only once the tournament has
        finished, ``secret`` (both None for a tournament made before deal secrets).
        """
        rows = self.rows(
            "SELECT t.*, (SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id) AS done, "
            "s.commitment, s.secret FROM tournaments t "
            "LEFT JOIN deal_secrets s ON s.id = t.secret_id "
            "ORDER BY t.updated_at DESC, t.rowid DESC"
        )
        for r in rows:
            self._live(r)
            r["secret"] = secrecy.shown_secret(r["status"], r["secret"])
        return rows

    def _live(self, row: dict[str, Any]) -> dict[str, Any]:
        from arena.runlock import holder

        running = holder(self.path, row["id"])
        if running is not None:
            row["status"] = "running"
        elif row["status"] == "running":
            row["status"] = "interrupted"
        return row

    def writable(self) -> bool:
        """Whether this database can be written now (not read-only, not locked)."""
        try:
            with self._transaction():
                return True
        except ArenaError:
            return False

    def settle_runs(self) -> None:
        """Store ``interrupted`` for every tournament marked ``running`` that no run holds
        (its run was killed), so the site and other tools read the truth too."""
        from arena.runlock import holder

        rows = self.conn.execute("SELECT id FROM tournaments WHERE status = 'running'")
        for (tid,) in rows.fetchall():
            if holder(self.path, tid) is None:
                with self._transaction():
                    self.conn.execute(
                        "UPDATE tournaments SET status = 'interrupted' "
                        "WHERE id = ? AND status = 'running'",
                        (tid,),
                    )

    def _by_prefix(self, table: str, what: str, prefix: str) -> dict[str, Any]:
        # substr, not LIKE: the user's text is matched literally (no % or _ wildcards).
        rows = self.rows(
            f"SELECT * FROM {table} WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 11",
            [len(prefix), prefix.lower()],
        )
        if not rows or not prefix:
            raise ArenaError(f"no {what} with id {prefix!r} in {self.path}")
        if len(rows) > 1:
            ids = ", ".join(r["id"] for r in rows[:10])
            more = " and more" if len(rows) > 10 else ""
            raise ArenaError(f"{what} id {prefix!r} is ambiguous: {ids}{more}")
        return rows[0]

    def tournament_progress(self, tid: str) -> int:
        """How many matches of tournament ``tid`` are stored."""
        row = self.conn.execute("SELECT COUNT(*) FROM matches WHERE tournament_id = ?", (tid,))
        return int(row.fetchone()[0])

    def finished_match_ids(self, tid: str) -> set[str]:
        """Ids of the tournament's matches already stored."""
        rows = self.conn.execute("SELECT id FROM matches WHERE tournament_id = ?", (tid,))
        return {r[0] for r in rows}

    def tournament_entrants(self, tid: str) -> list[BotVersion]:
        """The bot versions playing in tournament ``tid``."""
        rows = self.rows(
            "SELECT v.* FROM bot_versions v JOIN tournament_bots t ON t.bot_version_id = v.id "
            "WHERE t.tournament_id = ? ORDER BY v.name",
            [tid],
        )
        return [BotVersion.from_row(r) for r in rows]

    # -- results ----------------------------------------------------------------------------

    def write_results(self, tid: str, records: Sequence[dict[str, Any]]) -> None:
        """Store finished matches (worker records) in one transaction, upserting by key."""
        if not records:
            return
        matches, seats, hands, faults, logs = [], [], [], [], []
        stamp = now()
        for r in records:
            mid = r["match_id"]
            bots = r["bots"]
            faulted = {f["seat"]: f for f in r["faults"]}
            matches.append(
                {
                    "id": mid,
                    "tournament_id": tid,
                    "set_key": r["set_key"],
                    "round": r["round"],
                    "seating": r["seating"],
                    "seed": r["seed"],
                    **{f"bot{s}": bots[s] for s in range(3)},
                    **{f"score{s}": r["scores"][s] for s in range(3)},
                    **{f"place{s}": r["placements"][s] for s in range(3)},
                    "hands_played": len(r["hands"]),
                    "truncated": int(r["truncated"]),
                    "faults": len(faulted),
                    "duration_seconds": r["duration_seconds"],
                    "status": "finished",
                    "finished_at": stamp,
                }
            )
            for s in range(3):
                st = r["stats"][s] if s < len(r["stats"]) else {}
                seats.append(
                    {
                        "match_id": mid,
                        "seat": s,
                        "tournament_id": tid,
                        "bot_version_id": bots[s],
                        "score": r["scores"][s],
                        "place": r["placements"][s],
                        "faulted": int(s in faulted),
                        "decisions": int(st.get("decisions", 0)),
                        "asked": int(st.get("asked", 0)),
                        "think_seconds": float(st.get("think_seconds", 0.0)),
                        "max_think_seconds": float(st.get("max_seconds", 0.0)),
                        "cpu_seconds": float(st.get("cpu_seconds", 0.0)),
                    }
                )
                text = r["logs"][s] if s < len(r["logs"]) else ""
                if text:
                    logs.append(
                        {
                            "match_id": mid,
                            "seat": s,
                            "bot_version_id": bots[s],
                            "text": text[:LOG_CAP],
                            "truncated": int(len(text) > LOG_CAP),
                        }
                    )
            for s, f in faulted.items():
                faults.append(
                    {
                        "match_id": mid,
                        "seat": s,
                        "tournament_id": tid,
                        "bot_version_id": bots[s],
                        "kind": f["kind"],
                        "message": f["message"],
                        "decision": f.get("decision"),
                    }
                )
            for h in r["hands"]:
                hands.append(
                    {
                        "match_id": mid,
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
                )
        with self._transaction():
            self.db.table("matches").upsert_all(matches, pk="id")
            self.db.table("match_seats").upsert_all(seats, pk=("match_id", "seat"))
            self.db.table("hands").upsert_all(hands, pk=("match_id", "hand_number"))
            if faults:
                self.db.table("faults").upsert_all(faults, pk=("match_id", "seat"))
            if logs:
                self.db.table("bot_logs").upsert_all(logs, pk=("match_id", "seat"))

    def seat_results(self, tid: str) -> list[dict[str, Any]]:
        """Every stored seat of the tournament with its match's set and round."""
        return self.rows(
            "SELECT s.match_id, m.set_key, m.round, s.seat, s.bot_version_id, s.place, "
            "s.faulted FROM match_seats s JOIN matches m ON m.id = s.match_id "
            "WHERE s.tournament_id = ? ORDER BY s.match_id, s.seat",
            [tid],
        )

    def duplicate_seats(self, tid: str) -> list[dict[str, Any]]:
        """Every stored seat of the tournament with its deal and its match's first dealer: the
        rows of :data:`arena.duplicate.SEATS_SQL`, which the duplicate reports read."""
        from arena.duplicate import SEATS_SQL

        return self.rows(SEATS_SQL, [tid])

    def seating_results(self, tid: str) -> list[tuple[int, ...]]:
        """Every stored match of the tournament as ``(round, seating, place0, place1, place2,
        score0, score1, score2)``, in round and seating order (a comparison's sets)."""
        return self.conn.execute(
            "SELECT round, seating, place0, place1, place2, score0, score1, score2 "
            "FROM matches WHERE tournament_id = ? ORDER BY round, seating",
            (tid,),
        ).fetchall()

    def match(self, prefix: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The match whose id starts with ``prefix``, and its hands' full records in order."""
        row = self._by_prefix("matches", "match", prefix)
        hands = [
            json.loads(r["record"])
            for r in self.rows(
                "SELECT record FROM hands WHERE match_id = ? ORDER BY hand_number", [row["id"]]
            )
        ]
        return row, hands

    def match_faults(self, match_id: str) -> list[dict[str, Any]]:
        """The faults of one match, by seat."""
        return self.rows("SELECT * FROM faults WHERE match_id = ? ORDER BY seat", [match_id])

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

    def read_standings(self, tid: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The stored ``ratings`` and ``pairwise`` rows of tournament ``tid``."""
        return (
            self.rows("SELECT * FROM ratings WHERE tournament_id = ?", [tid]),
            self.rows("SELECT * FROM pairwise WHERE tournament_id = ?", [tid]),
        )

    def write_standings(
        self, tid: str, ratings: Sequence[dict[str, Any]], pairwise: Sequence[dict[str, Any]]
    ) -> None:
        """Replace the stored ``ratings`` and ``pairwise`` rows of tournament ``tid``."""
        with self._transaction():
            self.conn.execute("DELETE FROM ratings WHERE tournament_id = ?", (tid,))
            self.conn.execute("DELETE FROM pairwise WHERE tournament_id = ?", (tid,))
            if ratings:
                self.db.table("ratings").insert_all(ratings)
            if pairwise:
                self.db.table("pairwise").insert_all(pairwise)

    def replace_tournament_rows(
        self, tid: str, tables: dict[str, Sequence[dict[str, Any]]]
    ) -> None:
        """Replace the rows of tournament ``tid`` in each of ``tables`` in one transaction."""
        with self._transaction():
            for table, rows in tables.items():
                self.conn.execute(f"DELETE FROM [{table}] WHERE tournament_id = ?", (tid,))
                if rows:
                    self.db.table(table).insert_all(rows)
