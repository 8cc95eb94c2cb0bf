"""Standings: each bot's counts, Plackett-Luce rating with its interval, and how often it placed
above each other bot (a rate with its interval, :mod:`arena.stats.vocabulary`). One function
computes them (:func:`compute`); the terminal, the JSON output, the database and the site all
show what it returns.

The rating scale: 1500 + 400·log10(e)·(θ - centre), the centre being the plain mean θ of the
*rated* bots (so their ratings average exactly 1500, on every surface and on a ladder alike); a
gap of 400 means the stronger bot places above the weaker one 10 times in 11. The rated bots
are those with a maximum-likelihood strength and a two-sided interval; a bot that never placed
above anybody (or never below), a bot without a finished match and a bot seen in a single
duplicate unit do not take part in the centring, so none of them can move anybody else's
number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, TypedDict

from arena.lazy import lazy_module
from arena.stats import intervals, plackett_luce
from arena.stats.outcomes import Outcomes, SeatResult, Tally, tally
from arena.stats.vocabulary import (
    LEVEL,
    MIN_DEFF,
    MIN_UNITS,
    Interval,
    rate_interval,
    rate_variance,
)

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")

ELO_SCALE: Final = 400 / math.log(10)
"""Rating points per unit of Plackett-Luce log-strength."""

BASE: Final = 1500.0
"""The rating of the average rated bot."""

BOUND_DROP: Final = -math.log(1 - LEVEL)
"""Log-likelihood drop of a one-sided 95 % bound
(:func:`arena.stats.plackett_luce.boundary_bound`)."""

Bound = Literal["upper", "lower"]


@dataclass
class Pair:
    """How often one bot placed above another in the matches both played."""

    matches: int
    above: float  # a shared place counts one half
    units: int
    low: float | None = None
    high: float | None = None

    @property
    def rate(self) -> float:
        """``above / matches``."""
        return self.above / self.matches

    @property
    def interval(self) -> Interval | None:
        """The rate's interval (:func:`arena.stats.vocabulary.rate_interval`; None below two
        units)."""
        return None if self.low is None or self.high is None else Interval(self.low, self.high)


@dataclass
class BotStanding:
    """A bot's line in the standings.

    ``rating`` is None when there is no estimate: no finished match, no result linking the
    bot to the rated bots, or a one-sided result (``bound``): ``"upper"`` when the bot never
    placed above any rated bot (the rating is at most ``rating_high``), ``"lower"`` when it
    never placed below one (at least ``rating_low``). ``rank`` is None for a bot without a
    finished match. Intervals are None below two duplicate units (overall and the bot's own).
    """

    bot: int
    name: str
    matches: int = 0
    wins: int = 0
    place_sum: int = 0
    faults: int = 0
    units: int = 0
    rating: float | None = None
    rating_low: float | None = None
    rating_high: float | None = None
    bound: Bound | None = None
    rank: int | None = None
    above: dict[int, Pair] = field(default_factory=dict)
    weight: float = 0.0  # share in the centre of the scale (not stored)

    @property
    def interval(self) -> Interval | None:
        """The rating's two-sided interval (None without one: a bound, or too few units)."""
        if self.bound is not None or self.rating_low is None or self.rating_high is None:
            return None
        return Interval(self.rating_low, self.rating_high)

    @property
    def mean_place(self) -> float | None:
        """Mean place over the bot's matches (None before its first match)."""
        return self.place_sum / self.matches if self.matches else None


def compute(seats: Sequence[SeatResult] | Outcomes, names: dict[int, str]) -> list[BotStanding]:
    """Standings of the bots in ``names`` (bot version id -> name): ranked bots best first,
    then the bots without a finished match."""
    out = seats if isinstance(seats, Outcomes) else Outcomes.from_seats(seats, names)
    out = out.over(names)
    t = tally(out)
    table = [
        BotStanding(
            bot=b,
            name=names[b],
            matches=int(t.matches[i]),
            wins=int(t.wins[i]),
            place_sum=int(t.place_sum[i]),
            faults=int(out.faults[i]),
            units=int(t.bot_units[i]),
        )
        for i, b in enumerate(out.ids)
    ]
    _rate(t, table)
    _pairs(t, table)
    return _ranked(table)


def _rate(t: Tally, table: list[BotStanding]) -> None:
    """Fill in ratings, intervals and bounds."""
    main, side = plackett_luce.components(t.members, t.matches > 0)
    k = int(main.sum())
    if k < 2:
        return
    members, origin = plackett_luce.restrict(t.members, main)
    choices = plackett_luce.Choices(members, t.choice_totals()[origin])
    theta = plackett_luce.fit_choices(choices, k)
    _, hess = plackett_luce.gradient_hessian(choices, theta)
    scores = plackett_luce.unit_scores(t, main, theta)
    info_inv = intervals.information_inverse(hess)
    # (units, bots): whether the unit holds a choice of the bot's
    informs = plackett_luce.unit_informs(t, main)
    unit_informs = np.asarray(informs.any(axis=1))
    g = int(unit_informs.sum())  # units with a result among the fitted bots
    where = np.flatnonzero(main)
    rated = (t.bot_units[where] >= MIN_UNITS) & (g >= MIN_UNITS)
    # The centre: the plain mean strength of the rated bots (of every fitted bot while none
    # is rated), one definition for a tournament and a ladder (arena.ladder.ratings), which
    # a reader can check by averaging the column. An information-weighted mean moved with
    # the schedule on a ladder (docs/ladder.md) and was not what the pages said 1500 is.
    members = rated if rated.any() else np.ones(len(where), dtype=bool)
    centre = members.astype(float) / float(members.sum())
    anchor = float(centre @ theta)
    deffs = []
    for j, i in enumerate(where):
        st = table[i]
        st.rating = BASE + ELO_SCALE * (float(theta[j]) - anchor)
        st.weight = float(centre[j])
        if not rated[j]:
            continue
        c = -centre
        c[j] += 1.0
        own = int(informs[:, j].sum())  # the units with a result of j among the fitted bots
        spread = intervals.contrast(c, scores, info_inv, own, unit_informs)
        interval = intervals.contrast_interval(float(c @ theta), spread.robust, spread.df)
        if interval is None:
            continue
        st.rating_low = BASE + ELO_SCALE * interval.low
        st.rating_high = BASE + ELO_SCALE * interval.high
        if spread.design_effect is not None:
            deffs.append(spread.design_effect)
    finite = [d for d in deffs if math.isfinite(d)]
    drop = BOUND_DROP * max(1.0, float(np.median(finite)) if finite else 1.0)
    for i in np.flatnonzero(side):
        st = table[i]
        st.bound = "upper" if side[i] < 0 else "lower"
        if st.units < MIN_UNITS or g < MIN_UNITS:
            continue
        value = BASE + ELO_SCALE * (
            plackett_luce.boundary_bound(t, main, theta, int(i), int(side[i]), drop) - anchor
        )
        if side[i] < 0:
            st.rating_high = value
        else:
            st.rating_low = value


def _pairs(t: Tally, table: list[BotStanding]) -> None:
    """Fill in the placed-above table with Wilson intervals on effective matches."""
    if not len(t.pair_a):
        return
    order = np.lexsort((t.pair_b, t.pair_a))
    a, b = t.pair_a[order], t.pair_b[order]
    above, together = t.pair_above[order], t.pair_together[order]
    starts = np.flatnonzero(np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])])
    ends = np.r_[starts[1:], len(a)]
    stats = []
    for s, e in zip(starts, ends, strict=True):
        rate, var, g = rate_variance(above[s:e], together[s:e])
        stats.append(
            (
                int(a[s]),
                int(b[s]),
                rate,
                var,
                g,
                float(together[s:e].sum()),
                float(above[s:e].sum()),
            )
        )
    deffs = [
        var / (rate * (1 - rate) / m)
        for _, _, rate, var, g, m, _ in stats
        if g >= MIN_UNITS and var is not None and var > 0 and 0 < rate < 1
    ]
    pooled = max(MIN_DEFF, float(np.median(deffs))) if deffs else 1.0
    for i, j, rate, var, g, m, ab in stats:
        interval = rate_interval(rate, var, g, m, pooled)
        table[i].above[table[j].bot] = Pair(
            matches=int(m),
            above=ab,
            units=g,
            low=None if interval is None else interval.low,
            high=None if interval is None else interval.high,
        )


def _ranked(table: list[BotStanding]) -> list[BotStanding]:
    """Best first: bots bounded from below, rated bots, bots bounded from above, then bots
    with matches but no rating (by mean place); bots without a match last, unranked.

    A one-sided bound is no estimate: two bots bounded on the same side are not ordered by
    their bounds' values (a bot that always lost to another could show a bound a point
    higher). They are ordered by their results against each other: by how many of the bots
    bounded on their side each placed above with a placed-above interval wholly above 1/2
    (each such win significant at the table's level); equal counts share a rank, listed by
    the bound's value."""

    def category(s: BotStanding) -> int:
        if s.bound == "lower":
            return 0
        if s.rating is not None:
            return 1
        return 2 if s.bound == "upper" else 3

    side = {c: [s for s in table if s.matches and category(s) == c] for c in (0, 2)}

    def wins(s: BotStanding) -> int:
        group = side.get(category(s), [])
        intervals = (s.above[o.bot].interval for o in group if o.bot in s.above)
        return sum(1 for i in intervals if i is not None and i.above(0.5))

    def key(s: BotStanding) -> tuple[int, float]:
        c = category(s)
        if c == 1:
            return c, -float(s.rating or 0.0)
        if c == 3:
            return c, s.mean_place if s.mean_place is not None else math.inf
        return c, -float(wins(s))

    def shown(s: BotStanding) -> float:
        value = s.rating_low if s.bound == "lower" else s.rating_high
        return -(value if value is not None else -math.inf)

    played = sorted((s for s in table if s.matches), key=lambda s: (key(s), shown(s), s.name))
    previous: tuple[int, float] | None = None
    for position, s in enumerate(played, 1):
        k = key(s)
        s.rank = played[position - 2].rank if k == previous else position
        previous = k
    return played + sorted((s for s in table if not s.matches), key=lambda s: s.name)


def to_json(
    standings: Sequence[BotStanding], versions: Mapping[int, tuple[int, str]]
) -> list[StandingJSON]:
    """The ``arena standings --json`` list: one object per bot (docs/statistics.md), its keys
    the names of :class:`arena.tournaments.standings.Standing`'s fields (and ``placed_above``).
    ``versions``: each bot version's number and hash, by id."""
    names = {s.bot: s.name for s in standings}
    r1 = _round(1)
    r4 = _round(4)
    return [
        {
            "name": s.name,
            "matches": s.matches,
            "wins": s.wins,
            "mean_place": r4(s.mean_place),
            "faults": s.faults,
            "rating": r1(s.rating),
            "low": r1(s.rating_low),
            "high": r1(s.rating_high),
            "bound": s.bound,
            "rank": s.rank,
            "units": s.units,
            "version": versions[s.bot][0] if s.bot in versions else None,
            "sha256": versions[s.bot][1] if s.bot in versions else None,
            "bot_version_id": s.bot,
            "placed_above": {
                names[o]: {
                    "matches": p.matches,
                    "rate": r4(p.rate),
                    "low": r4(p.low),
                    "high": r4(p.high),
                    "units": p.units,
                }
                for o, p in s.above.items()
            },
        }
        for s in standings
    ]


class PlacedAbove(TypedDict):
    """How often a bot placed above one other (``placed_above`` of :class:`StandingJSON`)."""

    matches: int
    rate: float | None
    low: float | None
    high: float | None
    units: int


class StandingJSON(TypedDict):
    """One bot of ``arena standings --json`` (docs/statistics.md)."""

    name: str
    matches: int
    wins: int
    mean_place: float | None
    faults: int
    rating: float | None
    low: float | None
    high: float | None
    bound: Literal["upper", "lower"] | None
    rank: int | None
    units: int
    version: int | None
    sha256: str | None
    bot_version_id: int
    placed_above: dict[str, PlacedAbove]


def _round(digits: int) -> Any:
    def r(x: float | None) -> float | None:
        return None if x is None else round(x, digits)

    return r


def rating_text(
    rating: float | None, low: float | None, high: float | None, bound: str | None
) -> str:
    """A rating as the terminal and the site show it: ``1523 (1490-1556)``, ``<= 1180``,
    ``>= 1830``, ``1523`` (no interval yet) or ``-`` (no rating, nor a bound's value)."""
    if bound == "upper" and high is not None:
        return f"<= {high:.0f}"
    if bound == "lower" and low is not None:
        return f">= {low:.0f}"
    if rating is None:  # a bound without its value yet is no rating either
        return "-"
    if low is None or high is None:
        return f"{rating:.0f}"
    return f"{rating:.0f} ({low:.0f}-{high:.0f})"


class RatingRow(TypedDict):
    """A row of the ``ratings`` table (docs/schema.md): one bot's standing in a tournament."""

    tournament_id: str
    bot_version_id: int
    name: str
    rank: int | None
    rating: float | None
    rating_low: float | None
    rating_high: float | None
    rating_bound: Literal["upper", "lower"] | None
    units: int
    matches: int
    wins: int
    mean_place: float | None
    faults: int
    method: str
    computed_at: str


class PairRow(TypedDict):
    """A row of the ``pairwise`` table (docs/schema.md): how often ``bot_a`` placed above
    ``bot_b``."""

    tournament_id: str
    bot_a: int
    bot_b: int
    matches: int
    units: int
    above: float
    rate: float | None
    low: float | None
    high: float | None


METHOD: Final = "pl-ml-shared-orders/cluster-t/wilson-neff/2"
"""Names the statistics stored rows were computed with: rows with another name are stale
(recomputed on the next read), so a change of method never shows old figures."""


def to_rows(
    tid: str, table: Sequence[BotStanding], stamp: str
) -> tuple[list[RatingRow], list[PairRow]]:
    """The ``ratings`` and ``pairwise`` rows of a tournament's standings (docs/schema.md)."""
    ratings: list[RatingRow] = [
        {
            "tournament_id": tid,
            "bot_version_id": s.bot,
            "name": s.name,
            "rank": s.rank,
            "rating": s.rating,
            "rating_low": s.rating_low,
            "rating_high": s.rating_high,
            "rating_bound": s.bound,
            "units": s.units,
            "matches": s.matches,
            "wins": s.wins,
            "mean_place": s.mean_place,
            "faults": s.faults,
            "method": METHOD,
            "computed_at": stamp,
        }
        for s in table
    ]
    pairwise: list[PairRow] = [
        {
            "tournament_id": tid,
            "bot_a": s.bot,
            "bot_b": other,
            "matches": p.matches,
            "units": p.units,
            "above": p.above,
            "rate": p.rate,
            "low": p.low,
            "high": p.high,
        }
        for s in table
        for other, p in s.above.items()
    ]
    return ratings, pairwise


def from_rows(ratings: Sequence[RatingRow], pairwise: Sequence[PairRow]) -> list[BotStanding]:
    """Standings back from their stored rows, in the order :func:`compute` returns them."""
    table = {
        r["bot_version_id"]: BotStanding(
            bot=r["bot_version_id"],
            name=r["name"],
            matches=r["matches"],
            wins=r["wins"],
            place_sum=round((r["mean_place"] or 0.0) * r["matches"]),
            faults=r["faults"],
            units=r["units"],
            rating=r["rating"],
            rating_low=r["rating_low"],
            rating_high=r["rating_high"],
            bound=r["rating_bound"],
            rank=r["rank"],
        )
        for r in ratings
    }
    for p in sorted(pairwise, key=lambda p: (p["bot_a"], p["bot_b"])):
        if p["bot_a"] in table:
            table[p["bot_a"]].above[p["bot_b"]] = Pair(
                p["matches"], p["above"], p["units"], p["low"], p["high"]
            )
    return sorted(
        table.values(),
        key=lambda s: (s.rank is None, s.rank or 0, -(s.rating or 0.0), s.name),
    )


def rate_text(p: Pair) -> str:
    """A placed-above rate as the terminal shows it: ``62% (55%-69%)``, or ``62%`` before
    there are two duplicate units to estimate its spread from."""
    i = p.interval
    if i is None:
        return f"{p.rate:.0%}"
    return f"{p.rate:.0%} ({i.low:.0%}-{i.high:.0%})"


BOUND_NOTES: Final = {
    "upper": "never placed above a rated bot, so only an upper bound",
    "lower": "never placed below a rated bot, so only a lower bound",
}
"""What a one-sided rating means, by ``bound``."""


def rating_notes(table: Sequence[BotStanding]) -> str:
    """What the marks in a standings table mean, for the marks it uses."""
    notes = []
    if any(s.bound == "upper" and s.rating_high is not None for s in table):
        notes.append(f"<= : {BOUND_NOTES['upper']}")
    if any(s.bound == "lower" and s.rating_low is not None for s in table):
        notes.append(f">= : {BOUND_NOTES['lower']}")
    unrated = [s for s in table if rating_text(s.rating, s.rating_low, s.rating_high, s.bound)
               == "-" and s.matches]  # fmt: skip
    if unrated and len(unrated) == sum(1 for s in table if s.matches):
        notes.append(
            "- : no rating yet: the results so far (one strict order, or ties only) fit no "
            "finite ratings; ranked by mean place until more rounds mix them"
        )
    elif unrated:
        notes.append(
            "- : no rating (no decisive result against the rated bots); ranked after them by "
            "mean place"
        )
    if any(not s.matches for s in table):
        notes.append("unranked: no finished match")
    return "; ".join(notes)
