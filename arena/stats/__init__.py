"""Standings: a Plackett-Luce fit over duplicate units, cluster-robust intervals, pairwise rates.

- :mod:`arena.stats.outcomes`: finished matches as arrays; choices and pairs counted per
  duplicate unit (a set of three bots and a round, played in its six seatings).
- :mod:`arena.stats.plackett_luce`: the maximum-likelihood fit on counted choices, which bots are
  estimable, one-sided bounds for those that are not.
- :mod:`arena.stats.intervals`: cluster-robust variances, Student t, Wilson.
- :mod:`arena.stats.standings`: :func:`compute`, the one function whose result the terminal,
  ``--json``, the database and the site all show.

What each number means, and how well the intervals cover (measured): docs/statistics.md.
"""

from __future__ import annotations

from arena.stats.outcomes import Outcomes, SeatResult, order_choices, top1_choices
from arena.stats.standings import (
    BASE,
    BOUND_NOTES,
    ELO_SCALE,
    METHOD,
    BotStanding,
    Pair,
    compute,
    from_rows,
    rate_text,
    rating_notes,
    rating_text,
    to_json,
    to_rows,
)

__all__ = [
    "BASE",
    "BOUND_NOTES",
    "ELO_SCALE",
    "METHOD",
    "BotStanding",
    "Outcomes",
    "Pair",
    "SeatResult",
    "compute",
    "from_rows",
    "rate_text",
    "rating_notes",
    "rating_text",
    "to_json",
    "to_rows",
    "order_choices",
    "top1_choices",
]
