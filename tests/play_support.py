"""Helpers of the play tests: a database with two stored bots, the play routes served for
real by uvicorn on 127.0.0.1, and a person who answers by a simple rule."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from web_support import serve_app

from arena import Arena
from arena.tournaments.entrants import resolve
from arena.tournaments.human import HumanGame
from arena.web import play
from arena.web.app import create_app
from arena.web.context import PlayPolicy, WebSettings

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


def app(
    db: Path, policy: PlayPolicy = "anyone", limits: play.PlayLimits | None = None
) -> Starlette:
    """``arena web``'s whole application over ``db`` (its guards, CSP, session and static
    files), the games within ``limits``, plus ``/test-login`` to become an author."""
    application = create_app(WebSettings(db=db, play=policy), play_limits=limits)
    application.router.routes.insert(0, Route("/test-login", _login, methods=["POST"]))
    return application


@contextmanager
def serving(application: Starlette) -> Iterator[str]:
    """``application`` (made by :func:`create_app`) served by uvicorn as ``arena web`` serves
    it (:func:`web_support.serve_app`, on a free loopback port); yields its base URL."""
    with serve_app(application, application.state.web.settings) as url:
        yield url
