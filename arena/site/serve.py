"""``arena serve``: the rendered site over HTTP on the loopback interface, for local browsing.

It is http.server's static file handler with three guards:

* it binds only to a loopback address;
* it answers only requests whose ``Host`` header names this machine *exactly*: ``localhost``,
  an IPv4 literal in 127.0.0.0/8 or ``[::1]``, with the port it listens on. A web page on
  another site that rebinds its own name to 127.0.0.1 (DNS rebinding) sends its own name,
  ``127.attacker.example`` included, and gets 421 Misdirected Request;
* it never lists a directory: a folder is served only through its ``index.html``, anything
  else is 404;
* given the database, it renders on request only the pages of :mod:`arena.site.live` (a
  stored match's replay that is not kept as a file, a whole match list), for ids it finds
  stored (looked up before anything is rendered), with the site's escaping templates; a
  malformed list query is 400, anything else 404; at most :data:`RENDERS` pages are rendered
  at once, and a request that waits :data:`RENDER_WAIT_SECONDS` for its turn gets 503 with
  ``Retry-After``, so a flood of requests never stalls the server or drops connections.
"""

from __future__ import annotations

import functools
import io
import ipaddress
import os
import re
import socket
import threading
import urllib.parse
from http import HTTPStatus
from http.server import HTTPServer, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final, cast

from arena.errors import ArenaError
from arena.site import live

_PORT = re.compile(r"[0-9]{1,5}")

RENDERS: Final = 2
"""Pages rendered from the database at once (the others wait their turn)."""

RENDER_WAIT_SECONDS: Final = 10.0
"""How long a request waits for a turn to render before it is answered 503."""

BACKLOG: Final = 128
"""Connections the listening socket queues while every thread is busy (http.server's 5
reset a burst of connections)."""


def check_loopback(host: str) -> None:
    """Refuse any address that is not loopback: the site is for this machine only."""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise ArenaError(f"refusing to serve on {host}: only loopback addresses (127.0.0.1, ::1)")


def is_loopback_name(name: str) -> bool:
    """True for ``localhost``, an IPv4 literal in 127.0.0.0/8, or ``[::1]`` (brackets kept).

    Literals are parsed strictly (no ``127.1``, no octal or hex parts, no leading zeros), so a
    name merely *starting* with ``127.`` is a DNS name like any other and is refused.
    """
    name = name.lower()
    if name == "localhost":
        return True
    if name.startswith("[") and name.endswith("]"):
        try:
            return ipaddress.IPv6Address(name[1:-1]) == ipaddress.IPv6Address("::1")
        except ValueError:
            return False
    try:
        return ipaddress.IPv4Address(name) in ipaddress.IPv4Network("127.0.0.0/8")
    except ValueError:
        return False


def host_is_local(header: str | None, port: int) -> bool:
    """Whether a ``Host`` header value names this server: a loopback name and our port.

    Without a port the header means port 80, so it matches only a server on port 80.
    """
    if not header:
        return False
    if ":" not in header or (header.startswith("[") and header.endswith("]")):
        name, given = header, "80"  # no port part ("localhost", "[::1]"): http's default
    else:
        name, _, given = header.rpartition(":")
    if not _PORT.fullmatch(given) or int(given) != port:
        return False
    return is_loopback_name(name)


class _Handler(SimpleHTTPRequestHandler):
    """Static files, only for requests addressed to this machine, and no directory listings."""

    quiet = False
    db_path: Path | None = None
    renders: threading.BoundedSemaphore = threading.BoundedSemaphore(RENDERS)

    def _refuse_foreign_host(self) -> bool:
        hosts = self.headers.get_all("Host") or []
        port = cast(HTTPServer, self.server).server_port
        if len(hosts) == 1 and host_is_local(hosts[0].strip(), port):
            return False
        # 421: this server does not answer for that authority (it is not the named site).
        self.send_error(
            HTTPStatus.MISDIRECTED_REQUEST, f"only requests to localhost:{port} are answered"
        )
        return True

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if not self._refuse_foreign_host():
            super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if not self._refuse_foreign_host():
            super().do_HEAD()

    def send_head(self) -> Any:
        dynamic = self._dynamic()
        if dynamic is not None:
            return dynamic
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            # A folder is served only as its index.html, and only with the trailing slash
            # (no redirect that would echo the request's path back as a Location).
            slash = urllib.parse.urlsplit(self.path).path.endswith("/")
            if not (slash and os.path.isfile(os.path.join(path, "index.html"))):
                self.send_error(HTTPStatus.NOT_FOUND, "File not found")
                return None
        return super().send_head()

    def _dynamic(self) -> Any:
        """A page rendered on request from the database (an old replay, a whole match list):
        its body as a file object after the headers, or None to serve the folder as is."""
        db = self.db_path
        parts = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(parts.path)
        if db is None or not live.is_dynamic(path) or os.path.isfile(self.translate_path(path)):
            return None
        if not self.renders.acquire(timeout=RENDER_WAIT_SECONDS):
            self.send_response(HTTPStatus.SERVICE_UNAVAILABLE, "busy rendering other pages")
            self.send_header("Retry-After", "5")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return io.BytesIO(b"")
        try:
            html = live.render_request(db, Path(self.directory), path, parts.query)
        except live.BadRequest as e:
            self.send_error(HTTPStatus.BAD_REQUEST, str(e))
            return io.BytesIO(b"")
        except ArenaError:
            self.send_error(HTTPStatus.SERVICE_UNAVAILABLE, "the database cannot be read now")
            return io.BytesIO(b"")
        finally:
            self.renders.release()
        if html is None:
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return io.BytesIO(b"")
        body = html.encode("utf-8")
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        # Never reached through send_head above; kept closed in case the base class changes.
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")

    def end_headers(self) -> None:
        # Always fresh while an organiser re-renders; nothing on the site is secret.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base signature)
        if not self.quiet:
            super().log_message(format, *args)


class _Server4(ThreadingHTTPServer):
    request_queue_size = BACKLOG


class _Server6(_Server4):
    address_family = socket.AF_INET6


def make_server(
    out_dir: str | Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    quiet: bool = False,
    db_path: str | Path | None = None,
) -> ThreadingHTTPServer:
    """A server for the site in ``out_dir`` (port 0 picks a free port: see ``server_port``).

    With ``db_path``, the database the site was rendered from, the replays the site does not
    keep as files and the whole match lists are rendered on request from it
    (:mod:`arena.site.live`); another database (a site rendered elsewhere) is not used."""
    check_loopback(host)
    root = Path(out_dir)
    if not (root / "index.html").is_file():
        raise ArenaError(f"no site in {root}: run `arena render --out {root}` first")
    db = None
    if db_path is not None and Path(db_path).is_file() and live.rendered_from(Path(db_path), root):
        db = Path(db_path).resolve()
    attrs = {"quiet": quiet, "db_path": db, "renders": threading.BoundedSemaphore(RENDERS)}
    handler = functools.partial(
        type("Handler", (_Handler,), attrs),
        directory=str(root.resolve()),
    )
    server_class = _Server6 if ":" in host else _Server4
    try:
        server = server_class((host, port), handler)
    except OSError as e:
        raise ArenaError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    server.daemon_threads = True
    return server
