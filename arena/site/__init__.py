"""The static standings site: Jinja2 pages rendered from the arena database.

>>> render_site("arena.db", "site/")          # doctest: +SKIP
PosixPath('site/index.html')

Pages (all links relative, so the site works from ``file://`` and any static host):
``index.html`` (leaderboard of the latest round robin, charts, duplicate reports, the
comparisons), ``h2h.html`` (head-to-head matrix), ``tournaments/<id>.html`` (a round robin, or
a comparison with its LLR chart), ``bots/<name>.html`` and ``matches/<id>.html``.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from arena import __version__
from arena.errors import ArenaError
from arena.reports import Reports, tournament_reports
from arena.site import botpage, data
from arena.site.charts import line_chart, place_chart
from arena.site.comparison import ComparisonView, comparison_view
from arena.site.fairness import fairness
from arena.site.history import rating_history
from arena.site.render import Writer, make_env
from arena.store import Store
from arena.tournament import refresh_standings

__all__ = ["publish_site", "render_site", "site_folder"]


def site_folder(db_path: str | Path) -> Path:
    """The folder a database's site goes to by default: beside it, named after it with
    ``-site`` (``arena.db``: ``arena-site/``), so that each database has its own site."""
    db = Path(db_path)
    return db.with_name(f"{db.stem}-site")


def publish_site(
    db_path: str | Path, out_dir: str | Path | None = None, *, with_logs: bool = False
) -> Path:
    """Bring the database's standings up to date, then render the site (``arena render``)
    into ``out_dir`` (default: :func:`site_folder` of the database).

    Runs that were killed are recorded as interrupted first, so the site does not show them
    running; a database that cannot be written now (read-only, or a run holding the lock) is
    rendered as it is. Returns the path of ``index.html``.
    """
    with Store(db_path, create=False) as store:
        if store.writable():
            store.settle_runs()
        refresh_standings(store)
        return _render(store, Path(out_dir or site_folder(db_path)), with_logs)


def render_site(
    db_path: str | Path, out_dir: str | Path | None = None, *, with_logs: bool = False
) -> Path:
    """Render the whole site from the database at ``db_path`` into ``out_dir`` (default:
    :func:`site_folder`), as stored.

    Bot logs (untrusted, possibly large) are published only when ``with_logs`` is true; a
    bot's source is never published. Returns the path of ``index.html``.
    """
    with Store(db_path, create=False) as store:
        return _render(store, Path(out_dir or site_folder(db_path)), with_logs)


def _render(store: Store, out: Path, with_logs: bool) -> Path:
    if out.exists() and not out.is_dir():
        raise ArenaError(f"{out} is a file, not a folder for the site")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ArenaError(f"cannot make the site's folder {out}: {e.strerror}") from None
    refs = data.bot_refs(store)
    tours = data.tournaments(store, refs)
    # A comparison has a test, not standings: it stays off the leaderboard and bot pages.
    robins = [t for t in tours if not t.is_comparison]
    all_standings = {t.id: data.leaderboard(store, t.id, refs) for t in robins}
    duplicate = {t.id: tournament_reports(store, t.id) for t in robins}
    compared = {t.id: comparison_view(store, t.id, refs) for t in tours if t.is_comparison}
    current = robins[0] if robins else None
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    writer = Writer(
        out,
        make_env(),
        {"version": __version__, "generated_at": now, "current": current, "with_logs": with_logs},
    )
    writer.static()

    rows = all_standings[current.id] if current else []
    history = rating_history(store, current.id, refs) if current else []
    rating_svg = line_chart(history, x_label="matches played", y_label="rating")
    places_svg = place_chart([(s.bot.name, s.bot.href, s.places) for s in rows])
    index = writer.page(
        "index.html",
        "leaderboard.html",
        standings=rows,
        tournaments=tours,
        rating_chart=rating_svg,
        place_chart=places_svg,
        fair=fairness(store, current, refs) if current else None,
        duplicate=duplicate[current.id] if current else None,
        refs=refs,
        comparisons=[(t, compared[t.id]) for t in tours if t.is_comparison],
    )
    pairs = data.pairwise(store, current.id) if current else {}
    writer.page("h2h.html", "h2h.html", standings=rows, pairs=pairs)
    _tournament_pages(writer, store, refs, tours, all_standings, duplicate, compared)
    lines = dict(history)
    for bot in botpage.bot_details(store, refs, all_standings, tours, with_logs=with_logs):
        own = [(bot.name, lines[bot.name])] if bot.name in lines else []
        writer.page(
            bot.href,
            "bot.html",
            bot=bot,
            rating_chart=line_chart(own, x_label="matches played", y_label="rating", height=220),
            place_chart=place_chart([(t.id[:12], t.href, s.places) for t, s in bot.standings]),
        )
        if bot.latest.slug != str(bot.bot_id):
            # Bot pages used to be bots/<id>.html: links saved from then still arrive.
            writer.page(f"bots/{bot.bot_id}.html", "redirect.html", bot=bot)
    for detail in data.match_details(store, refs, with_logs=with_logs):
        m = detail.match
        series = [
            (
                m.bots[s].name,
                [(0.0, 0.0, 0.0, 0.0)]
                + [(h.number, a, a, a) for h in detail.hands for a in [h.scores_after[s]]],
            )
            for s in range(3)
        ]
        score_chart = line_chart(series, x_label="hand", y_label="score", width=1000, height=240)
        writer.page(m.href, "match.html", m=m, detail=detail, score_chart=score_chart)
    return index


def _tournament_pages(
    writer: Writer,
    store: Store,
    refs: dict[int, data.BotRef],
    tours: list[data.Tournament],
    all_standings: dict[str, list[data.Standing]],
    duplicate: dict[str, Reports],
    compared: dict[str, ComparisonView],
) -> None:
    """One page per tournament: a round robin's standings and reports, or a comparison's
    test with its LLR chart and verdict."""
    for t in tours:
        writer.page(
            t.href,
            "compare.html" if t.is_comparison else "tournament.html",
            tournament=t,
            standings=all_standings.get(t.id, []),
            matches=data.matches(store, refs, tid=t.id),
            fair=fairness(store, t, refs),
            duplicate=duplicate.get(t.id),
            refs=refs,
            view=compared.get(t.id),
        )
