"""The schema of ``arena.db``: one schema, version :data:`VERSION`, and creating it.

A new (empty) database gets every table in one transaction and records its version in
``schema_version``; a database of any other version, or another program's SQLite file, is
refused untouched. Until a release the schema changes in place: there are no migrations.
The tables are documented for users in ``docs/schema.md``.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from arena import __version__
from arena.errors import ArenaError
from arena.store.dbfile import Transaction

ROUND_ROBIN: Final = "round-robin"
"""The ``kind`` of a duplicate round-robin tournament (``arena run``)."""

COMPARE: Final = "compare"
"""The ``kind`` of a sequential comparison of two bots (``arena compare``)."""

LADDER: Final = "ladder"
"""The ``kind`` of a ladder that never stops (``arena ladder``)."""

HUMAN: Final = "human"
"""The ``kind`` of a human game: one match of a person against two bots (``Arena.play_human``,
the web's play page), never rated."""


def now() -> str:
    """The current UTC time as stored: ``2026-11-30T09:12:03Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


VERSION: Final = 1
"""The version of the schema this arena reads and writes."""

SCHEMA: Final = f"""
CREATE TABLE bots (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
    owner TEXT, retired_at TEXT);
CREATE TABLE bot_versions (
    id INTEGER PRIMARY KEY, bot_id INTEGER NOT NULL REFERENCES bots(id),
    version INTEGER NOT NULL, sha256 TEXT NOT NULL, source TEXT NOT NULL,
    filename TEXT NOT NULL, name TEXT NOT NULL, author TEXT,
    submitted_at TEXT NOT NULL, language TEXT NOT NULL, entry TEXT NOT NULL, files BLOB,
    code_digest TEXT NOT NULL, UNIQUE (bot_id, version));
CREATE TABLE deal_secrets (
    id INTEGER PRIMARY KEY, seed INTEGER NOT NULL, secret TEXT NOT NULL,
    commitment TEXT NOT NULL UNIQUE, origin TEXT NOT NULL, created_at TEXT NOT NULL,
    revealed_at TEXT);
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY, config TEXT NOT NULL, seed INTEGER NOT NULL,
    rounds INTEGER NOT NULL, rules TEXT NOT NULL, limits TEXT NOT NULL,
    status TEXT NOT NULL, total_matches INTEGER NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, finished_at TEXT,
    secret_id INTEGER NOT NULL REFERENCES deal_secrets(id),
    kind TEXT NOT NULL DEFAULT '{ROUND_ROBIN}');
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
    max_cpu_seconds REAL NOT NULL, clock_seconds REAL NOT NULL,
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
CREATE TABLE clone_pairs (
    tournament_id TEXT NOT NULL, bot_a INTEGER NOT NULL, bot_b INTEGER NOT NULL,
    comparable INTEGER NOT NULL, identical INTEGER NOT NULL, share REAL,
    flagged INTEGER NOT NULL, PRIMARY KEY (tournament_id, bot_a, bot_b));
CREATE TABLE kingmaking (
    tournament_id TEXT NOT NULL, bot_a INTEGER NOT NULL, bot_b INTEGER NOT NULL,
    matches INTEGER NOT NULL, units INTEGER NOT NULL, rate REAL, expected REAL,
    low REAL, high REAL, flagged INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, bot_a, bot_b));
CREATE TABLE reports (
    tournament_id TEXT PRIMARY KEY, matches INTEGER NOT NULL, body TEXT NOT NULL,
    computed_at TEXT NOT NULL);
CREATE TABLE ladder_bots (
    ladder_id TEXT NOT NULL REFERENCES tournaments(id),
    bot_version_id INTEGER NOT NULL REFERENCES bot_versions(id),
    joined_step INTEGER NOT NULL, joined_at TEXT NOT NULL,
    left_step INTEGER, left_at TEXT, left_reason TEXT,
    PRIMARY KEY (ladder_id, bot_version_id));
CREATE TABLE ladder_epochs (
    ladder_id TEXT NOT NULL REFERENCES tournaments(id), epoch INTEGER NOT NULL,
    secret_id INTEGER NOT NULL REFERENCES deal_secrets(id), first_step INTEGER NOT NULL,
    opened_at TEXT NOT NULL, closed_at TEXT,
    PRIMARY KEY (ladder_id, epoch));
CREATE TABLE ladder_sets (
    ladder_id TEXT NOT NULL REFERENCES tournaments(id), step INTEGER NOT NULL,
    bot0 INTEGER NOT NULL, bot1 INTEGER NOT NULL, bot2 INTEGER NOT NULL,
    epoch INTEGER NOT NULL, set_key TEXT NOT NULL, reason TEXT NOT NULL,
    scheduled_at TEXT NOT NULL, finished_at TEXT,
    PRIMARY KEY (ladder_id, step));
CREATE TABLE seat_totals (
    tournament_id TEXT NOT NULL, bot_version_id INTEGER NOT NULL,
    seats INTEGER NOT NULL, place1 INTEGER NOT NULL, place2 INTEGER NOT NULL,
    place3 INTEGER NOT NULL, place_sum INTEGER NOT NULL, faulted INTEGER NOT NULL,
    decisions INTEGER NOT NULL, asked INTEGER NOT NULL, think_seconds REAL NOT NULL,
    max_think_seconds REAL NOT NULL, cpu_seconds REAL NOT NULL,
    max_cpu_seconds REAL NOT NULL, clock_seconds REAL NOT NULL,
    max_clock_seconds REAL NOT NULL, max_match_cpu_seconds REAL NOT NULL,
    last_seat INTEGER NOT NULL, last_match INTEGER NOT NULL,
    hands INTEGER NOT NULL, maker INTEGER NOT NULL, alone INTEGER NOT NULL,
    made INTEGER NOT NULL, euchred INTEGER NOT NULL, defended INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, bot_version_id));
CREATE TABLE pair_totals (
    tournament_id TEXT NOT NULL, bot_version_id INTEGER NOT NULL,
    opponent_id INTEGER NOT NULL, matches INTEGER NOT NULL, above REAL NOT NULL,
    place_sum INTEGER NOT NULL, PRIMARY KEY (tournament_id, bot_version_id, opponent_id));
CREATE INDEX seat_totals_version ON seat_totals (bot_version_id);
CREATE INDEX pair_totals_version ON pair_totals (bot_version_id);
CREATE INDEX matches_tournament ON matches (tournament_id);
CREATE INDEX bot_versions_code ON bot_versions (code_digest);
CREATE INDEX match_seats_bot ON match_seats (tournament_id, bot_version_id, place, faulted);
CREATE INDEX match_seats_version ON match_seats (bot_version_id);
CREATE INDEX faults_bot ON faults (tournament_id, bot_version_id);
CREATE INDEX deal_secrets_seed ON deal_secrets (seed, origin, revealed_at);
CREATE INDEX ladder_sets_finished ON ladder_sets (ladder_id, finished_at);
CREATE INDEX ladder_sets_in_flight ON ladder_sets (ladder_id, step) WHERE finished_at IS NULL;
CREATE TABLE authors (
    name TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
    revoked_at TEXT);
CREATE TABLE upload_checks (
    author TEXT NOT NULL REFERENCES authors (name), name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'stored', 'unchanged', 'refused')),
    version INTEGER, reason TEXT, submitted_at TEXT NOT NULL, checked_at TEXT,
    PRIMARY KEY (author, name));
CREATE TABLE worker_checks (
    id INTEGER PRIMARY KEY, tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    ended_at TEXT NOT NULL, replayed INTEGER NOT NULL, refereed INTEGER NOT NULL,
    cross_check REAL NOT NULL);
CREATE INDEX worker_checks_tournament ON worker_checks (tournament_id);
CREATE TABLE dropped_workers (
    check_id INTEGER NOT NULL REFERENCES worker_checks (id), worker TEXT NOT NULL,
    why TEXT NOT NULL);
CREATE INDEX dropped_workers_check ON dropped_workers (check_id);
CREATE TABLE schema_version (version INTEGER NOT NULL, created_at TEXT NOT NULL)
"""
"""Every table and index of version :data:`VERSION`, as ``docs/schema.md`` describes them."""


def version(conn: sqlite3.Connection) -> int | None:
    """The schema version recorded in the database of ``conn`` (None: not recorded)."""
    try:
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    except sqlite3.OperationalError:  # no such table
        return None
    return None if row is None else row[0]


def check_arena_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse another program's database and one of another schema version, untouched.

    An empty file passes: it becomes an arena database.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    if not tables:
        return
    found = version(conn) if "schema_version" in tables else None
    if found is None:  # someone else's database
        raise ArenaError(f"{path} is not an arena database (another program's SQLite file)")
    if found != VERSION:
        raise ArenaError(
            f"{path} has arena schema version {found}; arena {__version__} reads only version "
            f"{VERSION}: use the arena that wrote it"
        )


def create(conn: sqlite3.Connection, path: Path) -> None:
    """Create every table of the schema in an empty database, in one transaction."""
    if conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
        return  # already created (and checked): no write lock, so readers work beside a writer
    with Transaction(conn, path):
        # Re-check inside the write lock: another process may have just created it.
        if conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
            return
        # Not executescript(): that commits first, and the schema must be one transaction.
        for statement in SCHEMA.split(";"):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_version VALUES (?, ?)", (VERSION, now()))
