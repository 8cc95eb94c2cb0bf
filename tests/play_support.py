"""Helpers of the play tests: a database with two stored bots, the play routes served for
real by uvicorn on 127.0.0.1, and a person who answers by a simple rule."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena import Arena
from arena.site.render import template_dir
from arena.tournaments.entrants import resolve
from arena.tournaments.human import HumanGame
from arena.web import play
from arena.web.context import PlayPolicy, Web, WebSettings

OPPONENTS = ("random", "heuristic")


def stored_bots(db: Path) -> Path:
    """A database with the bundled random and heuristic bots stored (no sandbox check)."""
    with Arena(db) as arena:
        resolve(arena.store, list(OPPONENTS), minimum=2)
    return db


def first_legal(obs_or_turn: dict[str, Any]) -> Any:
    """The person's rule: the first legal action."""
    return obs_or_turn["legal"][0]


def play_out(game: HumanGame, timeout: float = 120.0) -> int:
    """Answer every decision of ``game`` by :func:`first_legal` until it ends; the answers."""
    answers, version = 0, -1
    deadline = time.monotonic() + timeout
    while not game.finished:
        assert time.monotonic() < deadline, "the game did not end"
        version = game.wait(version, 5)
        decision = game.decision
        if decision is not None:
            game.answer(first_legal(decision.obs), decision.turn)
            answers += 1
    game.join(10)
    return answers


def _login(request: Request) -> JSONResponse:
    # A stand-in for web-core's login (tests only): the session names an author.
    request.session["author"] = "alice"
    return JSONResponse({"author": "alice"})


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
"""The Content-Security-Policy of the web app (docs/web.md): the pages must work under it."""


class _Headers:
    """Adds the app's Content-Security-Policy to every response (web-core's app does)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"].append((b"content-security-policy", CSP.encode()))
            await send(message)

        await self.app(scope, receive, sending)


def app(
    db: Path, policy: PlayPolicy = "anyone", limits: play.PlayLimits | None = None
) -> Starlette:
    """The play routes over ``db``, with the site's static files and a session (as web-core's
    app will have them), and ``/test-login`` to become an author."""
    web = Web(WebSettings(db=db, play=policy))
    routes = [
        *play.routes(web, limits),
        Route("/test-login", _login, methods=["POST"]),
        Mount("/static", StaticFiles(directory=template_dir() / "static"), name="static"),
    ]
    middleware = [
        Middleware(_Headers),
        Middleware(SessionMiddleware, secret_key="test", session_cookie="arena_session"),
    ]
    return Starlette(routes=routes, middleware=middleware)


@contextmanager
def serving(application: Starlette) -> Iterator[str]:
    """``application`` served by uvicorn on a free loopback port; yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(application, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
