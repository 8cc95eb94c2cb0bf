"""The ASGI application of ``arena web`` and how uvicorn serves it (docs/web.md).

:func:`create_app` puts together the guards (:mod:`arena.web.guard`: host check, body caps,
security headers), the signed session cookie, the rate limits, the authors' routes
(:mod:`arena.web.accounts`), the other routes (the live pages, playing in the browser), the
static files and the error pages; its lifespan stops the upload checks and closes every
thread's database. :func:`serve` runs it under uvicorn with deliberate limits on connections
and timeouts.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from arena.site.render import template_dir
from arena.web import play
from arena.web.accounts import MAX_SOURCE_BYTES, Accounts
from arena.web.checks import Checks
from arena.web.context import Web, WebSettings
from arena.web.guard import BodyLimit, HostGuard, SecurityHeaders, error_response
from arena.web.pages import LivePages
from arena.web.play import Games, PlayLimits
from arena.web.ratelimit import RateLimits, RateRules

log = logging.getLogger(__name__)

SESSION_COOKIE: Final = "arena_session"
SESSION_DAYS: Final = 7
"""A session lasts this long (or until logout, a new ``--secret-file``, a revoked token)."""

UPLOAD_PATHS: Final = ("/api/bots", "/me/upload")
"""The routes that take a bot file."""

UPLOAD_BODY_BYTES: Final = MAX_SOURCE_BYTES + 64 * 1024
"""The largest upload request: the largest bot file and its form around it."""

FORM_BODY_BYTES: Final = 64 * 1024
"""The largest body of any other request (a login form, a move in a game)."""

CONNECTIONS: Final = 1000
"""Connections (and requests in flight) uvicorn serves at once; more get 503 at once."""

KEEP_ALIVE_SECONDS: Final = 5
"""An idle keep-alive connection is closed after this."""

GRACEFUL_SECONDS: Final = 10
"""On shutdown, requests in flight get this long to finish."""


def body_cap(path: str) -> int:
    """The largest request body for ``path``."""
    return UPLOAD_BODY_BYTES if path in UPLOAD_PATHS else FORM_BODY_BYTES


def create_app(
    settings: WebSettings,
    *,
    rates: RateRules | None = None,
    routes: Sequence[BaseRoute] | None = None,
    play_limits: PlayLimits | None = None,
) -> Starlette:
    """The web application over ``settings.db``: every route, guard and limit.

    ``rates``: the rate limits (default :class:`~arena.web.ratelimit.RateRules`); ``routes``:
    the routes beside the authors' (default: the live pages of :mod:`arena.web.pages`, the
    pages ``app.state.pages``, and playing in the browser, :mod:`arena.web.play`, the games
    in play ``app.state.games``, within ``play_limits``).
    """
    web = Web(settings)
    checks = Checks(web)
    accounts = Accounts(web, checks, RateLimits(rates or RateRules()))
    pages = LivePages(web)
    games = Games(play_limits or PlayLimits())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            checks.close()
            games.close()
            pages.close()
            web.close()

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = exc.detail if exc.status_code != 404 else "there is no such page"
        return error_response(web, request.url.path, exc.status_code, message)

    static = StaticFiles(directory=Path(template_dir()) / "static")
    app = Starlette(
        routes=[
            *accounts.routes(),
            *([*pages.routes(), *play.routes(web, games=games)] if routes is None else routes),
            Mount("/static", static, name="static"),
        ],
        middleware=[
            Middleware(SecurityHeaders, web=web),
            Middleware(HostGuard, web=web),
            Middleware(BodyLimit, web=web, cap=body_cap),
            Middleware(
                SessionMiddleware,
                secret_key=settings.secret_key.hex(),
                session_cookie=SESSION_COOKIE,
                max_age=SESSION_DAYS * 24 * 3600,
                same_site="strict",
                https_only=settings.https,
            ),
        ],
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
    app.state.web = web
    app.state.checks = checks
    app.state.pages = pages
    app.state.games = games
    return app


def uvicorn_config(
    app: Starlette, settings: WebSettings, *, tls: tuple[Path, Path] | None = None
) -> uvicorn.Config:
    """uvicorn's configuration for ``app``: the bind address, TLS (``tls``: the certificate
    and key files), proxy headers trusted from the loopback only when behind a proxy, and
    the limits on connections and timeouts."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        ssl_certfile=str(tls[0]) if tls else None,
        ssl_keyfile=str(tls[1]) if tls else None,
        proxy_headers=settings.behind_proxy,
        forwarded_allow_ips="127.0.0.1,::1" if settings.behind_proxy else "",
        server_header=False,
        date_header=True,
        limit_concurrency=CONNECTIONS,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
        h11_max_incomplete_event_size=16 * 1024,
        log_level="warning",
        access_log=False,
    )


def serve(settings: WebSettings, *, tls: tuple[Path, Path] | None = None) -> None:
    """Serve the application with uvicorn until interrupted (``arena web``)."""
    uvicorn.Server(uvicorn_config(create_app(settings), settings, tls=tls)).run()
