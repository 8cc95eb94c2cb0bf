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
from arena.site.build import Options, SiteData, replay_html
from arena.site.output import read_options
from arena.site.render import Writer, site_env
from arena.store import Store

LIST_PAGE: Final = "matches.html"
"""The served page of a whole match list: ``matches.html?tournament=<id>`` or
``matches.html?bot=<name>``, ``&page=N`` for the next :data:`PER_PAGE`."""

PER_PAGE: Final = 200
"""Matches per page of a served list."""

_REPLAY = re.compile(r"/matches/([A-Za-z0-9_-]{1,64})\.html")
_PAGE = re.compile(r"[1-9][0-9]{0,6}")


def _writer(site: SiteData) -> Writer:
    common = {
        "version": __version__,
        "generated_at": None,
        "current": site.current,
        "with_logs": site.options.with_logs,
        "served": LIST_PAGE,
    }
    return Writer(Path("."), site_env(), common)


def is_dynamic(path: str) -> bool:
    """Whether ``path`` (a request's path, unquoted) is one ``arena serve`` may render."""
    return path == f"/{LIST_PAGE}" or _REPLAY.fullmatch(path) is not None


def rendered_from(db_path: Path, site_dir: Path) -> bool:
    """Whether the site in ``site_dir`` was rendered from the database at ``db_path`` (only
    then does ``arena serve`` render pages of that database into it)."""
    return read_options(site_dir).get("database") == str(db_path.resolve())


def render_request(db_path: Path, site_dir: Path, path: str, query: str) -> str | None:
    """The page for a request of ``path?query``, rendered from the database; None when it
    names nothing stored."""
    options = read_options(site_dir)
    with_logs = options.get("with_logs") is True
    with Store(db_path, create=False) as store:
        site = SiteData(store, Options(with_logs=with_logs))
        found = _REPLAY.fullmatch(path)
        if found:
            m = data.match_row(store, site.refs, found.group(1))
            return None if m is None else replay_html(site, _writer(site), m)
        if path == f"/{LIST_PAGE}":
            return _list(site, urllib.parse.parse_qs(query, max_num_fields=4))
    return None


@dataclass(frozen=True)
class _Listing:
    title: str
    href: str
    param: str


def _list(site: SiteData, query: dict[str, list[str]]) -> str | None:
    page_text = query.get("page", ["1"])[-1]
    if not _PAGE.fullmatch(page_text):
        return None
    page = int(page_text)
    if "tournament" in query:
        tid = query["tournament"][-1]
        found = next((t for t in site.tours if t.id == tid), None)
        if found is None:
            return None
        what = _Listing(f"Tournament {tid}", found.href, f"tournament={tid}")
        total = site.store.match_total(tid=tid)
        rows = data.recent_matches(
            site.store, site.refs, tid=tid, limit=PER_PAGE, offset=(page - 1) * PER_PAGE
        )
    elif "bot" in query:
        slug = query["bot"][-1]
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
    return _writer(site).html(
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
