"""The site's page values, built from what the store reads (:class:`arena.store.Store`).

Read-only: the site never writes to the database. Everything here that a bot author controls
(names, authors, file names, fault messages, logs) is untrusted text; it stays plain ``str``
and is escaped by the templates. A bot's ``source`` is never read.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.errors import ArenaError
from arena.site.replay import HandView, hand_view
from arena.stats import BOUND_NOTES
from arena.stats.standings import PairRow, RatingRow
from arena.store import ROUND_ROBIN, Store, StoredMatch
from arena.store.kinds import KINDS
from arena.untrusted import name_problem

_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def safe_id(value: object) -> str:
    """An id fit for a file name; ids come from our own hashes, but never trust a path."""
    text = str(value)
    if not _SAFE_ID.match(text):
        raise ArenaError(f"unexpected id in the database: {text[:40]!r}")
    return text


def json_value(text: Any, default: Any) -> Any:
    """Decode a JSON column (``default`` for NULL)."""
    if text is None:
        return default
    return json.loads(text) if isinstance(text, str) else text


# Device names that Windows refuses as file names whatever the extension ("con.html"): a site
# copied to a Windows machine or host must still open every bot page.
_RESERVED_STEMS = frozenset(
    ["con", "prn", "aux", "nul", *(f"{p}{i}" for p in ("com", "lpt") for i in range(1, 10))]
)


def bot_slugs(store: Store) -> dict[int, str]:
    """The file name stem of each bot's page, by bot id: its name, so that URLs are stable.

    ``bots/heuristic.html`` stays the heuristic's page whatever is submitted later. A bot
    whose name cannot be a portable file name keeps its numeric id instead: a name from
    before names were checked (:func:`arena.untrusted.name_problem`), an all-digit name
    (numeric stems are the old ``bots/<id>.html`` addresses), a Windows device name, or a
    name equal, ignoring case, to an older bot's (case-insensitive file systems).
    """
    slugs: dict[int, str] = {}
    taken: set[str] = set()
    for r in store.bot_rows():
        name, folded = r.name, r.name.casefold()
        usable = (
            name_problem(name) is None
            and not name.isdigit()
            and folded.split(".")[0] not in _RESERVED_STEMS
            and folded not in taken
        )
        slugs[r.id] = name if usable else str(r.id)
        taken.add(folded)
    return slugs


def bot_href(slug: str) -> str:
    """The relative URL of a bot page (``+`` is escaped: some static hosts read it as a space)."""
    return f"bots/{urllib.parse.quote(slug)}.html"


@dataclass
class BotRef:
    """A bot version as shown in links: name, version, and the bot page it links to."""

    version_id: int
    bot_id: int
    name: str
    version: int
    author: str | None
    latest_version: int
    slug: str
    retired: bool = False
    """Its bot is retired from the ladder: it keeps its results and plays no new set."""

    @property
    def href(self) -> str:
        """URL of the bot's page, relative to the site root (versions are anchors in it)."""
        return bot_href(self.slug)


def bot_refs(store: Store) -> dict[int, BotRef]:
    """Every bot version by id (no source)."""
    slugs = bot_slugs(store)
    rows = store.version_refs()
    return {
        # A person's stand-in in a human game has no page: its numeric id as the slug.
        r.id: BotRef(
            r.id,
            r.bot_id,
            r.name,
            r.version,
            r.author,
            r.latest,
            slugs.get(r.bot_id, str(r.bot_id)),
            r.retired,
        )  # fmt: skip
        for r in rows
    }


@dataclass
class Tournament:
    """One tournament's row with its decoded configuration and progress."""

    id: str
    seed: int
    rounds: int
    status: str
    total: int
    played: int
    faults: int
    created_at: str
    updated_at: str
    finished_at: str | None
    rules: Mapping[str, object]
    """The stored rules (a JSON object; empty when unreadable)."""
    limits: Mapping[str, object]
    bots: list[BotRef]
    commitment: str
    """SHA-256 of the deal secret."""
    secret: str | None = None
    """The deal secret in hex, only once the tournament has finished."""
    kind: str = ROUND_ROBIN
    """:data:`arena.store.ROUND_ROBIN` or :data:`arena.store.COMPARE` (a comparison's page
    shows its test instead of standings)."""

    @property
    def href(self) -> str:
        """Path of the tournament page, relative to the site root."""
        return f"tournaments/{self.id}.html"

    @property
    def is_ladder(self) -> bool:
        """Whether this is a continuous ladder (``arena ladder``)."""
        return KINDS[self.kind].ladder

    @property
    def is_comparison(self) -> bool:
        """Whether this is an ``arena compare`` run rather than a round robin."""
        return KINDS[self.kind].comparison

    @property
    def is_human(self) -> bool:
        """A human game: one match of a person against two bots, never rated."""
        return KINDS[self.kind].human

    @property
    def ranked(self) -> bool:
        """A round robin: its standings are a fit of all its matches (bounded, charted, with
        duplicate reports); a ladder keeps its own, a comparison has a test."""
        return KINDS[self.kind].ranked

    @property
    def progress(self) -> float:
        """Fraction of its matches stored (0..1)."""
        return self.played / self.total if self.total else 0.0


def tournaments(store: Store, refs: dict[int, BotRef]) -> list[Tournament]:
    """Every tournament, the most recently run first, with its live status."""
    out = []
    for listed in store.tournaments():
        r = listed.tournament
        tid = safe_id(r.id)
        versions = [refs[v] for v in store.entrant_ids(tid) if v in refs]
        out.append(
            Tournament(
                id=tid,
                seed=r.seed,
                rounds=r.rounds,
                status=r.status,
                total=r.total_matches or 0,
                played=listed.done,
                faults=listed.faults,
                created_at=r.created_at,
                updated_at=r.updated_at,
                finished_at=r.finished_at,
                rules=json_value(r.rules, {}),
                limits=json_value(r.limits, {}),
                bots=sorted(versions, key=lambda b: b.name.lower()),
                commitment=listed.commitment,
                secret=listed.secret,
                kind=r.kind,
            )
        )
    return out


@dataclass
class Standing:
    """One leaderboard row. ``rank`` is None for a bot without a finished match; ``bound``
    marks a one-sided rating (docs/statistics.md)."""

    rank: int | None
    bot: BotRef
    rating: float | None
    low: float | None
    high: float | None
    matches: int
    wins: int
    mean_place: float | None
    faults: int
    places: list[int] = field(default_factory=lambda: [0, 0, 0])
    bound: str | None = None

    @property
    def bound_note(self) -> str:
        """What a one-sided rating means, for its tooltip."""
        return BOUND_NOTES.get(self.bound or "", "")

    @property
    def win_rate(self) -> float:
        """Wins per match (0..1)."""
        return self.wins / self.matches if self.matches else 0.0


def leaderboard(store: Store, tournament_id: str, refs: dict[int, BotRef]) -> list[Standing]:
    """The leaderboard of a tournament, best first.

    Uses the ``ratings`` table that ``arena run`` refreshes; a tournament without ratings
    yet (interrupted before the end) still gets its counts, ordered by mean place.
    """
    places: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    counts: dict[int, dict[str, int]] = {}
    for n in store.place_totals(tournament_id):
        places[n.version_id] = list(n.places)
        counts[n.version_id] = {
            "matches": n.matches,
            "wins": n.places[0],
            "places": n.place_sum,
            "faults": n.faults,
        }
    rows: list[Standing] = []
    for r in sorted(store.read_standings(tournament_id)[0], key=_leaderboard_order):
        ref = refs.get(r["bot_version_id"])
        if ref is None:
            continue
        # One count per bot on a page: the matches stored now (those of the place chart),
        # not those of the last fit of the ratings (a running ladder refits every few sets).
        now = counts.get(r["bot_version_id"])
        rows.append(
            Standing(
                rank=r["rank"],
                bot=ref,
                rating=r["rating"],
                low=r["rating_low"],
                high=r["rating_high"],
                matches=now["matches"] if now else r["matches"],
                wins=now["wins"] if now else r["wins"],
                mean_place=now["places"] / now["matches"] if now else r["mean_place"],
                faults=now["faults"] if now else r["faults"],
                places=places[r["bot_version_id"]],
                bound=r["rating_bound"],
            )
        )
    if rows:
        return rows
    order = sorted(counts, key=lambda v: counts[v]["places"] / max(1, counts[v]["matches"]))
    for i, v in enumerate(order, start=1):
        if v not in refs:
            continue
        c = counts[v]
        mean = c["places"] / c["matches"] if c["matches"] else None
        rows.append(
            Standing(i, refs[v], None, None, None, c["matches"], c["wins"], mean, c["faults"])
        )
        rows[-1].places = places[v]
    return rows


def _leaderboard_order(row: RatingRow) -> tuple[bool, int, bool, float, str]:
    # Ranked first, by rank; then by rating, highest first, bots without one last; then name.
    rating = row["rating"]
    return (row["rank"] is None, row["rank"] or 0, rating is None, -(rating or 0.0), row["name"])


def pairwise(store: Store, tournament_id: str) -> dict[tuple[int, int], PairRow]:
    """``(a, b) -> row`` of the ``pairwise`` table (rate, low, high, matches) for a tournament."""
    return {(r["bot_a"], r["bot_b"]): r for r in store.read_standings(tournament_id)[1]}


@dataclass
class MatchRow:
    """A match in lists: id, the bot at each seat, scores and places."""

    id: str
    tournament_id: str
    round: int
    seating: int
    seed: int
    bots: list[BotRef]
    scores: list[int]
    places: list[int]
    hands_played: int
    truncated: bool
    faults: int
    duration: float | None
    finished_at: str
    set_key: str = ""

    @property
    def href(self) -> str:
        """Path of the match page, relative to the site root."""
        return f"matches/{self.id}.html"


def _match_row(r: StoredMatch, refs: dict[int, BotRef]) -> MatchRow:
    return MatchRow(
        id=safe_id(r.id),
        tournament_id=r.tournament_id,
        round=r.round,
        seating=r.seating,
        seed=r.seed,
        bots=[refs[b] for b in r.bots],
        scores=list(r.scores),
        places=list(r.places),
        hands_played=r.hands_played,
        truncated=r.truncated,
        faults=r.faults,
        duration=r.duration_seconds,
        finished_at=r.finished_at,
        set_key=r.set_key,
    )


@dataclass
class FaultRow:
    """A recorded fault: the match, seat, kind and (untrusted) message."""

    match_id: str
    seat: int
    bot: BotRef
    kind: str
    message: str
    decision: int | None
    """The decision it happened at, numbered from 1 as everywhere a user reads it (the
    database keeps 0-based); None while loading."""

    @property
    def match_href(self) -> str:
        """Path of the match page, relative to the site root."""
        return f"matches/{self.match_id}.html"


_FRAME = re.compile(r'^\s*File ".*", line \d+')


def without_source_lines(message: str) -> str:
    """A fault message with the source lines of Python tracebacks left out.

    A traceback quotes the bot's code under each ``File "...", line N`` frame (plus a line of
    ``^`` markers); sources are never published, so only the frames and the error remain.
    """
    out: list[str] = []
    in_frame = False
    for line in message.splitlines():
        if _FRAME.match(line):
            in_frame = True
            out.append(line)
        elif in_frame and line.startswith("    "):
            continue
        else:
            in_frame = False
            out.append(line)
    return "\n".join(out)


def faults(
    store: Store,
    refs: dict[int, BotRef],
    *,
    match_id: str | None = None,
    versions: Sequence[int] | None = None,
) -> list[FaultRow]:
    """The faults of one match, or of some bot versions."""
    return [
        FaultRow(safe_id(r.match_id), r.seat, refs[r.bot_version_id], r.kind,
              without_source_lines(r.message or ""),
              None if r.decision is None else int(r.decision) + 1)
        for r in store.fault_rows(match_id=match_id, versions=versions)
    ]  # fmt: skip


@dataclass
class SeatStats:
    """Timing of one seat in a match (from ``match_seats``): its think time in the match is
    ``clock_seconds`` of wall time on its match clock and ``cpu_seconds`` of CPU."""

    decisions: int
    asked: int
    think_seconds: float
    max_think_seconds: float
    clock_seconds: float = 0.0
    cpu_seconds: float = 0.0


REPLAY_HEAD = 40
"""A long match (one cut at the engine's hand limit has 200 hands) shows this many hands in
full at the start, :data:`REPLAY_TAIL` at the end, and the ones between as one line each."""
REPLAY_TAIL = 10


@dataclass
class MatchDetail:
    """Everything the match page shows."""

    match: MatchRow
    hands: list[HandView]
    faults: list[FaultRow]
    stats: list[SeatStats | None]
    logs: list[str | None]

    @property
    def _long(self) -> bool:
        return len(self.hands) > REPLAY_HEAD + REPLAY_TAIL

    @property
    def head(self) -> list[HandView]:
        """Hands shown in full before the brief part (all of them in a normal match)."""
        return self.hands[:REPLAY_HEAD] if self._long else self.hands

    @property
    def brief(self) -> list[HandView]:
        """Hands of a long match shown as one line each."""
        return self.hands[REPLAY_HEAD:-REPLAY_TAIL] if self._long else []

    @property
    def tail(self) -> list[HandView]:
        """Hands shown in full after the brief part."""
        return self.hands[-REPLAY_TAIL:] if self._long else []


def match_detail(
    store: Store, refs: dict[int, BotRef], m: MatchRow, *, with_logs: bool
) -> MatchDetail:
    """One match with its hands, seat timings, faults and (``with_logs``) logs."""
    hands = [hand_view(record) for record in store.hand_records(m.id)]
    stats: list[SeatStats | None] = [None, None, None]
    for s in store.seat_rows(m.id):
        stats[s.seat] = SeatStats(
            s.decisions or 0,
            s.asked or 0,
            s.think_seconds or 0.0,
            s.max_think_seconds or 0.0,
            s.clock_seconds or 0.0,
            s.cpu_seconds or 0.0,
        )
    logs: list[str | None] = [None, None, None]
    if with_logs:
        for seat, text in store.match_logs(m.id).items():
            logs[seat] = text
    return MatchDetail(m, hands, faults(store, refs, match_id=m.id), stats, logs)


def match_row(store: Store, refs: dict[int, BotRef], match_id: str) -> MatchRow | None:
    """The stored match of exactly this id (None: no such match, or a bot unknown)."""
    found = store.stored_match(match_id)
    if found is None or any(b not in refs for b in found.bots):
        return None
    return _match_row(found, refs)


def recent_matches(
    store: Store,
    refs: dict[int, BotRef],
    *,
    limit: int,
    offset: int = 0,
    tid: str | None = None,
    versions: Sequence[int] | None = None,
) -> list[MatchRow]:
    """A page of matches, the most recently stored first: of one tournament, or with one of
    ``versions`` seated."""
    rows = store.match_page_rows(tid=tid, versions=versions, limit=limit, offset=offset)
    return [_match_row(r, refs) for r in rows]
