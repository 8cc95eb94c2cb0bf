"""Playing the bots in the browser: ``GET /play`` (choose two opponents and a seat), the game
API (``POST /api/games``, ``GET /api/games/{id}``, ``POST /api/games/{id}/answer``,
``POST /api/games/{id}/leave``) and ``GET /games/{id}``, the game's page (docs/web.md).

Each game is :meth:`arena.api.Arena.play_human`: the bots run sandboxed as in every match and
the person's seat is one more channel. Whoever made a game holds its secret, returned once by
``POST /api/games``: every call about the game carries it in the ``X-Arena-Game`` header (a
cross-site page cannot send a custom header without a CORS preflight, which this app never
grants; the secret is never in a URL). Games are bounded, in all and per client address; a
game nobody has looked at for a while is ended (the person's seat forfeits) and forgotten.
"""

from __future__ import annotations

import asyncio
import atexit
import hmac
import json
import re
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena import __version__
from arena.errors import ArenaError
from arena.tournaments.human import MAX_NAME, HumanGame
from arena.untrusted import clean_line
from arena.web.context import Web
from arena.web.guard import client_address

__all__ = ["GAME_HEADER", "PlayLimits", "Games", "routes"]

GAME_HEADER: Final = "X-Arena-Game"
"""The header that carries a game's secret."""

MAX_BODY: Final = 4096
"""The largest JSON body the game API reads (a keep's five cards fit many times over)."""

_GAME_ID: Final = re.compile(r"[0-9a-f]{16}")
"""A game's id (:func:`secrets.token_hex` of 8 bytes)."""

POLL_SECONDS: Final = 20.0
"""How long ``GET /api/games/{id}?after=N`` waits for a change before it answers anyway."""


@dataclass(frozen=True)
class PlayLimits:
    """How many games the web process holds, and for how long.

    Each game holds two sandboxed bot processes (and their hosts): ``max_games`` at once in
    all, ``per_client`` for one client address; ``idle_seconds`` without a look at the game
    (the page polls while it is open) ends it, the person forfeiting; a finished game is
    forgotten ``keep_seconds`` after its end (its replay stays); ``decision_seconds`` is the
    person's time per decision.
    """

    max_games: int = 4
    per_client: int = 2
    idle_seconds: float = 180.0
    keep_seconds: float = 600.0
    decision_seconds: float = 120.0


@dataclass
class _Entry:
    game: HumanGame
    secret: str
    client: str
    seen: float = field(default_factory=time.monotonic)
    ended: float | None = None


class Refused(Exception):
    """A request the game API refuses: its status and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Games:
    """The games this web process holds, by id; thread-safe."""

    def __init__(self, limits: PlayLimits) -> None:
        self.limits = limits
        self._games: dict[str, _Entry] = {}
        self._starting: list[str] = []  # admitted clients whose game is being started
        self._lock = threading.Lock()

    def sweep(self) -> None:
        """End the idle games and forget those finished long enough ago."""
        now = time.monotonic()
        with self._lock:
            entries = list(self._games.items())
        for gid, e in entries:
            if e.game.finished:
                e.ended = e.ended or now
                if now - e.ended >= self.limits.keep_seconds:
                    with self._lock:
                        self._games.pop(gid, None)
            elif now - e.seen > self.limits.idle_seconds:
                e.game.leave()  # the match ends at once for this seat; kept until finished

    def admit(self, client: str) -> None:
        """Reserve a table for a new game of ``client`` (:meth:`add` or :meth:`release` it);
        refuse one over the bounds (503 in all, 429 for this client)."""
        self.sweep()
        with self._lock:
            live = [e.client for e in self._games.values() if not e.game.finished]
            live += self._starting
            if len(live) >= self.limits.max_games:
                raise Refused(503, "all the tables are taken: try again in a few minutes")
            if live.count(client) >= self.limits.per_client:
                raise Refused(429, f"at most {self.limits.per_client} games at once per address")
            self._starting.append(client)

    def release(self, client: str) -> None:
        """Give back a table reserved by :meth:`admit` (the game did not start)."""
        with self._lock:
            self._starting.remove(client)

    def add(self, game: HumanGame, client: str) -> str:
        """Hold ``game`` on the table reserved for ``client``; its secret."""
        secret = secrets.token_urlsafe(24)
        with self._lock:
            self._starting.remove(client)
            self._games[game.id] = _Entry(game, secret, client)
        return secret

    def get(self, gid: str, secret: str | None) -> HumanGame:
        """The game ``gid`` if ``secret`` is its secret (404 otherwise: a wrong secret does not
        tell whether the game exists); looking at it keeps it alive."""
        with self._lock:
            entry = self._games.get(gid)
        expected = entry.secret if entry is not None else secrets.token_urlsafe(24)
        if not hmac.compare_digest((secret or "").encode(), expected.encode()) or entry is None:
            raise Refused(404, "no such game (or not yours)")
        entry.seen = time.monotonic()
        return entry.game

    def close(self) -> None:
        """End every game (at shutdown): the people's seats forfeit, the bots finish."""
        with self._lock:
            entries = list(self._games.values())
        for e in entries:
            if not e.game.finished:
                e.game.leave()


def routes(
    web: Web, limits: PlayLimits | None = None, games: Games | None = None
) -> list[BaseRoute]:
    """The play page, the game API and the game page, over ``web``'s database. ``games``: the
    games in play (closed by the caller at shutdown: :func:`arena.web.app.create_app`'s
    lifespan); without it, a new one closed at exit."""
    if games is None:
        games = Games(limits or PlayLimits())
        atexit.register(games.close)  # the people's seats forfeit; the bots' processes end
    return [
        Route("/play", _page(web, games, "play.html"), methods=["GET"]),
        Route("/games/{gid}", _page(web, games, "game.html"), methods=["GET"]),
        Route("/api/games", _create(web, games), methods=["POST"]),
        Route("/api/games/{gid}", _state(web, games), methods=["GET"]),
        Route("/api/games/{gid}/answer", _answer(web, games), methods=["POST"]),
        Route("/api/games/{gid}/leave", _leave(web, games), methods=["POST"]),
    ]


def _allowed(web: Web, request: Request) -> None:
    """The organiser's policy (``web.settings.play``): anyone, logged-in authors, nobody."""
    policy = web.settings.play
    if policy == "off":
        raise Refused(404, "playing in the browser is off on this arena")
    if policy == "authors":
        author = request.session.get("author") if "session" in request.scope else None
        if not isinstance(author, str) or not author:
            raise Refused(403, "only logged-in authors may play on this arena: log in first")


def _refusal(e: Refused) -> JSONResponse:
    return JSONResponse({"error": str(e)}, status_code=e.status)


def _opponents(web: Web) -> list[str]:
    """The names of the stored bots one may play against (their latest versions)."""
    return sorted({v.name for v in web.arena().bots()}, key=str.lower)


def _page(web: Web, games: Games, template: str) -> Any:
    def endpoint(request: Request) -> Response:
        try:
            _allowed(web, request)
        except Refused as e:
            return HTMLResponse(_html(web, "play_refused.html", message=str(e)), e.status)
        games.sweep()
        gid = request.path_params.get("gid", "")
        if "gid" in request.path_params and not _GAME_ID.fullmatch(gid):
            return HTMLResponse(_html(web, "play_refused.html", message="No such game."), 404)
        context = {"bots": _opponents(web), "gid": gid, "limits": games.limits}
        return HTMLResponse(_html(web, template, **context))

    return endpoint


def _html(web: Web, template: str, **context: Any) -> str:
    values = {"root": "/", "page_path": "", "version": __version__, "current": None,
              "generated_at": None}  # fmt: skip
    return web.env.get_template(template).render({**values, **context})


async def _json(request: Request) -> Mapping[str, object]:
    """The JSON object of a request's body (at most :data:`MAX_BODY` bytes)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise Refused(415, "send JSON (Content-Type: application/json)")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, f"a body of at most {MAX_BODY} bytes")
    try:
        data = json.loads(body)
    except ValueError:
        raise Refused(400, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise Refused(400, "the body is not a JSON object")
    return data


def _create(web: Web, games: Games) -> Any:
    async def endpoint(request: Request) -> Response:
        try:
            _allowed(web, request)
            data = await _json(request)
            author = request.session.get("author") if "session" in request.scope else None
            client = client_address(request)
            # In a thread of its own: the database is opened per thread (Web.arena).
            game, secret = await asyncio.to_thread(_start, web, games, data, client, author)
        except Refused as e:
            return _refusal(e)
        body = {"id": game.id, "secret": secret, "url": f"/games/{game.id}", "seat": game.seat}
        return JSONResponse(body, status_code=201)

    return endpoint


def _start(
    web: Web, games: Games, data: Mapping[str, object], client: str, author: object
) -> tuple[HumanGame, str]:
    """Check a new game's request against the bounds, start it and hold it; it and its
    secret."""
    opponents, seat, name = _game_request(web, data, author)
    games.admit(client)
    try:
        game = web.arena().play_human(
            opponents, seat=seat, name=name, seconds=games.limits.decision_seconds
        )
    except BaseException as e:
        games.release(client)
        if isinstance(e, ArenaError):
            raise Refused(400, clean_line(str(e), 200)) from None
        raise
    return game, games.add(game, client)


def _game_request(
    web: Web, data: Mapping[str, object], author: object
) -> tuple[list[str], int, str]:
    """Two stored bots' names, a seat and the person's name, checked."""
    opponents, seat = data.get("opponents"), data.get("seat", 0)
    known = set(_opponents(web))
    if (
        not isinstance(opponents, list)
        or len(opponents) != 2
        or not all(isinstance(o, str) and o in known for o in opponents)
    ):
        raise Refused(400, "choose two of the arena's bots as opponents")
    if opponents[0] == opponents[1]:
        raise Refused(400, "choose two different bots")
    if type(seat) is not int or seat not in (0, 1, 2):
        raise Refused(400, "seat is 0, 1 or 2")
    name = data.get("name") or (author if isinstance(author, str) else None) or "guest"
    if not isinstance(name, str):
        raise Refused(400, "name is a string")
    return list(opponents), seat, clean_line(name, MAX_NAME).strip() or "guest"


def _state(web: Web, games: Games) -> Any:
    async def endpoint(request: Request) -> Response:
        try:
            _allowed(web, request)
            game = games.get(request.path_params["gid"], request.headers.get(GAME_HEADER))
            after = _int(request.query_params.get("after"), -1)
        except Refused as e:
            return _refusal(e)
        deadline = time.monotonic() + POLL_SECONDS
        while game.version <= after and not game.finished and time.monotonic() < deadline:
            await asyncio.sleep(0.1)  # a long poll that holds no thread
        return JSONResponse(game.table(), headers={"Cache-Control": "no-store"})

    return endpoint


def _int(text: str | None, default: int) -> int:
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise Refused(400, "after is a number") from None


def _answer(web: Web, games: Games) -> Any:
    async def endpoint(request: Request) -> Response:
        try:
            _allowed(web, request)
            game = games.get(request.path_params["gid"], request.headers.get(GAME_HEADER))
            data = await _json(request)
            turn = data.get("turn")
            if turn is not None and type(turn) is not int:
                raise Refused(400, "turn is a number")
            try:
                game.answer(data.get("action"), turn)
            except ArenaError as e:
                raise Refused(409, clean_line(str(e), 200)) from None
        except Refused as e:
            return _refusal(e)
        return JSONResponse(game.table(), headers={"Cache-Control": "no-store"})

    return endpoint


def _leave(web: Web, games: Games) -> Any:
    async def endpoint(request: Request) -> Response:
        try:
            game = games.get(request.path_params["gid"], request.headers.get(GAME_HEADER))
        except Refused as e:
            return _refusal(e)
        if not game.finished:
            game.leave()
        return JSONResponse({"left": True})

    return endpoint
