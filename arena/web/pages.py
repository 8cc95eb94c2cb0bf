"""The site's pages served live from the database (``arena web``): the leaderboard, the
head-to-head, tournament, ladder, comparison and bot pages, replays and whole match lists, at
the static site's URLs, so the templates' relative links work, with ``live.js`` following the
database's changes (``GET /api/changes``, :mod:`arena.web.changes`).

Cheap under load: a rendered page is kept, keyed by the database's data version
(:class:`arena.web.changes.Watch`), so any number of readers of an unchanged page cost one
render; a page is rendered by one request at a time (the others wait for it and take its
result), at most :data:`RENDERS` pages at once, and a request that waits
:data:`RENDER_WAIT_SECONDS` for its turn gets 503 with ``Retry-After``. A kept page is
answered on the event loop without touching SQLite; a render runs in the thread pool on that
thread's :class:`~arena.api.Arena`. Only what is stored is answered (an id is checked by its
form, then looked up, before anything is rendered); anything else is 404. GETs only.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from arena.errors import ArenaError
from arena.site import live
from arena.web.changes import STREAM_SECONDS, Streams, Watch, stream
from arena.web.context import Web

RENDERS: Final = 2
"""Pages rendered from the database at once (the others wait their turn)."""

RENDER_WAIT_SECONDS: Final = 10.0
"""How long a request waits for its turn to render before it is answered 503."""

CACHE_PAGES: Final = 512
"""Rendered pages kept at most (the least recently used go first)."""

CACHE_BYTES: Final = 64 * 1024 * 1024
"""Bytes of rendered pages kept at most."""

_NAME: Final = 200
"""The longest path part looked at (a bot's name is far shorter)."""


class Busy(Exception):
    """No turn to render came in :data:`RENDER_WAIT_SECONDS` (HTTP 503)."""


@dataclass(frozen=True)
class Rendered:
    """A rendered page and the data version it was rendered at."""

    body: bytes
    version: str
    etag: str


class PageCache:
    """Rendered pages by request, each with its data version, least recently used first out."""

    def __init__(self, pages: int = CACHE_PAGES, budget: int = CACHE_BYTES) -> None:
        self.pages = pages
        self.budget = budget
        self._kept: OrderedDict[str, Rendered] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str, version: str) -> Rendered | None:
        """The page kept for ``key`` if it was rendered at ``version``."""
        with self._lock:
            page = self._kept.get(key)
            if page is None or page.version != version:
                return None
            self._kept.move_to_end(key)
            return page

    def put(self, key: str, page: Rendered) -> None:
        if len(page.body) > self.budget:
            return
        with self._lock:
            old = self._kept.pop(key, None)
            if old is not None:
                self._bytes -= len(old.body)
            self._kept[key] = page
            self._bytes += len(page.body)
            while len(self._kept) > self.pages or self._bytes > self.budget:
                _, first = self._kept.popitem(last=False)
                self._bytes -= len(first.body)


class LivePages:
    """The live pages of one database: its watch, its kept pages, its render slots."""

    def __init__(self, web: Web, *, watch: Watch | None = None, streams: Streams | None = None):
        self.web = web
        self.watch = watch or Watch(web.settings.db)
        self.streams = streams or Streams()
        self.cache = PageCache()
        self.renders = 0
        """Pages rendered so far (not counting ids found unknown; the tests count them)."""
        self.render_wait = RENDER_WAIT_SECONDS
        self.stream_seconds = STREAM_SECONDS
        self._slots = threading.BoundedSemaphore(RENDERS)
        self._lock = threading.Lock()
        self._rendering: dict[str, tuple[threading.Lock, int]] = {}

    def close(self) -> None:
        """Stop watching the database (at shutdown)."""
        self.watch.close()

    def routes(self) -> list[BaseRoute]:
        """The routes: every page of the static site at its URL, ``/`` the front page,
        ``GET /api/changes`` (server-sent events) and ``GET /api/version`` (polling)."""
        return [
            Route("/", self._front, methods=["GET"]),
            Route("/index.html", self._front, methods=["GET"]),
            Route("/h2h.html", self._h2h, methods=["GET"]),
            Route(f"/{live.LIST_PAGE}", self._list, methods=["GET"]),
            Route("/tournaments/{file}", self._folder("tournaments"), methods=["GET"]),
            Route("/bots/{file}", self._folder("bots"), methods=["GET"]),
            Route("/matches/{file}", self._folder("matches"), methods=["GET"]),
            Route("/api/changes", self._changes, methods=["GET"]),
            Route("/api/version", self._version, methods=["GET"]),
        ]

    async def _front(self, request: Request) -> Response:
        return await self.page(request, "index.html")

    async def _h2h(self, request: Request) -> Response:
        return await self.page(request, "h2h.html")

    async def _list(self, request: Request) -> Response:
        query = request.url.query
        try:
            fields = live.parse_query(query)
        except live.BadRequest as e:
            return PlainTextResponse(str(e), status_code=400)
        key = "&".join(f"{k}={fields[k]}" for k in sorted(fields))
        return await self.page(request, live.LIST_PAGE, query, key=f"{live.LIST_PAGE}?{key}")

    def _folder(self, folder: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            name = request.path_params["file"]
            if len(name) > _NAME or not name.endswith(".html"):
                return _not_found()
            return await self.page(request, f"{folder}/{name}")

        return endpoint

    async def _changes(self, request: Request) -> Response:
        return stream(request, self.watch, self.streams, self.stream_seconds)

    async def _version(self, request: Request) -> Response:
        return JSONResponse({"version": self.watch.current()}, headers=_FRESH)

    async def page(self, request: Request, path: str, query: str = "", key: str = "") -> Response:
        """The page at ``path`` (the site's relative URL, unquoted): kept, or rendered now."""
        key = key or path
        version = self.watch.current()
        found = self.cache.get(key, version)
        if found is None:
            try:
                found = await run_in_threadpool(self._render, key, path, query, version)
            except live.BadRequest as e:
                return PlainTextResponse(str(e), status_code=400)
            except Busy:
                return PlainTextResponse(
                    "busy rendering other pages", status_code=503, headers={"Retry-After": "5"}
                )
            except ArenaError:
                return PlainTextResponse(
                    "the database cannot be read now", status_code=503, headers={"Retry-After": "5"}
                )
        if found is None:
            return _not_found()
        headers = {**_FRESH, "ETag": found.etag, "X-Arena-Version": found.version}
        if found.etag in _etags(request.headers.get("if-none-match", "")):
            return Response(status_code=304, headers=headers)
        return Response(found.body, media_type="text/html; charset=utf-8", headers=headers)

    def _render(self, key: str, path: str, query: str, version: str) -> Rendered | None:
        # In the thread pool: one render of a page at a time; who waited for it takes its
        # result (rendered at this version or a later one).
        lock = self._claim(key)
        try:
            if not lock.acquire(timeout=self.render_wait):
                raise Busy
            try:
                now = self.watch.current()
                found = self.cache.get(key, now) or self.cache.get(key, version)
                if found is not None:
                    return found
                if not self._slots.acquire(timeout=self.render_wait):
                    raise Busy
                try:
                    html = live.render_web(self.web.arena().store, path, query, version=now)
                finally:
                    self._slots.release()
                if html is None:
                    return None
                with self._lock:
                    self.renders += 1
                body = html.encode("utf-8")
                etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
                page = Rendered(body, now, etag)
                self.cache.put(key, page)
                return page
            finally:
                lock.release()
        finally:
            self._unclaim(key)

    def _claim(self, key: str) -> threading.Lock:
        with self._lock:
            lock, users = self._rendering.get(key, (threading.Lock(), 0))
            self._rendering[key] = (lock, users + 1)
            return lock

    def _unclaim(self, key: str) -> None:
        with self._lock:
            lock, users = self._rendering[key]
            if users <= 1:
                del self._rendering[key]
            else:
                self._rendering[key] = (lock, users - 1)


_FRESH: Final = {"Cache-Control": "no-cache"}
"""Every answer is checked again (cheaply: ``If-None-Match``) while a ladder runs."""


def _etags(header: str) -> set[str]:
    return {t.strip().removeprefix("W/") for t in header.split(",") if t.strip()}


def _not_found() -> Response:
    return PlainTextResponse("not found", status_code=404)


def routes(web: Web) -> list[BaseRoute]:
    """The live pages' routes over ``web``'s database (the application mounts them)."""
    return LivePages(web).routes()
