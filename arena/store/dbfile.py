"""The SQLite file under :class:`arena.store.Store`: creating, connecting, transactions, errors.

Whatever is wrong with the file a user points ``--db`` at (missing, a directory, not SQLite,
locked by another process, read-only, on a read-only file system, damaged pages found while it
is read, a full disk) becomes one :class:`~arena.errors.ArenaError` line here (:func:`explain`:
what happened to which database, and what to run), and a command that fails leaves no empty
database file behind.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
from pathlib import Path
from typing import Final
from urllib.parse import quote

from arena.errors import ArenaError, DatabaseBusy, DatabaseDamaged, NotFound

LOCK_TIMEOUT_SECONDS: Final = 2.0
"""How long to wait for another process's write lock before refusing the database."""


def create_private(path: Path, create: bool) -> bool:
    """Check ``path`` can be a database; create it (mode 0600) when missing and ``create``.

    Returns whether it was created here. A missing file with ``create=False`` is refused.
    """
    if path.is_dir():
        raise ArenaError(f"{path} is a directory, not a SQLite database")
    if path.exists():
        return False
    if not create:
        raise NotFound(f"no database at {path} (run `arena submit` or `arena run`)")
    try:
        # A new database is private to its owner (SQLite gives its -wal/-shm files the same
        # mode): bot sources and logs are in it.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    except OSError as e:
        raise ArenaError(f"cannot create database {path}: {e.strerror}") from None
    return True


def discard(path: Path) -> None:
    """Remove a database file and its WAL companions (one this process just created)."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(f"{path}{suffix}")
        except OSError:
            pass


def connect(path: Path, *, writer: bool) -> tuple[sqlite3.Connection, bool]:
    """A connection to ``path`` in autocommit mode, and whether it is read-only and immutable.

    A reader of a file on a read-only file system gets an immutable connection: SQLite could
    not create a WAL database's ``-shm`` file there, and nobody can change the file anyway.
    """
    target, immutable = str(path), False
    if not writer and on_read_only_file_system(path):
        target, immutable = f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1", True
    try:
        # isolation_level=None: transactions are opened explicitly with BEGIN IMMEDIATE, so a
        # competing writer is detected when one starts, not half-way through a batch.
        conn = sqlite3.connect(
            target, timeout=LOCK_TIMEOUT_SECONDS, isolation_level=None, uri=immutable
        )
    except sqlite3.Error as e:
        raise error(path, e) from None
    return conn, immutable


def on_read_only_file_system(path: Path) -> bool:
    """Whether ``path`` is on a file system mounted read-only."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


class Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error).

    A database that is locked, read-only or full is an ArenaError; the transaction is rolled
    back, so nothing is half-written.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self.conn = conn
        self.path = path

    def __enter__(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            raise error(self.path, e) from None

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        try:
            self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")
        except sqlite3.Error as e:
            if exc_type is None:
                raise error(self.path, e) from None
        if isinstance(exc, sqlite3.OperationalError):
            raise error(self.path, exc) from None


def error(path: Path, e: sqlite3.Error) -> ArenaError:
    """The :class:`ArenaError` to raise for a SQLite error on the database at ``path``: a
    :class:`~arena.errors.DatabaseBusy` when another process holds its lock, a
    :class:`~arena.errors.DatabaseDamaged` when it is not SQLite or damaged, with
    :func:`explain`'s line."""
    line = explain(path, e)
    if " is locked by another process" in line:
        return DatabaseBusy(line)
    if " is damaged " in line or " is not a SQLite database" in line:
        return DatabaseDamaged(line)
    return ArenaError(line)


def explain(path: Path, e: sqlite3.Error) -> str:
    """One line for the user about a SQLite error on the database at ``path``."""
    text = str(e)
    if "locked" in text or "busy" in text:
        return f"database {path} is locked by another process; try again when it is done"
    if "not a database" in text or "encrypted" in text:
        return f"{path} is not a SQLite database"
    if "readonly" in text or "read-only" in text or on_read_only_file_system(path):
        return f"database {path} is read-only here (file or file system); this command writes it"
    if "unable to open" in text:
        return (
            f"cannot open database {path}: SQLite also needs to create {path.name}-wal and "
            f"{path.name}-shm in its folder"
        )
    where = shlex.quote(str(path))
    if text.startswith("Could not decode"):  # a damaged text value; it may quote a bot's file
        text = "a text value is not UTF-8"
    text = text[:160]
    if "malformed" in text or "corrupt" in text or "not UTF-8" in text:
        return (
            f"database {path} is damaged (SQLite: {text}); restore it from a backup, or copy "
            f"out what is readable: sqlite3 {where} .recover | sqlite3 recovered.db"
        )
    if "full" in text:
        return f"database {path}: the disk is full (SQLite: {text}); free space, run it again"
    if "I/O" in text or "disk" in text:
        return f"database {path}: the disk failed (SQLite: {text}); check the disk, run it again"
    return f"database {path}: {text}; check it with: sqlite3 {where} 'PRAGMA integrity_check'"
