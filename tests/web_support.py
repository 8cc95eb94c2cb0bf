"""Serving ``arena web``'s application for real in tests: uvicorn on 127.0.0.1 in a thread of
the test process, on a free port, with its own database."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import uvicorn

from arena.web.app import create_app, uvicorn_config
from arena.web.context import WebSettings


def free_port() -> int:
    """A TCP port free on the loopback now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def web_server(settings: WebSettings, **app_options: Any) -> Iterator[str]:
    """The application of ``settings`` served by uvicorn until the block ends (its lifespan
    runs at both ends); yields its base URL."""
    settings = replace(settings, port=free_port())
    config = uvicorn_config(create_app(settings, **app_options), settings)
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
