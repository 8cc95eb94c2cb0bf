"""The schema of ``arena.db``: numbered migrations, and applying them.

Each migration runs in its own transaction and is recorded in ``schema_migrations``; a
database that records a migration this arena does not know was written by a newer arena and
is refused untouched. The tables are documented for users in ``docs/schema.md``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import sqlite_utils

from arena.errors import ArenaError
from arena.store.dbfile import Transaction

ROUND_ROBIN: Final = "round-robin"
"""The ``kind`` of a duplicate round-robin tournament (``arena run``)."""

COMPARE: Final = "compare"
"""The ``kind`` of a sequential comparison of two bots (``arena compare``)."""


def now() -> str:
    """The current UTC time as stored: ``2026-11-30T09:12:03Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
    # Every tournament stored before this migration is a duplicate round robin. The reports
    # (duplicate score, seat bias, cycles, clones, kingmaking) are stored with the standings,
    # so that `arena standings` reads them instead of recomputing them on every call.
    _script(
        db,
        f"""
        ALTER TABLE tournaments ADD COLUMN kind TEXT NOT NULL DEFAULT '{ROUND_ROBIN}';
        CREATE TABLE reports (
            tournament_id TEXT PRIMARY KEY, matches INTEGER NOT NULL, body TEXT NOT NULL,
            computed_at TEXT NOT NULL);
        """,
    )


MIGRATIONS: Final[tuple[tuple[int, str, Callable[[sqlite_utils.Database], None]], ...]] = (
    (1, "bots, versions, tournaments, matches, seats, hands, faults, logs", _m1_core),
    (2, "ratings and pairwise tables, faults index", _m2_ratings),
    (3, "deal secrets and commitments; clone and kingmaking reports", _m3_secrets),
    (4, "owner key of each bot name", _m4_owners),
    (5, "ratings: optional rating and rank, one-sided bounds, units, method", _m5_standings),
    (6, "tournament kinds: round robin or compare; stored reports", _m6_kinds),
)
"""Numbered migrations, applied in order; each one runs in its own transaction."""


def applied(conn: sqlite3.Connection) -> list[int]:
    """Version numbers of the migrations applied to the database of ``conn``."""
    rows = conn.execute("SELECT version FROM schema_migrations ORDER BY version")
    return [r[0] for r in rows]


def check_arena_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse another program's database and one written by a newer arena, untouched.

    An empty file passes: it becomes an arena database.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    if "schema_migrations" not in tables:
        if tables:  # someone else's database: never add our tables to it
            raise ArenaError(f"{path} is not an arena database (another program's SQLite file)")
        return
    known = {v for v, _, _ in MIGRATIONS}
    unknown = sorted(set(applied(conn)) - known)
    if unknown:
        from arena import __version__

        raise ArenaError(
            f"{path} was written by a newer arena (schema migration "
            f"{unknown[-1]}; arena {__version__} knows up to {max(known)}): upgrade arena "
            "to use it"
        )


def migrate(db: sqlite_utils.Database, path: Path, upto: int | None = None) -> None:
    """Apply the migrations the database lacks, up to version ``upto`` (all when None)."""
    conn = db.conn
    wanted = {v for v, _, _ in MIGRATIONS if upto is None or v <= upto}
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if exists and wanted <= set(applied(conn)):
        return  # up to date: no write lock needed, so readers work beside a writer
    with Transaction(conn, path):
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
    done = applied(conn)
    for version, name, apply in MIGRATIONS:
        if version in done or (upto is not None and version > upto):
            continue
        with Transaction(conn, path):
            # Re-check inside the write lock: another process may have just migrated.
            if conn.execute(
                "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
            ).fetchone():
                continue
            apply(db)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, now()))
