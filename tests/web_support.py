"""Serving ``arena web``'s application for real in tests: uvicorn on 127.0.0.1 in a thread of
the test process, on a free port, with its own database."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette

from arena.web.app import create_app, uvicorn_config
from arena.web.context import WebSettings
from arena.web.pages import LivePages


def free_port() -> int:
    """A TCP port free on the loopback now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def web_server(settings: WebSettings, **app_options: Any) -> Iterator[str]:
    """The application of ``settings`` served by uvicorn until the block ends (its lifespan
    runs at both ends); yields its base URL."""
    with serve_app(create_app(settings, **app_options), settings) as url:
        yield url


@contextmanager
def serve_app(app: Starlette, settings: WebSettings) -> Iterator[str]:
    """``app`` served by uvicorn on a free port of 127.0.0.1 with ``arena web``'s
    configuration (a shorter grace at shutdown: open event streams are cut after 1 s)."""
    settings = replace(settings, port=free_port())
    config = uvicorn_config(app, settings)
    config.timeout_graceful_shutdown = 1
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{settings.port}"
    finally:
        server.should_exit = True
        thread.join(30)


@contextmanager
def live_site(db: Path) -> Iterator[tuple[str, LivePages]]:
    """The whole application over ``db`` (its guards, CSP and static files) served by uvicorn
    on a free port; yields its base URL and its live pages (to count their renders)."""
    app = create_app(WebSettings(db))
    pages: LivePages = app.state.pages
    with serve_app(app, WebSettings(db)) as url:
        yield url, pages


def wait_until(check: Callable[[], object], timeout: float = 20.0, step: float = 0.05) -> bool:
    """Whether ``check()`` came true within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(step)
    return bool(check())
