"""Helpers of the web tests: the live pages served for real by uvicorn on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from arena.site.render import template_dir
from arena.web.context import Web, WebSettings
from arena.web.pages import LivePages

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'"
)
"""The application's Content-Security-Policy (docs/web.md), which the pages must work under,
with ``style-src-attr 'unsafe-inline'``: the site's templates colour chart swatches, progress
bars and head-to-head cells with ``style=`` attributes of computed values (no byte of a bot's),
which ``style-src 'self'`` alone blocks. No inline script, no ``<style>`` element."""


async def _csp(request: Request, call_next: RequestResponseEndpoint) -> Response:
    response = await call_next(request)
    response.headers["Content-Security-Policy"] = CSP
    return response


@contextmanager
def live_site(db: Path) -> Iterator[tuple[str, LivePages]]:
    """``Starlette(routes=LivePages(web).routes())`` with the site's static files at
    ``/static/`` and the application's CSP header, served by a real uvicorn in a thread on a
    free port; yields its base URL and the pages (to count their renders)."""
    web = Web(WebSettings(db))
    pages = LivePages(web)
    static = Mount("/static", StaticFiles(directory=template_dir() / "static"))
    csp = Middleware(BaseHTTPMiddleware, dispatch=_csp)
    app = Starlette(routes=[*pages.routes(), static], middleware=[csp])
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", pages
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        pages.close()
        # Not web.close(): it closes each thread's connection from this thread, which
        # sqlite3 refuses (ProgrammingError); the thread pool's connections go with it.


def wait_until(check, timeout: float = 20.0, step: float = 0.05) -> bool:  # noqa: ANN001
    """Whether ``check()`` came true within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(step)
    return bool(check())
