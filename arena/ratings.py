"""Standings: a batch Plackett-Luce fit with bootstrap intervals, and a pairwise table.

The fit is ``choix.ilsr_top1`` (iterative Luce spectral ranking) over every finished match: a
match's placing is the Plackett-Luce sequence of choices "first out of three", then "second
out of the remaining two"; a choice between seats that share a place is left out, because it
carries no order. Strengths are shown on an Elo-like scale (1500 + 400·log10(e)·θ, mean 1500),
so a gap of 400 means the stronger bot places above the weaker one 10 times in 11.

Matches of one duplicate set and round (its six seatings) share the deals, so they are not
independent: the bootstrap resamples whole (set, round) units with replacement, refits, and
reports the 2.5 and 97.5 percentiles. The generator is seeded, so the same database always
gives the same intervals.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import choix
import numpy as np

ELO_SCALE: Final = 400 / math.log(10)
"""Rating points per unit of Plackett-Luce log-strength."""

BASE: Final = 1500.0
ALPHA: Final = 0.1
"""choix regularisation: a small prior pull towards equal strength, so a bot that won (or
lost) every match still gets a finite rating."""

BOOTSTRAP: Final = 200
"""Bootstrap resamples; fewer for very large tournaments (see :func:`resamples`)."""
BOOTSTRAP_SEED: Final = 20261130


@dataclass(frozen=True)
class SeatResult:
    """One seat of one finished match, as the ratings need it."""

    match_id: str
    unit: str  # the duplicate set and round: "set_key/round"
    bot: int  # bot version id
    place: int
    faulted: bool


@dataclass
class BotStanding:
    """A bot's line in the standings."""

    bot: int
    name: str
    matches: int = 0
    wins: int = 0
    place_sum: int = 0
    faults: int = 0
    rating: float = BASE
    rating_low: float = BASE
    rating_high: float = BASE
    rank: int = 0
    above: dict[int, dict[str, float]] = field(default_factory=dict)

    @property
    def mean_place(self) -> float | None:
        """Mean place over the bot's matches (None before its first match)."""
        return self.place_sum / self.matches if self.matches else None


def _matches(seats: Sequence[SeatResult]) -> dict[str, list[SeatResult]]:
    by_match: dict[str, list[SeatResult]] = defaultdict(list)
    for s in seats:
        by_match[s.match_id].append(s)
    return by_match


def top1_choices(places: Sequence[tuple[int, int]]) -> list[tuple[int, tuple[int, ...]]]:
    """A match's placing as Plackett-Luce top-1 choices ``(chosen, (others, ...))``.

    ``places`` holds (item, place) per seat. Items sharing the best remaining place make no
    choice at that step (there is no order between them) and are removed together.
    """
    remaining = sorted(places, key=lambda p: p[1])
    out: list[tuple[int, tuple[int, ...]]] = []
    while len(remaining) > 1:
        best = remaining[0][1]
        top = [item for item, place in remaining if place == best]
        rest = [item for item, place in remaining if place != best]
        if len(top) == 1 and rest:
            out.append((top[0], tuple(rest)))
        remaining = [p for p in remaining if p[1] != best]
    return out


def fit(
    n_items: int,
    choices: Sequence[tuple[int, tuple[int, ...]]],
    start: np.ndarray | None = None,
) -> np.ndarray:
    """Plackett-Luce log-strengths (mean 0) of ``n_items`` from top-1 choices.

    ``start`` warm-starts the iteration (the bootstrap starts from the full fit, which cuts
    the iterations about four-fold).
    """
    if n_items < 2 or not choices:
        return np.zeros(n_items)
    theta = np.asarray(
        choix.ilsr_top1(
            n_items,
            list(choices),
            alpha=ALPHA,
            max_iter=500,
            initial_params=start,
            # A refit only has to be as exact as the percentiles are worth.
            tol=1e-8 if start is None else 1e-5,
        )
    )
    return theta - theta.mean()


def resamples(wanted: int, n_choices: int) -> int:
    """Bootstrap resamples to draw: ``wanted``, cut so one standings run stays a few seconds
    (each refit is a pass over every choice in Python), but never below 50."""
    return min(wanted, max(50, 400_000 // max(1, n_choices)))


def compute(
    seats: Sequence[SeatResult],
    names: dict[int, str],
    *,
    bootstrap: int = BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> list[BotStanding]:
    """Standings of the bots in ``names`` from their seats: best rating first.

    Bots without a finished match keep the base rating and an interval of that one point.
    """
    bots = sorted(names)
    index = {b: i for i, b in enumerate(bots)}
    n = len(bots)
    table = {b: BotStanding(b, names[b]) for b in bots}
    by_match = _matches(seats)

    # Per duplicate unit: its choices and its pairwise counts, so a bootstrap resample is a
    # weighted sum over units.
    units = sorted({s.unit for s in seats})
    unit_index = {u: k for k, u in enumerate(units)}
    unit_choices: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in units]
    above = np.zeros((len(units), n, n))
    together = np.zeros((len(units), n, n))
    for mseats in by_match.values():
        k = unit_index[mseats[0].unit]
        items = [(index[s.bot], s.place) for s in mseats]
        unit_choices[k].extend(top1_choices(items))
        for s in mseats:
            st = table[s.bot]
            st.matches += 1
            st.wins += int(s.place == 1)
            st.place_sum += s.place
            st.faults += int(s.faulted)
        for i, pi in items:
            for j, pj in items:
                if i != j:
                    together[k, i, j] += 1
                    above[k, i, j] += 1.0 if pi < pj else 0.5 if pi == pj else 0.0

    everything = [c for cs in unit_choices for c in cs]
    theta = fit(n, everything)
    bootstrap = resamples(bootstrap, len(everything))
    rng = np.random.default_rng(seed)
    boot_theta = np.empty((bootstrap, n))
    boot_rate = np.full((bootstrap, n, n), np.nan)
    for b in range(bootstrap if units else 0):
        counts = np.bincount(rng.integers(0, len(units), len(units)), minlength=len(units))
        data = [c for k in np.flatnonzero(counts) for c in unit_choices[k] * int(counts[k])]
        boot_theta[b] = fit(n, data, theta)
        num = np.tensordot(counts, above, axes=1)
        den = np.tensordot(counts, together, axes=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            boot_rate[b] = num / den

    total_above = above.sum(axis=0)
    total_together = together.sum(axis=0)
    for b in bots:
        i = index[b]
        st = table[b]
        st.rating = BASE + ELO_SCALE * float(theta[i])
        if len(units) >= 2 and st.matches:
            lo, hi = np.percentile(boot_theta[:, i], [2.5, 97.5])
            st.rating_low = BASE + ELO_SCALE * float(lo)
            st.rating_high = BASE + ELO_SCALE * float(hi)
        elif st.matches:
            # One duplicate set and round: resampling it can only return itself, so there is
            # no estimate of the uncertainty at all; say so rather than print a zero width.
            st.rating_low = st.rating_high = math.nan
        else:
            st.rating_low = st.rating_high = st.rating
        for o in bots:
            j = index[o]
            if o == b or not total_together[i, j]:
                continue
            column = boot_rate[:, i, j]
            column = column[~np.isnan(column)]
            lo_r, hi_r = np.percentile(column, [2.5, 97.5]) if column.size else (math.nan,) * 2
            st.above[o] = {
                "matches": float(total_together[i, j]),
                "above": float(total_above[i, j]),
                "rate": float(total_above[i, j] / total_together[i, j]),
                "low": float(lo_r),
                "high": float(hi_r),
            }
    ranked = sorted(table.values(), key=lambda s: (-s.rating, s.name))
    for r, st in enumerate(ranked, 1):
        st.rank = r
    return ranked


def to_json(standings: Sequence[BotStanding], versions: dict[int, dict[str, Any]]) -> list[dict]:
    """The ``arena standings --json`` list: one object per bot (CONTRACT section 5)."""
    names = {s.bot: s.name for s in standings}
    out = []
    for s in standings:
        v = versions.get(s.bot, {})
        out.append(
            {
                "name": s.name,
                "matches": s.matches,
                "wins": s.wins,
                "mean_place": None if s.mean_place is None else round(s.mean_place, 4),
                "faults": s.faults,
                "rating": round(s.rating, 1),
                "rating_low": None if math.isnan(s.rating_low) else round(s.rating_low, 1),
                "rating_high": None if math.isnan(s.rating_high) else round(s.rating_high, 1),
                "rank": s.rank,
                "version": v.get("version"),
                "sha256": v.get("sha256"),
                "bot_version_id": s.bot,
                "placed_above": {
                    names[o]: {
                        "matches": int(p["matches"]),
                        "rate": round(p["rate"], 4),
                        "low": None if math.isnan(p["low"]) else round(p["low"], 4),
                        "high": None if math.isnan(p["high"]) else round(p["high"], 4),
                    }
                    for o, p in s.above.items()
                },
            }
        )
    return out


def seat_results(rows: Sequence[dict[str, Any]]) -> list[SeatResult]:
    """SeatResults from ``Store.seat_results`` rows."""
    return [
        SeatResult(
            r["match_id"],
            f"{r['set_key']}/{r['round']}",
            r["bot_version_id"],
            r["place"],
            bool(r["faulted"]),
        )
        for r in rows
    ]
