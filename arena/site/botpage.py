"""The data of a bot's page: versions, standings, opponents, play statistics, faults, logs.

Like :mod:`arena.site.data`, read-only (through :class:`arena.store.Store`) and never reading
a bot's source.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from arena.site.clones import CloneFlag, clone_flags
from arena.site.data import (
    BotRef,
    FaultRow,
    MatchRow,
    Standing,
    Tournament,
    faults,
    recent_matches,
    safe_id,
)
from arena.store import Store, StoredBot
from arena.store.rows import PlayCounts, SeatTiming


@dataclass
class VersionRow:
    """One stored version of a bot (never its source)."""

    version: int
    sha256: str
    filename: str
    author: str | None
    submitted_at: str
    matches: int
    mean_place: float | None


@dataclass(frozen=True)
class ThinkRow:
    """One line of a bot's think-time table: what it measures, the wall and CPU figures
    (None: nothing to show) and their unit (``"ms"`` or ``"s"``)."""

    label: str
    wall: float | None
    cpu: float | None
    unit: str


def think_rows(t: SeatTiming) -> list[ThinkRow]:
    """A bot's think time, wall and CPU: per decision it was asked (mean, slowest) in
    milliseconds, per match (mean, most) in seconds. A match's wall time is its match clock's
    (loading and every decision); its CPU the bot process's, loading included, which the
    per-decision mean includes too."""

    def per(total: float, n: int, scale: float) -> float | None:
        return scale * total / n if n else None

    seen = t.seats > 0
    return [
        ThinkRow("mean per decision", per(t.think_seconds, t.asked, 1000),
                 per(t.cpu_seconds, t.asked, 1000), "ms"),
        ThinkRow("slowest decision", 1000 * t.max_think_seconds if t.asked else None,
                 1000 * t.max_cpu_seconds if t.asked else None, "ms"),
        ThinkRow("mean per match", per(t.clock_seconds, t.seats, 1),
                 per(t.cpu_seconds, t.seats, 1), "s"),
        ThinkRow("most in a match", t.max_clock_seconds if seen else None,
                 t.max_match_cpu_seconds if seen else None, "s"),
    ]  # fmt: skip


@dataclass
class OpponentRow:
    """How a bot fared against one opponent in the matches they shared."""

    opponent: BotRef
    matches: int
    above: float
    mean_place: float

    @property
    def rate(self) -> float:
        """Fraction of shared matches placed above the opponent (ties count one half)."""
        return self.above / self.matches if self.matches else 0.0


@dataclass
class LogExcerpt:
    """The start of what a bot printed in one match (only with ``--with-logs``)."""

    match_id: str
    text: str
    cut: bool

    @property
    def match_href(self) -> str:
        """Path of the match page, relative to the site root."""
        return f"matches/{self.match_id}.html"


@dataclass
class BotDetail:
    """Everything a bot's page shows."""

    bot_id: int
    name: str
    created_at: str
    latest: BotRef
    versions: list[VersionRow]
    standings: list[tuple[Tournament, Standing]]
    opponents: list[OpponentRow]
    faults: list[FaultRow]
    logs: list[LogExcerpt]
    play: PlayCounts
    seats: int
    decisions: int
    asked: int
    think_seconds: float
    max_think_seconds: float
    recent: list[MatchRow]
    think: list[ThinkRow]
    clones: list[tuple[BotRef, CloneFlag]] = field(default_factory=list)
    """Its versions flagged as possible clones of another owner's bot, with the evidence."""

    @property
    def href(self) -> str:
        """URL of the bot's page, relative to the site root."""
        return self.latest.href

    @property
    def ms_per_decision(self) -> float | None:
        """Mean time in ``act`` per call, in milliseconds."""
        return 1000 * self.think_seconds / self.asked if self.asked else None


LOG_EXCERPT_CHARS = 2000
"""How much of one match's log a bot page shows."""
LOG_EXCERPTS = 10
"""How many matches' logs a bot page shows."""


def _opponents(
    store: Store, ids: list[int], refs: dict[int, BotRef], by_bot: dict[int, list[BotRef]]
) -> list[OpponentRow]:
    """Per opponent bot (all its versions together), best record against it first."""
    opp: dict[int, list[float]] = {}
    for r in store.opponent_totals(ids):
        o = refs[r.opponent].bot_id
        acc = opp.setdefault(o, [0, 0.0, 0])
        acc[0] += r.matches
        acc[1] += r.above
        acc[2] += r.place_sum
    return sorted(
        (
            OpponentRow(max(by_bot[o], key=lambda r: r.version), int(n), above, pl / n)
            for o, (n, above, pl) in opp.items()
        ),
        key=lambda row: (-row.rate, row.opponent.name.lower()),
    )


def _play(store: Store, ids: list[int]) -> PlayCounts:
    """How the bot bid and fared, over every hand it played in any seat (the counts of
    :meth:`arena.store.Store.play_counts`, kept as running totals)."""
    return store.play_counts(ids)


def _logs(store: Store, ids: list[int]) -> list[LogExcerpt]:
    """The start of what the bot printed, in its first matches."""
    out = []
    for lg in store.log_rows(ids, LOG_EXCERPTS):
        text = lg.text or ""
        cut = text[:LOG_EXCERPT_CHARS]
        out.append(LogExcerpt(safe_id(lg.match_id), cut, len(text) > LOG_EXCERPT_CHARS))
    return out


RECENT_MATCHES = 30
"""How many of a bot's matches its page lists (the most recent); the whole list is a page
``arena serve`` renders on request."""


def versions_by_bot(refs: dict[int, BotRef]) -> dict[int, list[BotRef]]:
    """Each bot's versions, oldest first, by bot id."""
    by_bot: dict[int, list[BotRef]] = defaultdict(list)
    for ref in sorted(refs.values(), key=lambda r: r.version):
        by_bot[ref.bot_id].append(ref)
    return by_bot


def bot_detail(
    store: Store,
    bot: StoredBot,
    refs: dict[int, BotRef],
    by_bot: dict[int, list[BotRef]],
    placed: list[tuple[Tournament, Standing]],
    *,
    with_logs: bool,
) -> BotDetail:
    """One bot's page data (``bot``: its row of :meth:`arena.store.Store.bot_rows`; ``placed``:
    its standings in each tournament), all its versions together."""
    mine = by_bot[bot.id]
    ids = [r.version_id for r in mine]
    versions = [
        VersionRow(v.version, v.sha256, v.filename or "", v.author, v.submitted_at,
                   v.seats, v.mean_place)
        for v in store.version_rows(ids)
    ]  # fmt: skip
    timing = store.timing(ids)
    return BotDetail(
        bot_id=bot.id,
        name=bot.name,
        created_at=bot.created_at,
        latest=mine[-1],
        versions=versions,
        standings=placed,
        opponents=_opponents(store, ids, refs, by_bot),
        faults=faults(store, refs, versions=ids),
        logs=_logs(store, ids) if with_logs else [],
        play=_play(store, ids),
        seats=timing.seats,
        decisions=timing.decisions,
        asked=timing.asked,
        think_seconds=timing.think_seconds,
        max_think_seconds=timing.max_think_seconds,
        recent=recent_matches(store, refs, versions=ids, limit=RECENT_MATCHES),
        think=think_rows(timing),
        clones=[(refs[v], f) for v, flags in clone_flags(store, refs, ids).items() for f in flags],
    )
