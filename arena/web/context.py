"""What every part of the web application shares: its settings and one :class:`~arena.api.Arena`
per thread over the database.

Starlette runs plain (``def``) endpoints in a thread pool; SQLite connections belong to the thread
that opened them, so each thread opens the database once, through the library, and keeps it.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from jinja2 import Environment

from arena.api import Arena
from arena.site.render import site_env

PlayPolicy = Literal["anyone", "authors", "off"]
"""Who may take a seat against the bots in the browser: everyone, logged-in authors only, or
nobody (the organiser decides, ``arena web --play``)."""

DEFAULT_PORT: Final = 8000


@dataclass(frozen=True)
class WebSettings:
    """How ``arena web`` serves one database."""

    db: Path
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    play: PlayPolicy = "anyone"
    secret_key: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    """Signs the session cookies; a new one each start logs everybody out (``--secret-file``
    keeps one across restarts)."""
    server_names: tuple[str, ...] = ()
    """The names (``Host`` headers) the application answers to besides the loopback names it
    answers to on a loopback address: the public name behind a proxy or with TLS."""
    https: bool = False
    """Served over TLS (its own, or a proxy's): the session cookie is ``Secure``."""
    behind_proxy: bool = False
    """Behind a reverse proxy on this machine: the client's address is the proxy's
    ``X-Forwarded-For`` (for the rate limits)."""


class Web:
    """The application's shared state: settings, templates, and the database per thread."""

    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings
        self.env: Environment = site_env()
        self._local = threading.local()
        self._opened: list[Arena] = []
        self._lock = threading.Lock()

    def arena(self) -> Arena:
        """This thread's :class:`Arena` over the database (opened the first time; the file must
        exist: ``arena web`` never creates a database)."""
        arena: Arena | None = getattr(self._local, "arena", None)
        if arena is None:
            arena = Arena(self.settings.db, create=False)
            self._local.arena = arena
            with self._lock:
                self._opened.append(arena)
        return arena

    def close(self) -> None:
        """Close every thread's database (at shutdown)."""
        with self._lock:
            opened, self._opened = self._opened, []
        for arena in opened:
            try:
                arena.close()
            except sqlite3.ProgrammingError:
                pass  # opened by another thread: SQLite closes it when it is collected
