"""One ``arena run`` of a tournament at a time: a lock file beside the database.

Two runs of the same tournament on one database would both play the matches still to do (and
store each twice). So ``arena run`` holds a POSIX record lock (``lockf``) on
``<db>.run-<tournament id>.lock`` while it plays. The kernel drops such a lock when its process
ends, however it ends (``kill -9`` included), so a stale lock never blocks a rerun; and a lock
belongs to the process, not to the file descriptor, so the worker processes ``arena run``
forks do not inherit it and cannot keep it alive after their parent is killed. The file holds
who runs (pid, host, start time) for the message the second run prints; it is removed when the
run ends normally.

One caveat of POSIX locks: closing *any* descriptor of the file releases the process's lock.
So a process never opens a lock file it holds: :func:`holder` answers from the registry of
locks held here.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, TypedDict

from arena.errors import AlreadyRunning, ArenaError

PROBE_GRACE_SECONDS: Final = 1.0
"""How long a starting run retries while the lock is busy: a reader's :func:`holder` probe
takes a shared lock for a few microseconds, which must not be mistaken for another run."""


class HolderDict(TypedDict):
    """:meth:`Holder.to_dict`: the lock file's contents."""

    pid: int
    host: str
    started_at: str


@dataclass(frozen=True)
class Holder:
    """The run that holds a tournament's lock."""

    pid: int
    host: str
    started_at: str

    def __str__(self) -> str:
        return f"pid {self.pid} on {self.host}, started {self.started_at}"

    def to_dict(self) -> HolderDict:
        """JSON form."""
        return {"pid": self.pid, "host": self.host, "started_at": self.started_at}


_UNKNOWN = Holder(0, "an unknown host", "at an unknown time")

_HELD: dict[str, RunLock] = {}
"""Locks held by this process, by lock file path."""


def lock_path(db_path: str | Path, tid: str) -> Path:
    """The lock file of tournament ``tid`` in the database at ``db_path``."""
    db = Path(db_path)
    return db.with_name(f"{db.name}.run-{tid}.lock")


def _key(path: Path) -> str:
    return os.path.realpath(path)


def _read(fd: int) -> Holder:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"null")
        return Holder(int(data["pid"]), str(data["host"]), str(data["started_at"]))
    except (OSError, ValueError, TypeError, KeyError):
        return _UNKNOWN  # being written just now, or not ours


def holder(db_path: str | Path, tid: str) -> Holder | None:
    """Who is running tournament ``tid`` on this database now, or None."""
    path = lock_path(db_path, tid)
    held = _HELD.get(_key(path))
    if held is not None:
        return held.holder
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # no lock file: nobody runs it (or we cannot tell, which reads the same)
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EACCES, errno.EAGAIN):
                return _read(fd)
            return None
        return None  # we got it, so nobody holds it; closing the descriptor releases it
    finally:
        os.close(fd)


class RunLock:
    """The lock of one tournament on one database, held for the duration of a run."""

    def __init__(self, db_path: str | Path, tid: str) -> None:
        self.path = lock_path(db_path, tid)
        self.tid = tid
        self.fd: int | None = None
        self.holder = Holder(
            os.getpid(), socket.gethostname(), datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        )

    def acquire(self) -> None:
        """Take the lock, or raise ArenaError naming the run that holds it."""
        key = _key(self.path)
        other = _HELD.get(key)
        if other is not None:
            raise AlreadyRunning(f"tournament {self.tid} is already being played ({other.holder})")
        deadline = time.monotonic() + PROBE_GRACE_SECONDS
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError as e:
                raise ArenaError(f"cannot create the run lock {self.path}: {e.strerror}") from None
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                if e.errno not in (errno.EACCES, errno.EAGAIN):
                    os.close(fd)
                    raise ArenaError(f"cannot lock {self.path}: {e.strerror}") from None
                running = _read(fd)
                os.close(fd)
                if time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                raise AlreadyRunning(
                    f"tournament {self.tid} is already being played by {running}; wait for "
                    "it to finish (or stop it) and run this again to resume"
                ) from None
            # The previous holder may have removed the file between our open and our lock:
            # then the lock is on a file nobody else will look at; start again.
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(self.holder.to_dict()).encode(), 0)
            self.fd = fd
            _HELD[key] = self
            return

    def release(self) -> None:
        """Give the lock up and remove its file (idempotent)."""
        if self.fd is None:
            return
        _HELD.pop(_key(self.path), None)
        try:
            self.path.unlink()  # while still locked: see the inode check in acquire()
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
