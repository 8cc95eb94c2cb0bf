"""The checks of uploaded bots: :meth:`arena.api.Arena.submit` (the sandbox checks of
``arena submit``) run off the event loop, a bounded number at once.

An upload is saved to a private temporary folder under a cleaned file name (a zip archive
unpacked: :mod:`arena.web.unzip`) and queued; a worker thread (one of :data:`CHECKS`)
submits it through its own :class:`~arena.api.Arena` as its author's bot and records the
outcome. At most
:data:`QUEUED` uploads wait at once; beyond that an upload is refused (429) instead of
piling up. Outcomes live in memory until the process stops; a stored bot's status is read
from the database after that.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, Literal

from arena.errors import ArenaError
from arena.store import now
from arena.untrusted import clean_line
from arena.web.context import Web

log = logging.getLogger(__name__)

CHECKS: Final = 2
"""Uploads checked at once (each runs sandboxed smoke matches)."""

QUEUED: Final = 8
"""Uploads waiting or being checked at once, over every author."""

REASON_CHARS: Final = 300
"""A refusal's reason is cut to this many characters (one line)."""

SAFE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")

Status = Literal["pending", "stored", "unchanged", "refused"]


@dataclass(frozen=True)
class Check:
    """One upload's check: ``pending`` until done, then ``stored`` (a new ``version``),
    ``unchanged`` (the same content as ``version``) or ``refused`` (``reason``: one line)."""

    name: str
    author: str
    status: Status
    submitted_at: str
    version: int | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready."""
        return {
            "name": self.name,
            "status": self.status,
            "version": self.version,
            "reason": self.reason,
            "submitted_at": self.submitted_at,
        }


def safe_filename(filename: str | None) -> str | None:
    """The last part of an uploaded file's name if it is a plain name with an extension
    (letters, digits, ``_``, ``.``, ``-``; no folders, no leading dot), else None."""
    base = (filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    if not SAFE_NAME.fullmatch(base) or "." not in base or ".." in base:
        return None
    return base


def upload_folder() -> Path:
    """A new private temporary folder for one upload (mode 0700)."""
    return Path(tempfile.mkdtemp(prefix="arena-upload-"))


class Checks:
    """The queue of uploads and their outcomes, by bot name (the latest upload of each)."""

    def __init__(self, web: Web, workers: int = CHECKS, queued: int = QUEUED) -> None:
        self.web = web
        self.queued = queued
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="arena-check")
        self.lock = threading.Lock()
        self.checks: dict[str, Check] = {}
        self.waiting = 0

    def get(self, name: str) -> Check | None:
        """The latest upload of bot ``name`` checked or being checked by this process."""
        with self.lock:
            return self.checks.get(name)

    def pending_of(self, author: str) -> list[Check]:
        """Every upload of ``author`` this process knows of, by name."""
        with self.lock:
            return sorted((c for c in self.checks.values() if c.author == author), key=_name)

    def start(self, author: str, name: str, path: Path, folder: Path) -> Check | None:
        """Queue the bot at ``path`` (a file or a directory in the temporary ``folder``,
        which this removes once checked) as ``author``'s bot ``name``; None when the queue is
        full or this bot's previous upload is still being checked (then the caller keeps the
        folder)."""
        with self.lock:
            busy = self.checks.get(name)
            if self.waiting >= self.queued or (busy is not None and busy.status == "pending"):
                return None
            self.waiting += 1
            check = Check(name, author, "pending", now())
            self.checks[name] = check
        self.pool.submit(self._run, check, path, folder)
        return check

    def _run(self, check: Check, path: Path, folder: Path) -> None:
        try:
            done = self._submit(check, path, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        with self.lock:
            self.waiting -= 1
            self.checks[check.name] = done

    def _submit(self, check: Check, path: Path, folder: Path) -> Check:
        try:
            version, created, _ = self.web.arena().submit(
                path, name=check.name, author=check.author
            )
        except ArenaError as e:
            text = e.spelled(lambda setting: f"the {setting!r} field")
            reason = clean_line(text.replace(f"{folder}/", ""), REASON_CHARS)
            return replace(check, status="refused", reason=reason)
        except Exception:  # a bug of ours: logged for the organiser, one line for the author
            log.exception("checking %s's upload of %s failed", check.author, check.name)
            return replace(check, status="refused", reason="internal error while checking")
        status: Status = "stored" if created else "unchanged"
        return replace(check, status=status, version=version.version)

    def close(self) -> None:
        """Stop checking: drop the queued uploads, wait for those being checked."""
        self.pool.shutdown(wait=True, cancel_futures=True)


def _name(check: Check) -> str:
    return check.name
