"""What duplicate play makes visible: luck-adjusted scores, seat bias, non-transitive cycles.

Every report is a pure function over plain per-seat records (:class:`SeatRecord`, one per
seat of a finished match, from the rows of :meth:`arena.store.Store.duplicate_seats`), so the
terminal, ``--json`` and the site can share one computation.

Intervals are over **duplicate units** (:mod:`arena.stats.vocabulary`): every match of one
duplicate set and round plays the same deals (the cards of each seat depend only on the match
seed), so those matches are one sample, not six, and units of different sets or rounds are
independent. A mean over records is the ratio of per-unit sums to per-unit counts; its
standard error is the cluster-robust one (the sandwich estimator with the small-sample factor
``K / (K - 1)`` over ``K`` units) and the interval uses Student's t with ``K - 1`` degrees of
freedom. Below two units there is no interval (None).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypedDict, TypeVar

from arena.stats.outcomes import DuplicateSeat
from arena.stats.vocabulary import LEVEL, MIN_UNITS, Interval, t_quantile, unit_key


class EstimateDict(TypedDict):
    """:meth:`Estimate.to_dict`."""

    value: float
    low: float | None
    high: float | None
    units: int


class DuplicateScoreDict(TypedDict):
    """:meth:`DuplicateScore.to_dict`."""

    bot: int
    matches: int
    score: EstimateDict
    points: EstimateDict
    luck_share: float | None


class PositionDict(TypedDict):
    """:meth:`PositionResult.to_dict`."""

    position: int
    name: str
    matches: int
    place: EstimateDict
    points: EstimateDict
    edge: EstimateDict


class SeatBiasDict(TypedDict):
    """:meth:`SeatBias.to_dict`."""

    positions: list[PositionDict]
    favoured: list[str]
    disfavoured: list[str]
    verdict: str


class CycleDict(TypedDict):
    """:meth:`Cycle.to_dict`: the bots (ids, or names in ``arena standings --json``) and each
    edge's interval ``[low, high]``."""

    bots: Sequence[int | str]
    intervals: list[list[float]]


POSITIONS: Final = ("dealer", "dealer's left", "dealer's right")
"""Seat positions relative to the first hand's dealer (clockwise: 1 bids and leads first)."""


@dataclass(frozen=True)
class SeatRecord:
    """One seat of one finished match."""

    match_id: str
    unit: str
    """The duplicate unit (:func:`arena.stats.vocabulary.unit_key`): matches of one unit share
    their deals."""
    seat: int
    bot: int
    points: int
    """The seat's final score: 0, the least a seat can score, when it forfeited the match
    (:func:`seat_records`)."""
    place: int
    first_dealer: int | None = None
    """The seat that dealt the match's first hand (None if unknown)."""
    faulted: bool = False
    """The seat forfeited the match by a fault (it placed last)."""

    @property
    def position(self) -> int | None:
        """0 for the first dealer, 1 for the dealer's left, 2 for the dealer's right."""
        return None if self.first_dealer is None else (self.seat - self.first_dealer) % 3


def seat_records(rows: Iterable[DuplicateSeat]) -> list[SeatRecord]:
    """SeatRecords from the rows of :meth:`arena.store.Store.duplicate_seats`.

    A forfeit counts as what it is: the seat placed last (the match's placements say so) and
    scored **0 points**, whatever the fallback that played its remaining hands scored. Those
    points are the fallback's, not the bot's; counting them let a bot that forfeited every
    match outscore working bots in the duplicate table."""
    out = []
    for r in rows:
        faulted = bool(r.faulted)
        out.append(
            SeatRecord(
                r.match_id,
                unit_key(r.set_key, r.round),
                r.seat,
                r.bot_version_id,
                0 if faulted else r.score,
                r.place,
                r.first_dealer,
                faulted,
            )
        )
    return out


# --- means over units -------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A mean over records with its interval over units (None below two units)."""

    value: float
    interval: Interval | None
    units: int
    variance: float | None
    """The squared standard error of ``value`` (None below two units)."""

    @property
    def low(self) -> float | None:
        """The interval's low end (None without one)."""
        return None if self.interval is None else self.interval.low

    @property
    def high(self) -> float | None:
        """The interval's high end (None without one)."""
        return None if self.interval is None else self.interval.high

    def to_dict(self) -> EstimateDict:
        """JSON-ready, rounded."""
        return {
            "value": round(self.value, 4),
            "low": None if self.low is None else round(self.low, 4),
            "high": None if self.high is None else round(self.high, 4),
            "units": self.units,
        }


def cluster_mean(sums: Sequence[float], counts: Sequence[float], level: float = LEVEL) -> Estimate:
    """The mean ``sum(sums) / sum(counts)`` of records grouped by unit, with its interval.

    ``sums[k]`` and ``counts[k]`` are the total and the number of records of unit ``k``.
    """
    total = sum(counts)
    if not total:
        raise ValueError("no records")
    value = sum(sums) / total
    k = len(sums)
    if k < MIN_UNITS:
        return Estimate(value, None, k, None)
    residuals = [s - value * n for s, n in zip(sums, counts, strict=True)]
    variance = k / (k - 1) * sum(e * e for e in residuals) / total**2
    half = t_quantile(k - 1, level) * math.sqrt(variance)
    return Estimate(value, Interval(value - half, value + half, level), k, variance)


def _by_unit(pairs: Iterable[tuple[str, float]]) -> tuple[list[float], list[float]]:
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, float] = defaultdict(float)
    for unit, x in pairs:
        sums[unit] += x
        counts[unit] += 1
    keys = sorted(sums)
    return [sums[u] for u in keys], [counts[u] for u in keys]


# --- duplicate score --------------------------------------------------------------------------


@dataclass(frozen=True)
class DuplicateScore:
    """A bot's points against the par of the cards it held (bridge's duplicate comparison)."""

    bot: int
    matches: int
    """Seats counted: those whose (deal, seat) was also played by another bot."""
    score: Estimate
    """Mean of points minus par, where par is the mean points of every bot that played the
    same deal in the same seat (each bot's average counted once)."""
    points: Estimate
    """Mean raw points over the same seats, for comparison."""
    luck: tuple[float, float] = (0.0, 0.0)
    """Over the bot's counted seats: the co-moment of its points with the par of the *other*
    bots that held the same cards, and the second moment of its points (each about its mean):
    :attr:`luck_share` is their ratio."""

    @property
    def luck_share(self) -> float | None:
        """The cards' share of the bot's raw points variance: what the par removes.

        The covariance of the bot's points with the others' par of the same (deal, seat),
        over the variance of its points. The others' records of a cell come from other
        matches, so with no luck (the cards make no difference) they are independent of the
        bot's and the share is 0 in expectation, whatever the game does inside a match (in a
        three-player game one seat's gain is another's loss); when points are the cards'
        effect plus independent play, it is the cards' share of the variance. 0: the par
        removed nothing; 0.5: half of raw points' variance was the cards'. It can come out a
        little below 0 by chance. None without a spread of points."""
        co, var = self.luck
        return None if var <= 0 else co / var

    def to_dict(self) -> DuplicateScoreDict:
        """JSON-ready, rounded."""
        share = self.luck_share
        return {
            "bot": self.bot,
            "matches": self.matches,
            "score": self.score.to_dict(),
            "points": self.points.to_dict(),
            "luck_share": None if share is None else round(share, 3),
        }


def moments(pairs: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """``(sum (x - mean x)(y - mean y), sum (x - mean x)^2)`` of ``(x, y)`` pairs."""
    if not pairs:
        return 0.0, 0.0
    mx = sum(x for x, _ in pairs) / len(pairs)
    my = sum(y for _, y in pairs) / len(pairs)
    return sum((x - mx) * (y - my) for x, y in pairs), sum((x - mx) ** 2 for x, _ in pairs)


def duplicate_scores(records: Iterable[SeatRecord]) -> list[DuplicateScore]:
    """Every bot's duplicate score, best first.

    A (deal, seat) played by one bot only (a duplicate set still incomplete) has no par and
    is left out.
    """
    cells: dict[tuple[str, int], dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        cells[(r.unit, r.seat)][r.bot].append(r.points)
    diffs: dict[int, list[tuple[str, float]]] = defaultdict(list)
    raw: dict[int, list[tuple[str, float]]] = defaultdict(list)
    against: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for (unit, _seat), by_bot in cells.items():
        if len(by_bot) < 2:
            continue
        means = {bot: sum(p) / len(p) for bot, p in by_bot.items()}
        par = sum(means.values()) / len(means)
        for bot, points in by_bot.items():
            others = (par * len(means) - means[bot]) / (len(means) - 1)
            diffs[bot] += [(unit, p - par) for p in points]
            raw[bot] += [(unit, float(p)) for p in points]
            against[bot] += [(float(p), others) for p in points]
    out = [
        DuplicateScore(
            bot,
            len(diffs[bot]),
            cluster_mean(*_by_unit(diffs[bot])),
            cluster_mean(*_by_unit(raw[bot])),
            moments(against[bot]),
        )  # fmt: skip
        for bot in diffs
    ]
    return sorted(out, key=lambda d: (-d.score.value, d.bot))


# --- seat and dealer bias ---------------------------------------------------------------------


@dataclass(frozen=True)
class PositionResult:
    """How one seat position, relative to the first dealer, fared."""

    position: int
    name: str
    matches: int
    place: Estimate
    points: Estimate
    edge: Estimate
    """Mean place minus the mean place of all seats of the same matches (below 0: better)."""
    edge_joint: Interval | None
    """The edge's interval at ``1 - (1 - level) / 3`` (three positions tested at once: what
    calls a position favoured)."""

    def to_dict(self) -> PositionDict:
        """JSON-ready, rounded."""
        return {
            "position": self.position,
            "name": self.name,
            "matches": self.matches,
            "place": self.place.to_dict(),
            "points": self.points.to_dict(),
            "edge": self.edge.to_dict(),
        }


@dataclass(frozen=True)
class SeatBias:
    """The seat-position report and its verdict."""

    positions: tuple[PositionResult, ...]
    favoured: tuple[int, ...]
    """Positions with a significantly better mean place than the average (usually none)."""
    disfavoured: tuple[int, ...]
    verdict: str

    def to_dict(self) -> SeatBiasDict:
        """JSON-ready."""
        return {
            "positions": [p.to_dict() for p in self.positions],
            "favoured": [POSITIONS[p] for p in self.favoured],
            "disfavoured": [POSITIONS[p] for p in self.disfavoured],
            "verdict": self.verdict,
        }


def seat_bias(records: Iterable[SeatRecord], level: float = LEVEL) -> SeatBias:
    """Mean place and points by position relative to the first dealer, and a verdict.

    A position is called favoured (or at a disadvantage) when its mean place differs from the
    average of the seats of the same matches with ``level`` confidence after a Bonferroni
    correction for the three positions looked at.
    """
    known = [r for r in records if r.position is not None]
    match_place: dict[str, list[int]] = defaultdict(list)
    for r in known:
        match_place[r.match_id].append(r.place)
    average = {m: sum(p) / len(p) for m, p in match_place.items()}
    joint = 1 - (1 - level) / len(POSITIONS)
    results = []
    for pos, name in enumerate(POSITIONS):
        mine = [r for r in known if r.position == pos]
        if not mine:
            continue
        edge_sums = _by_unit((r.unit, r.place - average[r.match_id]) for r in mine)
        wide = cluster_mean(*edge_sums, level=joint)
        results.append(
            PositionResult(
                pos,
                name,
                len(mine),
                cluster_mean(*_by_unit((r.unit, float(r.place)) for r in mine), level=level),
                cluster_mean(*_by_unit((r.unit, float(r.points)) for r in mine), level=level),
                cluster_mean(*edge_sums, level=level),
                wide.interval,
            )
        )
    favoured = tuple(p.position for p in results if p.edge_joint and p.edge_joint.below(0))
    worse = tuple(p.position for p in results if p.edge_joint and p.edge_joint.above(0))
    return SeatBias(tuple(results), favoured, worse, _verdict(results, favoured, worse))


def _verdict(
    results: Sequence[PositionResult], favoured: Sequence[int], worse: Sequence[int]
) -> str:
    if not results:
        return "no matches with a known first dealer"
    deals = max(p.place.units for p in results)
    if deals < 2:
        return "too few deals to tell (at least two are needed)"
    if not favoured and not worse:
        spread = max(abs(p.edge.value) for p in results)
        return (
            f"no seat position is favoured: mean places differ from the average by at most "
            f"{spread:.3f} over {deals} deals, within chance"
        )
    parts = []
    for label, group in (("favours", favoured), ("is hard on", worse)):
        for pos in group:
            p = next(r for r in results if r.position == pos)
            parts.append(
                f"{label} the {p.name} (mean place {p.place.value:.3f}, "
                f"{p.edge.value:+.3f} against the average)"
            )
    return f"the game as configured {' and '.join(parts)}, over {deals} deals"


# --- non-transitive cycles --------------------------------------------------------------------

B = TypeVar("B", int, str)


@dataclass(frozen=True)
class Cycle:
    """Bots each placing above the next, the last above the first, every edge significant."""

    bots: tuple[Any, ...]
    intervals: tuple[Interval, ...]
    """The interval of each edge's placed-above rate: bots[i] over bots[i + 1] (cyclically)."""

    def to_dict(self) -> CycleDict:
        """JSON-ready."""
        return {"bots": list(self.bots), "intervals": [i.rounded(4) for i in self.intervals]}


def significant_edges(
    intervals: Mapping[tuple[B, B], Interval | None],
) -> dict[B, dict[B, Interval]]:
    """The significant edges of a pairwise table: ``A -> B`` when A's placed-above rate over B
    has an interval entirely above 1/2 (read from either direction of the table)."""
    out: dict[B, dict[B, Interval]] = defaultdict(dict)
    for (a, b), interval in intervals.items():
        if interval is None or math.isnan(interval.low) or math.isnan(interval.high) or a == b:
            continue
        if interval.above(0.5):
            out[a][b] = interval
        elif interval.below(0.5):
            out[b].setdefault(a, interval.complement())
    return out


def cycles(intervals: Mapping[tuple[B, B], Interval | None], max_length: int = 3) -> list[Cycle]:
    """Every cycle of up to ``max_length`` bots in the table of significant edges.

    ``intervals[(a, b)]`` is the interval of the rate at which ``a`` placed above ``b`` (the
    table the standings show, :attr:`arena.stats.standings.Pair.interval`; None where there is
    none). Each cycle is listed once, starting from its smallest bot; shortest first. A rating
    puts bots on one line, so it cannot express any of these.
    """
    edges = significant_edges(intervals)
    found: list[Cycle] = []

    def extend(path: list[B]) -> None:
        for nxt in sorted(edges.get(path[-1], {})):
            if nxt == path[0] and len(path) >= 3:
                pairs = zip(path, path[1:] + path[:1], strict=True)
                found.append(Cycle(tuple(path), tuple(edges[a][b] for a, b in pairs)))
            elif nxt > path[0] and nxt not in path and len(path) < max_length:
                extend(path + [nxt])

    for start in sorted(edges):
        extend([start])
    return sorted(found, key=lambda c: (len(c.bots), c.bots))
