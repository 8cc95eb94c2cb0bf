"""The guards in front of every request of ``arena web`` (plain ASGI middleware, docs/web.md):

* :class:`HostGuard`: answers only requests whose ``Host`` names this server (a web page
  elsewhere that rebinds its own name to our address sends its own name: 421);
* :class:`BodyLimit`: refuses a request body over its cap with 413, by its declared
  ``Content-Length`` before reading any of it, or while it streams (a chunked body is cut
  the moment it passes the cap, never read whole);
* :class:`SecurityHeaders`: the Content-Security-Policy and the other security headers on
  every response, and ``Cache-Control: no-store`` on every response that sets no caching of
  its own (the private pages, the API, the error pages).

The error pages they send are :func:`error_response` (the site's look, or JSON under ``/api/``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any, Final

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena import __version__
from arena.site.serve import is_loopback_name
from arena.web.context import Web

CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'"
)
"""The Content-Security-Policy of every response: no inline script and no ``<style>`` element,
nothing from another origin, never framed. ``style-src-attr 'unsafe-inline'`` lets the site's
templates size progress bars and colour chart swatches and head-to-head cells with ``style=``
attributes of values the site computes (never a byte of a bot's or an author's: those are
escaped text); a ``style`` attribute cannot run script."""

SECURITY_HEADERS: Final = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)

HSTS: Final = (b"strict-transport-security", b"max-age=31536000")
"""Sent over TLS only: browsers remember to come back over HTTPS."""

STATIC_CACHE: Final = b"public, max-age=3600"
"""``Cache-Control`` of ``/static/`` (the stylesheet, scripts, icon)."""


def render_page(web: Web, template: str, **context: Any) -> str:
    """One of the application's own pages (``templates/web_*.html``, on the site's
    ``base.html``): every value is escaped by the templates' autoescape."""
    common = {"root": "/", "page_path": "", "current": None, "generated_at": None}
    return web.env.get_template(template).render(common, version=__version__, **context)


def error_response(web: Web, path: str, status: int, message: str) -> Response:
    """The error page of ``status``: JSON ``{"error": message}`` under ``/api/``, else a page
    of the site's look with ``message`` (escaped, as every value of the templates)."""
    if path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    title = HTTPStatus(status).phrase
    html = render_page(web, "web_error.html", status=status, title=title, message=message)
    return HTMLResponse(html, status_code=status)


def client_address(request: Request) -> str:
    """The client's address, what every per-address bound counts (behind ``--behind-proxy``,
    uvicorn's from the proxy's ``X-Forwarded-For``)."""
    return request.client.host if request.client is not None else "unknown"


def name_of(host_header: str) -> str:
    """The host name of a ``Host`` header value, lowercased, without its port."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_loopback_address(host: str) -> bool:
    """Whether ``host`` (a bind address) is a loopback address or ``localhost``."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HostGuard:
    """421 Misdirected Request for a ``Host`` this server does not answer to."""

    def __init__(self, app: ASGIApp, web: Web) -> None:
        self.app = app
        self.web = web
        self.loopback = is_loopback_address(web.settings.host)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        hosts = Headers(scope=scope).getlist("host")
        if len(hosts) == 1 and self._allowed(hosts[0]):
            await self.app(scope, receive, send)
            return
        response = error_response(
            self.web, scope["path"], 421, "this server does not answer for that host name"
        )
        await response(scope, receive, send)

    def _allowed(self, header: str) -> bool:
        name = name_of(header)
        if name in (n.lower() for n in self.web.settings.server_names):
            return True
        return self.loopback and is_loopback_name(name)


class BodyTooLarge(Exception):
    """A request body passed its cap while it was being read."""


class BodyLimit:
    """413 for a request body over its cap: ``cap(path)`` bytes."""

    def __init__(self, app: ASGIApp, web: Web, cap: Callable[[str], int]) -> None:
        self.app = app
        self.web = web
        self.cap = cap

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = self.cap(scope["path"])
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > cap):
            await self._refuse(scope, receive, send, cap)
            return
        seen = 0
        started = False

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > cap:
                    raise BodyTooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited, watched)
        except BodyTooLarge:
            if started:
                raise
            await self._refuse(scope, receive, send, cap)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, cap: int) -> None:
        message = f"the request is over {cap:,} bytes"
        response = error_response(self.web, scope["path"], 413, message)
        response.headers["connection"] = "close"
        await response(scope, receive, send)


class SecurityHeaders:
    """The security headers on every response (and HSTS over TLS)."""

    def __init__(self, app: ASGIApp, web: Web) -> None:
        self.app = app
        self.extra: Iterable[tuple[bytes, bytes]] = (
            (*SECURITY_HEADERS, HSTS) if web.settings.https else SECURITY_HEADERS
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith("/static/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in self.extra if k not in present]
                if b"cache-control" not in present:
                    headers.append((b"cache-control", STATIC_CACHE if static else b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


__all__ = [
    "CSP",
    "BodyLimit",
    "BodyTooLarge",
    "HostGuard",
    "SecurityHeaders",
    "error_response",
    "render_page",
    "name_of",
]
