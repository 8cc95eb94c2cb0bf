"""``arena serve``: the rendered site over HTTP on the loopback interface, for local browsing.

It is http.server's static file handler with two guards: it binds only to a loopback
address, and it answers only requests whose ``Host`` names this machine (so a page on some
other site cannot reach it through DNS rebinding).
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from arena.errors import ArenaError

_LOCAL_NAMES = {"localhost", "127.0.0.1", "[::1]", "::1"}


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


class _Handler(SimpleHTTPRequestHandler):
    """Static files, only for requests addressed to this machine."""

    quiet = False

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name in _LOCAL_NAMES or name.startswith("127.")

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if not self._host_ok():
            self.send_error(403, "only local requests")
            return
        super().do_GET()

    def do_HEAD(self) -> None:  # noqa: N802
        if not self._host_ok():
            self.send_error(403, "only local requests")
            return
        super().do_HEAD()

    def end_headers(self) -> None:
        # Always fresh while an organiser re-renders; nothing on the site is secret.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base signature)
        if not self.quiet:
            super().log_message(format, *args)


class _Server6(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def make_server(
    out_dir: str | Path, host: str = "127.0.0.1", port: int = 8000, *, quiet: bool = False
) -> ThreadingHTTPServer:
    """A server for the site in ``out_dir`` (port 0 picks a free port: see ``server_port``)."""
    check_loopback(host)
    root = Path(out_dir)
    if not (root / "index.html").is_file():
        raise ArenaError(f"no site in {root}: run `arena render --out {root}` first")
    handler = functools.partial(
        type("Handler", (_Handler,), {"quiet": quiet}), directory=str(root.resolve())
    )
    server_class = _Server6 if ":" in host else ThreadingHTTPServer
    try:
        server = server_class((host, port), handler)
    except OSError as e:
        raise ArenaError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    server.daemon_threads = True
    return server
