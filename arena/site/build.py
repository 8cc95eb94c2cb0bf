"""The pages of the site, each with the key of what it is rendered from (:mod:`.output`).

:class:`SiteData` reads the store lazily: what only changed pages need (standings, reports,
the rating history, a bot's statistics) is read only when such a page is rendered, so an
incremental render after one new set reads little more than the fingerprints.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from arena import __version__
from arena.site import botpage, data, ladder
from arena.site.charts import line_chart, place_chart
from arena.site.comparison import ComparisonView, comparison_view
from arena.site.fairness import fairness
from arena.site.history import rating_history
from arena.site.output import Page
from arena.site.render import Writer, template_dir
from arena.store import Store, StoredBot
from arena.store.kinds import KINDS
from arena.views.reports import Reports, tournament_reports

RECENT_REPLAYS = 300
"""How many replay pages a render keeps per tournament by default (its most recent matches);
``arena serve`` renders the older ones on request from the database."""

TOURNAMENT_MATCHES = 100
"""How many of its matches a tournament's page lists (the most recent)."""


def _key(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


@functools.lru_cache(maxsize=1)
def _templates_key(folder: str) -> str:
    # Pages rendered by another version of the templates are stale: the key says which.
    h = hashlib.sha256()
    for f in sorted(template_dir().rglob("*")):
        if f.is_file():
            h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class Options:
    """How a site is rendered: with bot logs or not, and the replay pages kept per
    tournament."""

    with_logs: bool = False
    replays: int = RECENT_REPLAYS
    feature: str | None = None
    """The tournament the front page features: the run that renders the site (a ladder's
    ``--site``), so that another run stored into the same database meanwhile (a round robin
    with ``--no-site``) does not take it over. None: a running one, else the latest."""


class SiteData:
    """What the pages are rendered from, read once per render and only when needed."""

    def __init__(self, store: Store, options: Options) -> None:
        self.store = store
        self.options = options
        self.refs = data.bot_refs(store)
        self.tours = data.tournaments(store, self.refs)
        # A comparison has a test, not standings: it stays off the leaderboard and bot pages;
        # a human game is one match of a person, never rated: its replay only.
        self.ranked = [t for t in self.tours if not t.is_comparison and not t.is_human]
        featured = [t for t in self.ranked if t.id == options.feature]
        running = [t for t in self.ranked if t.status == "running"]
        first = featured or running or self.ranked
        self.current = first[0] if first else None
        self.frame = _key(
            __version__,
            _templates_key(str(template_dir())),
            self.current.id if self.current else None,
            options,
        )
        self.status = {t.id: t.status for t in self.tours}
        self.kind = {t.id: KINDS[t.kind] for t in self.tours}

    def state(self, tid: str) -> tuple[str | None, str | None]:
        """A tournament's fingerprint with its live status (a killed run reads interrupted
        without a change in the database)."""
        return self.states.get(tid), self.status.get(tid)

    @property
    def charted(self) -> data.Tournament | None:
        """The tournament whose rating over time the pages chart: the current one when it is
        a round robin (bounded); a ladder's would refit its whole, growing history."""
        current = self.current
        return current if current is not None and current.ranked else None

    @functools.cached_property
    def states(self) -> dict[str, str]:
        """Each tournament's fingerprint (:meth:`arena.store.Store.tournament_states`)."""
        return self.store.tournament_states()

    def standings_state(self, tid: str) -> str:
        """A fingerprint of a tournament's stored standings (``ratings``, ``pairwise``)."""
        return self.store.standings_state(tid)

    @functools.cached_property
    def bot_states(self) -> dict[int, str]:
        """Each bot's fingerprint (:meth:`arena.store.Store.bot_states`)."""
        return self.store.bot_states()

    @functools.cached_property
    def all_bots(self) -> str:
        """One fingerprint of every bot and version (names, versions: every link shows them)."""
        return _key(sorted(self.bot_states.items()))

    @functools.cached_property
    def standings(self) -> dict[str, list[data.Standing]]:
        """Each ranked tournament's leaderboard."""
        return {t.id: data.leaderboard(self.store, t.id, self.refs) for t in self.ranked}

    @functools.cached_property
    def duplicate(self) -> dict[str, Reports]:
        """Each round robin's duplicate reports. (A ladder's page shows its own: the reports
        would refit its standings, which the ladder keeps itself, over its whole history.)"""
        robins = [t for t in self.ranked if t.ranked]
        return {t.id: tournament_reports(self.store, t.id) for t in robins}

    @functools.cached_property
    def compared(self) -> dict[str, ComparisonView]:
        """Each comparison's view."""
        return {
            t.id: comparison_view(self.store, t.id, self.refs)
            for t in self.tours
            if t.is_comparison
        }

    @functools.cached_property
    def history(self) -> list[tuple[str, list[tuple[float, float, float, float]]]]:
        """The current tournament's rating over time."""
        charted = self.charted
        return rating_history(self.store, charted.id, self.refs) if charted else []

    @functools.cached_property
    def last_results(self) -> dict[str, str]:
        """When each tournament's latest stored match finished."""
        return self.store.last_result_times()

    def as_of(self, tids: list[str]) -> str | None:
        """The latest time these tournaments were updated or stored a result: what a page of
        them shows as its date (a page is dated by its data, so that rendering it again
        without new results changes nothing)."""
        times = [t.updated_at for t in self.tours if t.id in tids]
        times += [self.last_results[t] for t in tids if t in self.last_results]
        return max(times) if times else None


LADDER_CHART: Final = (
    "No chart over time for a ladder: its ratings are fitted afresh from all its sets as they "
    "come in, and no history of them is kept. The leaderboard's order and 95 % intervals are "
    "the latest fit; the ladder's page lists its latest sets."
)
"""What the rating chart's place says when the current tournament is a ladder."""


def pages(site: SiteData, writer: Writer) -> Iterator[Page]:
    """Every page of the site with its key; rendering happens only when the page is due."""
    tids = sorted(site.states)
    every = _key(site.frame, site.all_bots, [site.state(t) for t in tids])
    yield Page("index.html", every, lambda: _index(site, writer))
    current = site.current
    if current is not None and current.is_ladder:
        # A ladder's head-to-head is its stored standings (order, pairwise rates), dated by
        # them: a set stored between two refits leaves it as it is.
        now = _key(site.frame, site.all_bots, site.standings_state(current.id), current.status)
    else:
        now = _key(site.frame, site.all_bots, site.state(current.id) if current else None)
    yield Page("h2h.html", now, lambda: _h2h(site, writer))
    for t in site.tours:
        key = _key(site.frame, site.all_bots, site.state(t.id))
        yield Page(t.href, key, functools.partial(_tournament, site, writer, t))
    yield from _bot_pages(site, writer)
    yield from _replays(site, writer)


def page_html(site: SiteData, writer: Writer, path: str) -> str | None:
    """One page of the site, rendered now (``arena web`` serves it live): ``index.html``,
    ``h2h.html``, ``tournaments/<id>.html`` or ``bots/<name>.html`` (``path`` as in the
    site's links, unquoted); None when the site has no such page. The same functions as a
    render's, so a served page is the page a render would write."""
    if path == "index.html":
        return _index(site, writer)
    if path == "h2h.html":
        return _h2h(site, writer)
    for t in site.tours:
        if t.href == path:
            return _tournament(site, writer, t)
    by_bot = botpage.versions_by_bot(site.refs)
    for bot in site.store.bot_rows():
        mine = by_bot.get(bot.id)
        if mine and f"bots/{mine[-1].slug}.html" == path:
            tids = sorted(site.store.bot_tournaments().get(bot.id, set()))
            return _bot(site, writer, bot, by_bot, tids)
    return None


def _index(site: SiteData, writer: Writer) -> str:
    current = site.current
    rows = site.standings[current.id] if current else []
    return writer.html(
        "index.html",
        "leaderboard.html",
        generated_at=site.as_of([t.id for t in site.tours]),
        standings=rows,
        tournaments=[t for t in site.tours if not t.is_human],
        rating_chart=line_chart(site.history, x_label="matches played", y_label="rating"),
        empty_note=LADDER_CHART if current is not None and current.is_ladder else None,
        place_chart=place_chart([(s.bot.name, s.bot.href, s.places) for s in rows]),
        fair=fairness(site.store, current, site.refs) if current else None,
        duplicate=site.duplicate.get(current.id) if current else None,
        refs=site.refs,
        comparisons=[(t, site.compared[t.id]) for t in site.tours if t.is_comparison],
    )


def _h2h(site: SiteData, writer: Writer) -> str:
    current = site.current
    rows = site.standings[current.id] if current else []
    pairs = data.pairwise(site.store, current.id) if current else {}
    if current is not None and current.is_ladder:
        at = site.store.standings_time(current.id)
    else:
        at = site.as_of([current.id]) if current else None
    return writer.html("h2h.html", "h2h.html", generated_at=at, standings=rows, pairs=pairs)


def _tournament(site: SiteData, writer: Writer, t: data.Tournament) -> str:
    """A round robin's standings and reports, a comparison's test with its LLR chart and
    verdict, or a ladder's live page."""
    if t.is_ladder:
        standings = site.standings.get(t.id, [])
        return ladder.page(site.store, writer, t, site.refs, standings, site.as_of([t.id]))
    return writer.html(
        t.href,
        "compare.html" if t.is_comparison else "tournament.html",
        generated_at=site.as_of([t.id]),
        tournament=t,
        standings=site.standings.get(t.id, []),
        matches=data.recent_matches(site.store, site.refs, tid=t.id, limit=TOURNAMENT_MATCHES),
        fair=fairness(site.store, t, site.refs),
        duplicate=site.duplicate.get(t.id),
        refs=site.refs,
        view=site.compared.get(t.id),
        worker_checks=site.store.worker_checks(t.id),
    )


def _bot_pages(site: SiteData, writer: Writer) -> Iterator[Page]:
    by_bot = botpage.versions_by_bot(site.refs)
    played = site.store.bot_tournaments()
    seats = site.store.seat_states()
    rated = site.store.rating_states()
    for bot in sorted(site.store.bot_rows(), key=lambda b: b.name):
        mine = by_bot.get(bot.id)
        if not mine:
            continue
        tids = sorted(played.get(bot.id, set()))
        # Its own seats, its ladders' standings of it, the status of its tournaments, and the
        # whole state of its round robins (they refit everyone's standings, and the current
        # one is charted): a ladder's set it did not play leaves its page as it is.
        key = _key(
            site.frame,
            site.all_bots,
            [(seats.get(r.version_id), rated.get(r.version_id)) for r in mine],
            [
                site.state(t)
                if t in site.kind and not site.kind[t].ladder  # a comparison's table row
                else site.status.get(t)
                for t in tids
            ],
        )
        render = functools.partial(_bot, site, writer, bot, by_bot, tids)
        yield Page(mine[-1].href, key, render)


def _bot(
    site: SiteData,
    writer: Writer,
    bot: StoredBot,
    by_bot: dict[int, list[data.BotRef]],
    tids: list[str],
) -> str:
    ids = {r.version_id for r in by_bot[bot.id]}
    tids_compared = {t for t in tids if t in site.kind and site.kind[t].comparison}
    placed = [
        (t, s) for t in site.ranked for s in site.standings.get(t.id, []) if s.bot.version_id in ids
    ]
    detail = botpage.bot_detail(
        site.store, bot, site.refs, by_bot, placed, with_logs=site.options.with_logs
    )
    lines = dict(site.history) if site.charted and site.charted.id in tids else {}
    own = [(detail.name, lines[detail.name])] if detail.name in lines else []
    return writer.html(
        detail.href,
        "bot.html",
        # Dated by its own latest match: a set it did not play leaves the page as it is.
        generated_at=detail.recent[0].finished_at if detail.recent else bot.created_at,
        bot=detail,
        rating_chart=line_chart(own, x_label="matches played", y_label="rating", height=220),
        empty_note=LADDER_CHART if site.current is not None and site.current.is_ladder else None,
        place_chart=place_chart([(t.id[:12], t.href, s.places) for t, s in detail.standings]),
        comparisons=[(t, site.compared[t.id]) for t in site.tours if t.id in tids_compared],
    )


def _replays(site: SiteData, writer: Writer) -> Iterator[Page]:
    """The replay pages of each tournament's most recent matches."""
    for t in site.tours:
        for m in data.recent_matches(site.store, site.refs, tid=t.id, limit=site.options.replays):
            bots = [site.bot_states[b.bot_id] for b in m.bots]
            key = _key(site.frame, bots)
            yield Page(m.href, key, functools.partial(replay_html, site, writer, m))


def replay_html(site: SiteData, writer: Writer, m: data.MatchRow) -> str:
    """The replay page of one stored match (static, or served on request)."""
    detail = data.match_detail(site.store, site.refs, m, with_logs=site.options.with_logs)
    series = [
        (
            m.bots[s].name,
            [(0.0, 0.0, 0.0, 0.0)]
            + [(h.number, a, a, a) for h in detail.hands for a in [h.scores_after[s]]],
        )
        for s in range(3)
    ]
    score_chart = line_chart(series, x_label="hand", y_label="score", width=1000, height=240)
    return writer.html(
        m.href,
        "match.html",
        generated_at=m.finished_at,
        m=m,
        detail=detail,
        score_chart=score_chart,
        human_game=m.tournament_id in site.kind and site.kind[m.tournament_id].human,
    )
