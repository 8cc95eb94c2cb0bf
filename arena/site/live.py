"""The pages ``arena serve`` renders on request from the database: the replays of matches too
old to be kept as files, and the whole list of a tournament's or a bot's matches.

Only what is stored is answered: a match id of the exact form of the site's ids that names a
stored match, a tournament id that is stored, a bot whose page exists; anything else is None
(404). The pages are the same templates as the static ones (autoescaped, strict), so a served
replay is the page a render would have written.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena import __version__
from arena.site import data
from arena.site.build import Options, SiteData, page_html, replay_html
from arena.site.output import read_options
from arena.site.render import Writer, site_env
from arena.store import Store

LIST_PAGE: Final = "matches.html"
"""The served page of a whole match list: ``matches.html?tournament=<id>`` or
``matches.html?bot=<name>``, ``&page=N`` for the next :data:`PER_PAGE`."""

PER_PAGE: Final = 200
"""Matches per page of a served list."""

_REPLAY = re.compile(r"/matches/([A-Za-z0-9_-]{1,64})\.html")
_TOURNAMENT = re.compile(r"tournaments/([A-Za-z0-9_-]{1,64})\.html")
_BOT = re.compile(r"bots/([^/]{1,200})\.html")
_PAGE = re.compile(r"[1-9][0-9]{0,6}")
_FIELDS: Final = ("tournament", "bot", "page")
_MAX_QUERY: Final = 512


class BadRequest(ValueError):
    """A request ``arena serve`` cannot read: a list page's query that is not one of
    ``tournament=ID`` or ``bot=NAME`` with an optional ``page=N`` (HTTP 400)."""


def _writer(site: SiteData, *, live: str = "") -> Writer:
    common = {
        "version": __version__,
        "generated_at": None,
        "current": site.current,
        "with_logs": site.options.with_logs,
        "served": LIST_PAGE,
        "live": live,
    }
    return Writer(Path("."), site_env(), common)


def is_dynamic(path: str) -> bool:
    """Whether ``path`` (a request's path, unquoted) is one ``arena serve`` may render."""
    return path == f"/{LIST_PAGE}" or _REPLAY.fullmatch(path) is not None


def rendered_from(db_path: Path, site_dir: Path) -> bool:
    """Whether the site in ``site_dir`` was rendered from the database at ``db_path`` (only
    then does ``arena serve`` render pages of that database into it)."""
    return read_options(site_dir).get("database") == str(db_path.resolve())


def parse_query(query: str) -> dict[str, str]:
    """A list page's query as ``{field: value}``: exactly one of ``tournament`` and ``bot``,
    ``page`` optional (a whole number from 1), each once, nothing else. Anything else raises
    :class:`BadRequest`, before the database is opened."""
    if len(query) > _MAX_QUERY:
        raise BadRequest("query too long")
    try:
        pairs = urllib.parse.parse_qsl(
            query, keep_blank_values=True, strict_parsing=bool(query), max_num_fields=3
        )
    except ValueError:
        raise BadRequest("a list page takes tournament=ID or bot=NAME, and page=N") from None
    fields = dict(pairs)
    if len(fields) != len(pairs) or not set(fields) <= set(_FIELDS):
        raise BadRequest("a list page takes tournament=ID or bot=NAME, and page=N")
    if ("tournament" in fields) == ("bot" in fields):
        raise BadRequest("a list page takes one of tournament=ID and bot=NAME")
    if not _PAGE.fullmatch(fields.setdefault("page", "1")):
        raise BadRequest("page must be a whole number from 1")
    return fields


def render_request(db_path: Path, site_dir: Path, path: str, query: str) -> str | None:
    """The page for a request of ``path?query``, rendered from the database; None when it
    names nothing stored. A malformed list query raises :class:`BadRequest` without reading
    the database; an id is looked up (one indexed query) before anything is rendered, so an
    unknown one costs next to nothing."""
    found = _REPLAY.fullmatch(path)
    if found is None and path != f"/{LIST_PAGE}":
        return None
    fields = parse_query(query) if found is None else {}
    options = read_options(site_dir)
    with_logs = options.get("with_logs") is True
    with Store(db_path, create=False) as store:
        if not _is_stored(store, found.group(1) if found else None, fields):
            return None
        site = SiteData(store, Options(with_logs=with_logs))
        if found:
            m = data.match_row(store, site.refs, found.group(1))
            return None if m is None else replay_html(site, _writer(site), m)
        return _list(site, fields, _writer(site))


def _is_stored(store: Store, match_id: str | None, fields: dict[str, str]) -> bool:
    # The cheap look-up before the site's data is read: does the request name anything stored?
    if match_id is not None:
        return store.stored_match(match_id) is not None
    if "tournament" in fields:
        return store.has_tournament(fields["tournament"])
    return fields["bot"] in data.bot_slugs(store).values()


@dataclass(frozen=True)
class _Listing:
    title: str
    href: str
    param: str


def _list(site: SiteData, query: dict[str, str], writer: Writer) -> str | None:
    page = int(query["page"])
    if "tournament" in query:
        tid = query["tournament"]
        found = next((t for t in site.tours if t.id == tid), None)
        if found is None:
            return None
        what = _Listing(f"Tournament {tid}", found.href, f"tournament={tid}")
        total = site.store.match_total(tid=tid)
        rows = data.recent_matches(
            site.store, site.refs, tid=tid, limit=PER_PAGE, offset=(page - 1) * PER_PAGE
        )
    elif "bot" in query:
        slug = query["bot"]
        mine = [r for r in site.refs.values() if r.slug == slug]
        if not mine:
            return None
        latest = max(mine, key=lambda r: r.version)
        param = "bot=" + urllib.parse.quote(slug, safe="")
        what = _Listing(latest.name, latest.href, param)
        ids = [r.version_id for r in mine]
        total = site.store.match_total(versions=ids)
        rows = data.recent_matches(
            site.store, site.refs, versions=ids, limit=PER_PAGE, offset=(page - 1) * PER_PAGE
        )
    else:
        return None
    pages = max(1, -(-total // PER_PAGE))
    if page > pages:
        return None
    return writer.html(
        LIST_PAGE,
        "matches.html",
        title=what.title,
        back=what.href,
        param=what.param,
        page=page,
        pages=pages,
        total=total,
        matches=rows,
    )


def render_web(store: Store, path: str, query: str = "", *, version: str = "0") -> str | None:
    """A page of the site rendered now from ``store`` for ``arena web``: ``path`` is its URL
    relative to the site's root, unquoted (``index.html``, ``h2h.html``,
    ``tournaments/<id>.html``, ``bots/<name>.html``, ``matches/<id>.html``, or
    :data:`LIST_PAGE` with its ``query``). None when it names nothing stored: the id is looked
    up (one indexed query) before anything is read for the page; a malformed list query
    raises :class:`BadRequest` before the database is read. The page loads ``live.js``,
    which follows the database's changes from ``version``, the data version it is rendered
    at (bot logs are never shown: they are their authors')."""
    fields = parse_query(query) if path == LIST_PAGE else {}
    if not _web_is_stored(store, path, fields):
        return None
    site = SiteData(store, Options(with_logs=False))
    writer = _writer(site, live=version)
    found = _REPLAY.fullmatch("/" + path)
    if found:
        m = data.match_row(store, site.refs, found.group(1))
        return None if m is None else replay_html(site, writer, m)
    if path == LIST_PAGE:
        return _list(site, fields, writer)
    return page_html(site, writer, path)


def _web_is_stored(store: Store, path: str, fields: dict[str, str]) -> bool:
    if path in ("index.html", "h2h.html"):
        return True
    if path == LIST_PAGE:
        return _is_stored(store, None, fields)
    if found := _REPLAY.fullmatch("/" + path):
        return _is_stored(store, found.group(1), {})
    if found := _TOURNAMENT.fullmatch(path):
        return _is_stored(store, None, {"tournament": found.group(1)})
    if found := _BOT.fullmatch(path):
        return _is_stored(store, None, {"bot": found.group(1)})
    return False
