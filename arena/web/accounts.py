"""Authors on the web: logging in with a token, uploading bots (the API and the form), and an
author's own page (docs/web.md).

* ``POST /api/bots`` (``Authorization: Bearer TOKEN``, multipart ``file`` and optional
  ``name``): 202 and where to watch the check; ``GET /api/bots/NAME``: the check's outcome;
* ``GET|POST /login``: the token pasted once, then a signed session cookie (``arena_session``)
  that names the author (``request.session["author"]``); ``POST /logout``;
* ``GET /me``: the author's bots, their checks, faults and logs, to that author alone;
  ``POST /me/upload``: the upload form.

Every form carries the session's CSRF token, compared in constant time; the API needs none
(a browser never adds an ``Authorization`` header on its own). Another author's bot name is
403; its checks, faults and logs are never shown to anyone but its author.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import shutil
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from arena.errors import ArenaError, NotFound
from arena.sandbox import Limits
from arena.site.data import bot_href, bot_slugs
from arena.store import Author
from arena.tournaments.authors import may_upload
from arena.tournaments.entrants import check_owner, read_bot_file
from arena.web import unzip
from arena.web.checks import Check, Checks, safe_filename, upload_folder
from arena.web.context import Web
from arena.web.guard import client_address, error_response, render_page
from arena.web.ratelimit import RateLimits

MAX_SOURCE_BYTES: Final = Limits().source_bytes
"""The largest bot file accepted (``arena submit``'s own limit)."""

FAULTS_SHOWN: Final = 20
"""Faults listed per bot on an author's page."""

LOGS_SHOWN: Final = 30
"""Logs (one seat of one match each) listed on an author's page."""


class Refused(Exception):
    """A request refused with ``status`` and a one-line ``message``."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class Upload:
    """An upload read from a multipart form: the saved bot (a file, or the folder of an
    unpacked zip archive) in its private temporary ``folder``, and the bot's name."""

    path: Path
    folder: Path
    name: str


def session_key(author: Author) -> str:
    """What a session holds of the author's token: a hash of its owner id, so a new token
    (``arena authors rotate``) ends every session started with the old one."""
    return hashlib.sha256(f"arena/session/{author.owner}".encode()).hexdigest()[:32]


def csrf_token(request: Request) -> str:
    """This session's CSRF token (made on first use)."""
    token = request.session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        request.session["csrf"] = token
    return token


def check_csrf(request: Request, form: Any) -> None:
    """Refuse (403) a form whose CSRF token is missing or not this session's."""
    given, expected = form.get("csrf"), request.session.get("csrf")
    if not (isinstance(given, str) and isinstance(expected, str)):
        raise Refused(403, "the form is missing its CSRF token: reload the page")
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise Refused(403, "the form's CSRF token is not this session's: reload the page")


def one_line(e: ArenaError, folder: Path) -> str:
    """The message of ``e`` about an uploaded file, without the private folder it was saved in
    and naming the form's fields for the library's settings."""
    return e.spelled(lambda setting: f"the {setting!r} field").replace(f"{folder}/", "")


class Accounts:
    """The authors' routes over one :class:`Web`, its checks and rate limits."""

    def __init__(self, web: Web, checks: Checks, limits: RateLimits) -> None:
        self.web = web
        self.checks = checks
        self.limits = limits

    def routes(self) -> list[BaseRoute]:
        """Every route of this module."""
        return [
            Route("/api/bots", self.api_upload, methods=["POST"]),
            Route("/api/bots/{name}", self.api_status, methods=["GET"]),
            Route("/login", self.login_page, methods=["GET"]),
            Route("/login", self.login, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/me", self.me, methods=["GET"]),
            Route("/me/upload", self.form_upload, methods=["POST"]),
        ]

    # --- limits and authentication ---------------------------------------------------------

    def spend(self, rule: str, key: str) -> None:
        """Spend one request of ``rule`` for ``key``, or refuse 429 with ``Retry-After``."""
        if not self.limits.hit(rule, key):
            wait = self.limits.retry_after(rule, key)
            raise Refused(429, f"too many requests: try again in {wait} s", wait)

    def token_author(self, request: Request, token: str | None) -> Author:
        """The author of ``token``, or 401 (a failure counted against the client's address)."""
        address = client_address(request)
        if not self.limits.allowed("failure", address):
            self.spend("failure", address)  # refused: 429
        author = self.web.arena().author_for_token(token) if token else None
        if author is None:
            self.limits.hit("failure", address)
            raise Refused(401, "no valid token: give Authorization: Bearer <your token>")
        return author

    def session_author(self, request: Request) -> Author | None:
        """The logged-in author, if their token is still valid (a revoked one is logged out)."""
        name, key = request.session.get("author"), request.session.get("key")
        if not isinstance(name, str):
            return None
        try:
            author = self.web.arena().store.author(name)
        except NotFound:
            author = None
        if author is None or author.revoked or key != session_key(author):
            request.session.clear()
            return None
        return author

    def api_author(self, request: Request, *, session: bool = True) -> Author:
        """The author of a request of the API: its bearer token, else (``session``: a read)
        its session. An upload needs the token: a form of another site cannot send it."""
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if header and scheme.lower() == "bearer":
            return self.token_author(request, token.strip())
        author = self.session_author(request) if session else None
        if author is None:
            return self.token_author(request, None)
        return author

    def bearer_author(self, request: Request) -> Author:
        """The author of the request's bearer token (401: none or not valid)."""
        return self.api_author(request, session=False)

    # --- uploads -----------------------------------------------------------------------------

    async def read_upload(self, request: Request, author: Author) -> tuple[Upload, Any]:
        """The bot file and name of an upload form, saved privately; refused when the file is
        missing, too large, badly named, no bot, or another author's name."""
        form = await request.form(max_files=1, max_fields=4, max_part_size=64 * 1024)
        file = form.get("file")
        if not isinstance(file, UploadFile):
            raise Refused(400, "no file: send the bot file in the multipart field 'file'")
        filename = safe_filename(file.filename)
        if filename is None:
            raise Refused(400, "the file needs a plain name with its language's extension")
        content = await file.read(MAX_SOURCE_BYTES + 1)
        if len(content) > MAX_SOURCE_BYTES:
            raise Refused(413, f"a bot file may have at most {MAX_SOURCE_BYTES:,} bytes")
        given = form.get("name")
        name = given.strip() if isinstance(given, str) and given.strip() else None
        folder = upload_folder()
        try:
            path = await run_in_threadpool(self._save, folder, filename, content)
            bot_name = await run_in_threadpool(self._bot_name, author, path, folder, name)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return Upload(path, folder, bot_name), form

    @staticmethod
    def _save(folder: Path, filename: str, content: bytes) -> Path:
        """The upload saved in ``folder``: a bot file as it is, a zip archive unpacked."""
        if not filename.lower().endswith(".zip"):
            path = folder / filename
            path.write_bytes(content)
            return path
        try:
            return unzip.unpack(content, folder, filename[:-4], MAX_SOURCE_BYTES)
        except unzip.TooLarge as e:
            raise Refused(413, str(e)) from None
        except ArenaError as e:
            raise Refused(400, one_line(e, folder)) from None

    def _bot_name(self, author: Author, path: Path, folder: Path, name: str | None) -> str:
        store = self.web.arena().store
        try:
            bot = read_bot_file(path, name, max_bytes=MAX_SOURCE_BYTES)
        except ArenaError as e:
            raise Refused(400, one_line(e, folder)) from None
        if not may_upload(store, author, bot.name):
            raise Refused(403, f"bot {bot.name!r} belongs to another author: choose another name")
        try:  # the reserved names of the bundled bots, and names that read like another's
            check_owner(store, bot, author.owner)
        except ArenaError as e:
            raise Refused(403, one_line(e, folder)) from None
        return bot.name

    def start_check(self, author: Author, upload: Upload) -> Check:
        """Queue the upload's check, or refuse (429: too many checks waiting)."""
        check = self.checks.start(author.name, upload.name, upload.path, upload.folder)
        if check is None:
            shutil.rmtree(upload.folder, ignore_errors=True)
            raise Refused(429, "too many uploads are being checked: try again in a minute", 60)
        return check

    async def api_upload(self, request: Request) -> Response:
        """``POST /api/bots``: 202 with ``{name, status, version, status_url}``."""
        try:
            self.spend("address", client_address(request))
            author = await run_in_threadpool(self.bearer_author, request)
            self.spend("upload", author.name)
            upload, _ = await self.read_upload(request, author)
            check = self.start_check(author, upload)
        except Refused as e:
            return self.refusal(request, e)
        url = f"/api/bots/{urllib.parse.quote(check.name, safe='')}"
        body = {**check.to_dict(), "status_url": url}
        return JSONResponse(body, status_code=202, headers={"location": url})

    def api_status(self, request: Request) -> Response:
        """``GET /api/bots/NAME``: the bot's latest check, to its author only."""
        name = request.path_params["name"]
        try:  # polled: only a wrong token counts against the address
            author = self.api_author(request)
            return JSONResponse(self.status_of(author, name))
        except Refused as e:
            return self.refusal(request, e)

    def status_of(self, author: Author, name: str) -> dict[str, object]:
        """The status of ``author``'s bot ``name`` (403: another's; 404: none)."""
        store = self.web.arena().store
        owners = store.bot_owners()
        if name in owners and owners[name] != author.owner:
            raise Refused(403, f"bot {name!r} belongs to another author")
        check = self.checks.get(author.name, name)
        if check is not None:
            return check.to_dict()
        latest = store.latest_version(name) if name in owners else None
        if latest is None:
            raise Refused(404, f"no bot {name!r} of yours")
        return {"name": name, "status": "stored", "version": latest.version, "reason": None,
                "submitted_at": latest.submitted_at}  # fmt: skip

    def refusal(self, request: Request, e: Refused) -> Response:
        """The error page (or JSON) of a refusal."""
        response = error_response(self.web, request.url.path, e.status, e.message)
        if e.retry_after is not None:
            response.headers["retry-after"] = str(e.retry_after)
        if e.status == 401 and request.url.path.startswith("/api/"):
            response.headers["www-authenticate"] = 'Bearer realm="arena"'
        return response

    # --- the pages ---------------------------------------------------------------------------

    def login_page(self, request: Request) -> Response:
        """``GET /login``: the token form (or the author's page when logged in)."""
        if self.session_author(request) is not None:
            return RedirectResponse("/me", status_code=303)
        return self.page(request, "web_login.html", 200, error=None)

    async def login(self, request: Request) -> Response:
        """``POST /login``: a valid token starts a session naming its author."""
        try:
            self.spend("address", client_address(request))
            form = await request.form(max_files=0, max_fields=4)
            check_csrf(request, form)
            token = form.get("token")
            given = token if isinstance(token, str) else None
            author = await run_in_threadpool(self.token_author, request, given)
        except Refused as e:
            status = e.status
            return self.page(request, "web_login.html", status, error=e.message, e=e)
        request.session.clear()  # a new session: nothing of the anonymous one carries over
        request.session["author"] = author.name
        request.session["key"] = session_key(author)
        request.session["csrf"] = secrets.token_urlsafe(32)
        return RedirectResponse("/me", status_code=303)

    async def logout(self, request: Request) -> Response:
        """``POST /logout``: the session ends."""
        try:
            check_csrf(request, await request.form(max_files=0, max_fields=2))
        except Refused as e:
            return self.refusal(request, e)
        request.session.clear()
        return RedirectResponse("/login", status_code=303)

    def me(self, request: Request) -> Response:
        """``GET /me``: the logged-in author's page; a visitor is sent to log in."""
        author = self.session_author(request)
        if author is None:
            return RedirectResponse("/login", status_code=303)
        return self.page(request, "web_me.html", 200, **self.my_page(author), error=None)

    async def form_upload(self, request: Request) -> Response:
        """``POST /me/upload``: the upload form; back to the author's page."""
        author = await run_in_threadpool(self.session_author, request)
        if author is None:
            return RedirectResponse("/login", status_code=303)
        try:
            self.spend("upload", author.name)
            upload, form = await self.read_upload(request, author)
            try:
                check_csrf(request, form)
            except Refused:
                shutil.rmtree(upload.folder, ignore_errors=True)
                raise
            self.start_check(author, upload)
        except Refused as e:
            context = await run_in_threadpool(self.my_page, author)
            return self.page(request, "web_me.html", e.status, **context, error=e.message, e=e)
        return RedirectResponse("/me", status_code=303)

    def my_page(self, author: Author) -> dict[str, Any]:
        """What ``/me`` shows: the author's bots with their latest version, check, faults;
        and their bots' logs."""
        store = self.web.arena().store
        checks = {c.name: c for c in self.checks.pending_of(author.name)}
        names = sorted({*store.owned_bots(author.owner), *checks})
        slugs = bot_slugs(store)
        bots = []
        for name in names:
            latest = store.latest_version(name)
            faults, fault_count = store.fault_listing(bot=name, limit=FAULTS_SHOWN)
            retired = latest is not None and store.is_retired(name)
            bots.append(
                {
                    "name": name,
                    "href": None if latest is None else "/" + bot_href(slugs[latest.bot_id]),
                    "latest": latest,
                    "check": checks.get(name),
                    "retired": retired,
                    "faults": faults,
                    "fault_count": fault_count,
                }  # fmt: skip
            )
        logs = store.owned_logs(author.owner, LOGS_SHOWN)
        return {"author": author, "bots": bots, "logs": logs}

    def page(
        self, request: Request, template: str, status: int, e: Refused | None = None, **context: Any
    ) -> Response:
        """One of this module's pages, with the session's CSRF token."""
        html = render_page(self.web, template, csrf=csrf_token(request), **context)
        response = HTMLResponse(html, status_code=status)
        if e is not None and e.retry_after is not None:
            response.headers["retry-after"] = str(e.retry_after)
        return response
