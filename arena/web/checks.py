"""The checks of uploaded bots: :meth:`arena.api.Arena.submit` (the sandbox checks of
``arena submit``) run off the event loop, a bounded number at once.

An upload is saved to a private temporary folder under a cleaned file name (a zip archive
unpacked: :mod:`arena.web.unzip`) and queued; a worker thread (one of :data:`CHECKS`)
submits it through its own :class:`~arena.api.Arena` as its author's bot. At most
:data:`QUEUED` uploads wait at once; beyond that an upload is refused (429) instead of
piling up. Each bot's latest upload and its outcome are kept in the database
(:class:`~arena.store.UploadCheck`, table ``upload_checks``), so a refusal's reason outlives a
restart; an upload whose check a stopped process left ``pending`` is refused, saying so, when
the service starts again.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Final

from arena.errors import ArenaError
from arena.store import UploadCheck, now
from arena.store.authors import CheckStatus
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

Check = UploadCheck
"""One upload's check (a row of ``upload_checks``)."""


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
    """The queue of uploads; each bot's latest upload and its outcome are in the database."""

    def __init__(self, web: Web, workers: int = CHECKS, queued: int = QUEUED) -> None:
        self.web = web
        self.queued = queued
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="arena-check")
        self.lock = threading.Lock()
        self.busy: dict[str, Path] = {}  # names being checked here: their upload folders
        self.waiting = 0
        stopped = web.arena().store.abandon_pending_checks()
        if stopped:
            log.warning("%d upload checks were cut short by a stop: refused, saying so", stopped)

    def get(self, author: str, name: str) -> Check | None:
        """``author``'s latest upload of bot ``name`` (checked, or being checked)."""
        return self.web.arena().store.upload_check(author, name)

    def pending_of(self, author: str) -> list[Check]:
        """The latest upload of each of ``author``'s bots, by name."""
        return self.web.arena().store.upload_checks(author)

    def start(self, author: str, name: str, path: Path, folder: Path) -> Check | None:
        """Queue the bot at ``path`` (a file or a directory in the temporary ``folder``,
        which this removes once checked) as ``author``'s bot ``name``; None when the queue is
        full or this bot's previous upload is still being checked (then the caller keeps the
        folder)."""
        with self.lock:
            if self.waiting >= self.queued or name in self.busy:
                return None
            self.waiting += 1
            self.busy[name] = folder
        check = Check(name, author, "pending", now())
        try:
            self.web.arena().store.record_check(check)
            self.pool.submit(self._run, check, path, folder)
        except BaseException:
            self._done(name)
            raise
        return check

    def _done(self, name: str) -> None:
        with self.lock:
            self.waiting -= 1
            self.busy.pop(name, None)

    def _run(self, check: Check, path: Path, folder: Path) -> None:
        try:
            done = self._submit(check, path, folder)
            self.web.arena().store.record_check(replace(done, checked_at=now()))
        except Exception:  # the database went away: the organiser's log says so
            log.exception("keeping the check of %s's upload of %s failed", check.author, check.name)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            self._done(check.name)

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
        status: CheckStatus = "stored" if created else "unchanged"
        return replace(check, status=status, version=version.version)

    def close(self) -> None:
        """Stop checking: wait for the uploads being checked; those still queued are dropped,
        their folders removed and their checks refused, saying so."""
        self.pool.shutdown(wait=True, cancel_futures=True)
        with self.lock:
            dropped, self.busy = self.busy, {}
        for folder in dropped.values():
            shutil.rmtree(folder, ignore_errors=True)
        if dropped:
            self.web.arena().store.abandon_pending_checks()
