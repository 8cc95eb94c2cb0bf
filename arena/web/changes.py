"""What tells the live pages that the database changed: its data version, watched by one
thread, and ``GET /api/changes``, a stream of server-sent events when it moves.

SQLite's ``PRAGMA data_version`` changes on a connection whenever another connection (a
ladder storing a set, this process's uploads) commits to the file. One thread of the web
process reads it every :data:`POLL_SECONDS` on a connection of its own and counts the moves:
:meth:`Watch.current` is that count, an attribute read that never touches SQLite, so the event
loop can ask it as often as it likes. The thread stops when nobody has asked for a while and
starts again on demand (counting one move then, for whatever it missed). A move is seen at
most :data:`POLL_SECONDS` late.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Final

import anyio
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from arena.errors import ArenaError
from arena.store import Store
from arena.web.guard import client_address

log = logging.getLogger(__name__)

POLL_SECONDS: Final = 0.25
"""How often the watching thread reads the data version (a change is seen this late)."""

IDLE_SECONDS: Final = 30.0
"""The watching thread stops when nobody asked for the version for this long."""

STREAM_SECONDS: Final = 300.0
"""A stream of changes ends after this long; the browser's EventSource reconnects (after
:data:`RETRY_MS`), so a server restart or a proxy's idle timeout costs nothing."""

HEARTBEAT_SECONDS: Final = 15.0
"""A comment line this often on a quiet stream, so proxies and clients see it alive."""

RETRY_MS: Final = 3000
"""How long a browser waits before reconnecting a stream that ended."""

STREAMS_PER_ADDRESS: Final = 8
"""Streams open at once from one client address (a reader with a few tabs); more get 429."""

STREAMS_TOTAL: Final = 1000
"""Streams open at once in all; more get 503."""


class Watch:
    """The database's data version as a count of its moves, read by one thread."""

    def __init__(self, db: Path, *, poll: float = POLL_SECONDS, idle: float = IDLE_SECONDS):
        self.db = db
        self.poll = poll
        self.idle = idle
        self._boot = secrets.token_hex(4)  # a restarted server's versions are all new
        self._moves = 0
        self._asked = time.monotonic()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def current(self) -> str:
        """The data version now, as ``<boot>.<moves>`` (equal strings: nothing was committed
        in between, give or take :data:`POLL_SECONDS`). Never touches SQLite."""
        self._asked = time.monotonic()
        thread = self._thread
        if thread is None or not thread.is_alive():
            self._start()
        return f"{self._boot}.{self._moves}"

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            if self._stop.is_set():
                return
            self._thread = threading.Thread(target=self._run, name="arena-web-watch", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the thread (at shutdown); :meth:`current` does not start it again."""
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=5)

    def _run(self) -> None:
        store: Store | None = None
        seen: int | None = None
        try:
            while time.monotonic() - self._asked <= self.idle:
                try:
                    if store is None:
                        store = Store(self.db, create=False)
                    now = store.data_version()
                except (ArenaError, OSError, sqlite3.Error) as e:
                    log.warning("cannot read %s for changes: %s", self.db, e)
                    _closed(store)
                    now, store = None, None
                if now != seen and now is not None:
                    # The first reading counts too: what was committed before this thread
                    # started (or while it was stopped) was not seen.
                    self._moves += 1
                seen = now
                if self._stop.wait(self.poll):
                    return
        finally:
            _closed(store)


def _closed(store: Store | None) -> None:
    if store is not None:
        with contextlib.suppress(Exception):
            store.close()


class Streams:
    """The streams open now, per client address and in all."""

    def __init__(self, per_address: int = STREAMS_PER_ADDRESS, total: int = STREAMS_TOTAL):
        self.per_address = per_address
        self.total = total
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def admit(self, address: str) -> Response | None:
        """None when one more stream from ``address`` may open (then :meth:`release` it);
        else the refusal to send."""
        with self._lock:
            if sum(self._open.values()) >= self.total:
                return _refuse(503, "too many live streams open; try again later")
            if self._open.get(address, 0) >= self.per_address:
                return _refuse(429, "too many live streams from your address")
            self._open[address] = self._open.get(address, 0) + 1
            return None

    def release(self, address: str) -> None:
        with self._lock:
            left = self._open.get(address, 0) - 1
            if left > 0:
                self._open[address] = left
            else:
                self._open.pop(address, None)

    def count(self) -> int:
        """Streams open now."""
        with self._lock:
            return sum(self._open.values())


def _refuse(status: int, text: str) -> Response:
    return PlainTextResponse(text, status_code=status, headers={"Retry-After": "30"})


class _Stream(StreamingResponse):
    """A stream that gives its place back however it ends (finished, client gone, server
    stopping)."""

    def __init__(self, content: AsyncIterator[str], release: Callable[[], None]) -> None:
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        super().__init__(content, media_type="text/event-stream", headers=headers)
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


async def _events(watch: Watch, lifetime: float) -> AsyncIterator[str]:
    seen = watch.current()
    yield f"retry: {RETRY_MS}\nevent: version\ndata: {seen}\n\n"
    start = beat = time.monotonic()
    while (now := time.monotonic()) - start < lifetime:
        await anyio.sleep(min(POLL_SECONDS, lifetime))
        version = watch.current()
        if version != seen:
            seen, beat = version, now
            yield f"event: change\ndata: {version}\n\n"
        elif now - beat >= HEARTBEAT_SECONDS:
            beat = now
            yield ": still here\n\n"


def stream(
    request: Request, watch: Watch, streams: Streams, lifetime: float = STREAM_SECONDS
) -> Response:
    """``GET /api/changes``: ``event: version`` with the data version when the stream opens,
    ``event: change`` each time it moves, a comment line on a quiet stream every
    :data:`HEARTBEAT_SECONDS`; the stream ends after ``lifetime`` seconds."""
    address = client_address(request)
    refused = streams.admit(address)
    if refused is not None:
        return refused
    return _Stream(_events(watch, lifetime), lambda: streams.release(address))
