"""The static standings site: Jinja2 pages rendered from the arena database.

>>> render_site("arena.db", "site/")          # doctest: +SKIP
PosixPath('site/index.html')

Pages (all links relative, so the site works from ``file://`` and any static host):
``index.html`` (leaderboard of the featured, running or latest round robin or ladder,
charts, duplicate reports, the comparisons), ``h2h.html`` (head-to-head matrix),
``tournaments/<id>.html`` (a round robin, a ladder, or a comparison with its LLR chart),
``bots/<name>.html`` and ``matches/<id>.html``.
"""

from __future__ import annotations

from pathlib import Path

from arena import __version__
from arena.errors import ArenaError
from arena.site.build import RECENT_REPLAYS, Options, SiteData, pages
from arena.site.live import LIST_PAGE
from arena.site.output import Outcome, apply
from arena.site.render import Writer, site_env
from arena.store import Store
from arena.tournaments.standings import refresh_standings

__all__ = ["Outcome", "RECENT_REPLAYS", "publish_site", "render_site", "site_folder", "update"]


def site_folder(db_path: str | Path) -> Path:
    """The folder a database's site goes to by default: beside it, named after it with
    ``-site`` (``arena.db``: ``arena-site/``), so that each database has its own site."""
    db = Path(db_path)
    return db.with_name(f"{db.stem}-site")


def publish_site(
    db_path: str | Path,
    out_dir: str | Path | None = None,
    *,
    with_logs: bool = False,
    full: bool = False,
    replays: int = RECENT_REPLAYS,
    feature: str | None = None,
) -> Path:
    """Bring the database's standings up to date, then render the site (``arena render``)
    into ``out_dir`` (default: :func:`site_folder` of the database), its front page
    featuring tournament ``feature`` (the run that renders it; None: a running tournament,
    else the latest run).

    Runs that were killed are recorded as interrupted first, so the site does not show them
    running; a database that cannot be written now (read-only, or a run holding the lock) is
    rendered as it is. Only the pages whose data changed since the last render into the same
    folder are written (``full``: all of them; the files are the same either way). Returns
    the path of ``index.html``.
    """
    with Store(db_path, create=False) as store:
        if store.writable():
            store.settle_runs()
        refresh_standings(store)
        out = Path(out_dir or site_folder(db_path))
        _render(store, out, Options(with_logs, replays, feature), full=full)
        return out / "index.html"


def render_site(
    db_path: str | Path,
    out_dir: str | Path | None = None,
    *,
    with_logs: bool = False,
    full: bool = False,
    replays: int = RECENT_REPLAYS,
) -> Path:
    """Render the site from the database at ``db_path`` into ``out_dir`` (default:
    :func:`site_folder`), as stored: incrementally (only the pages whose data changed since
    the last render into that folder), or every page with ``full``.

    Bot logs (untrusted, possibly large) are published only when ``with_logs`` is true; a
    bot's source is never published. The replay pages of each tournament's ``replays`` most
    recent matches are files; ``arena serve`` renders older ones on request. Returns the path
    of ``index.html``.
    """
    with Store(db_path, create=False) as store:
        out = Path(out_dir or site_folder(db_path))
        _render(store, out, Options(with_logs, replays), full=full)
        return out / "index.html"


def update(
    store: Store,
    out_dir: str | Path,
    *,
    with_logs: bool = False,
    replays: int = RECENT_REPLAYS,
    feature: str | None = None,
) -> Outcome:
    """Bring the site in ``out_dir`` up to date with ``store``, an open database, writing only
    the pages whose data changed since the last render there (what a ladder calls after
    storing a few sets; ``feature``: its id, which the front page shows whatever else is
    stored meanwhile). Each page is replaced atomically; cheap when little changed.
    Returns how many pages were written, kept and removed."""
    return _render(store, Path(out_dir), Options(with_logs, replays, feature), full=False)


def _render(store: Store, out: Path, options: Options, *, full: bool) -> Outcome:
    if options.replays < 0:
        raise ArenaError(
            f"the number of replay pages kept must be 0 or more, not {options.replays}"
        )
    if out.exists() and not out.is_dir():
        raise ArenaError(f"{out} is a file, not a folder for the site")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ArenaError(f"cannot make the site's folder {out}: {e.strerror}") from None
    site = SiteData(store, options)
    writer = Writer(
        out,
        site_env(),
        {
            "version": __version__,
            "generated_at": None,
            "current": site.current,
            "with_logs": options.with_logs,
            "served": LIST_PAGE,
        },
    )
    writer.static()
    recorded: dict[str, object] = {
        "with_logs": options.with_logs,
        "replays": options.replays,
        "database": str(store.path.resolve()),
    }
    return apply(out, pages(site, writer), full=full, options=recorded)
