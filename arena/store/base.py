"""The open database under :class:`arena.store.Store`: opening, checking, creating, closing,
transactions, queries by id prefix, and the live status of runs.

The store of each entity (:mod:`arena.store.bots`, :mod:`arena.store.tournaments`,
:mod:`arena.store.matches`, ...) builds on :class:`StoreBase`; the file itself (modes, locks,
errors) is :mod:`arena.store.dbfile`. The SQL fragments they share (:func:`among`,
:func:`counted`, :func:`clauses`) and the fingerprint of rows (:func:`fingerprint`) are here.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from arena.errors import ArenaError, NotFound
from arena.store import dbfile, schema
from arena.store.kinds import KINDS
from arena.store.runlock import holder

Columns = dict[str, int | float | str | None]
"""A row to insert: column name to its SQLite value."""

if TYPE_CHECKING:
    import sqlite_utils

Row = dict[str, Any]
"""A row as SQLite returns it, by column name: read inside the store only, turned into a typed
row (:mod:`arena.store.rows`) before it leaves."""

COUNTED_KINDS = tuple(k.name for k in KINDS.values() if not k.comparison and not k.human)
"""The kinds of tournament whose matches count on the bot pages (a comparison has its own
page; a human game counts nowhere)."""


def among(column: str, ids: Sequence[object]) -> str:
    """``column IN (?, ?, ...)`` for ``len(ids)`` parameters."""
    return f"{column} IN ({','.join('?' * len(ids))})"


def counted(column: str) -> str:
    """``column`` (a tournament id) is one whose matches a bot page counts (a round robin's
    or a ladder's, :data:`COUNTED_KINDS`)."""
    kinds = ",".join(f"'{k}'" for k in COUNTED_KINDS)
    return f"{column} IN (SELECT id FROM tournaments WHERE kind IN ({kinds}))"


def clauses(filters: Sequence[tuple[str, object]]) -> tuple[str, list[object]]:
    """`` WHERE a AND b`` of the clauses whose value is not None, and their parameters."""
    used = [(clause, value) for clause, value in filters if value is not None]
    if not used:
        return "", []
    return " WHERE " + " AND ".join(c for c, _ in used), [v for _, v in used]


def fingerprint(rows: Sequence[object]) -> str:
    """A short digest of some rows (tuples of SQLite values): what an incremental render
    compares to decide whether a page changed."""
    return hashlib.sha256(repr(list(rows)).encode()).hexdigest()[:24]


class StoreBase:
    """An open ``arena.db``: checks it is SQLite, not locked and of this arena's schema version,
    and creates the schema in a new one.

    ``create=True`` (the commands that write) creates a missing file and checks at once that
    the database can be written; a new file that is still empty when the ``with`` block fails
    is removed again, so a refused command leaves nothing behind. ``create=False`` (the
    commands that only read) refuses a missing file and reads a database on a read-only file
    system as it is.
    """

    def __init__(self, path: str | Path, *, create: bool = True):
        self.path = Path(path)
        self.in_memory = str(path) == ":memory:"
        """An in-memory database (``":memory:"``): no file, no WAL, gone when closed."""
        self.writer = create
        self.created = False if self.in_memory else dbfile.create_private(self.path, create)
        try:
            self.conn, immutable = dbfile.connect(self.path, writer=create)
        except BaseException:
            self._discard()
            raise
        try:
            self.conn.execute("PRAGMA schema_version").fetchone()
            schema.check_arena_schema(self.conn, self.path)
            journal = self.conn.execute("PRAGMA journal_mode").fetchone()[0]
            if not immutable and not self.in_memory and journal != "wal":
                mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if mode != "wal":
                    raise ArenaError(f"cannot switch {self.path} to WAL mode (got {mode})")
            self.conn.execute("PRAGMA foreign_keys=ON")
            schema.create(self.conn, self.path)
            if self.writer:
                with self._transaction():
                    pass  # a read-only or locked database is refused now, before any work
                self.settle_runs()
        except BaseException as e:
            self.conn.close()
            self._discard()
            if isinstance(e, sqlite3.DatabaseError):
                raise dbfile.error(self.path, e) from None
            raise

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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        empty = exc_type is not None and self.created and self._is_empty()
        self.close()
        if empty:
            self._discard()
        if isinstance(exc, sqlite3.Error):
            # The one boundary of SQLite errors met while the store is open (damaged pages
            # found by a query, a full disk): one ArenaError line naming the database and
            # what to run, for the library's caller and the command line alike.
            raise dbfile.error(self.path, exc) from None

    def _transaction(self) -> dbfile.Transaction:
        return dbfile.Transaction(self.conn, self.path)

    def schema_version(self) -> int | None:
        """The schema version of this database (:data:`arena.store.schema.VERSION`)."""
        return schema.version(self.conn)

    @cached_property
    def db(self) -> sqlite_utils.Database:
        """The connection as a ``sqlite_utils.Database`` (bulk inserts and upserts).

        Made on first use: importing sqlite-utils (which imports numpy when it is installed)
        is most of the start-up of a command that only reads a few rows, such as
        ``arena submit``.
        """
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: it changes when another connection commits (what
        ``arena web``'s change watcher polls)."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """Run a query and return its rows by column name (for the store's own use: a read
        turns them into typed rows before returning)."""
        cursor = self.conn.execute(sql, params)
        if cursor.description is None:
            return []
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor]

    def _by_prefix(self, table: str, what: str, prefix: str) -> Row:
        # substr, not LIKE: the user's text is matched literally (no % or _ wildcards).
        rows = self._rows(
            f"SELECT * FROM {table} WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 11",
            [len(prefix), prefix.lower()],
        )
        if not rows or not prefix:
            raise NotFound(f"no {what} with id {prefix!r} in {self.path}")
        if len(rows) > 1:
            ids = ", ".join(r["id"] for r in rows[:10])
            more = " and more" if len(rows) > 10 else ""
            raise ArenaError(f"{what} id {prefix!r} is ambiguous: {ids}{more}")
        return rows[0]

    # -- runs -------------------------------------------------------------------------------

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
        rows = self.conn.execute("SELECT id FROM tournaments WHERE status = 'running'")
        for (tid,) in rows.fetchall():
            if holder(self.path, tid) is None:
                with self._transaction():
                    self.conn.execute(
                        "UPDATE tournaments SET status = 'interrupted' "
                        "WHERE id = ? AND status = 'running'",
                        (tid,),
                    )

    def _live(self, tid: str, status: str) -> str:
        # The stored status, corrected by the run lock: "running" only while a run holds it.
        if holder(self.path, tid) is not None:
            return "running"
        return "interrupted" if status == "running" else status
