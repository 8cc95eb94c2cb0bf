"""Every statistic of the arena, in one vocabulary: the standings, duplicate scores, the
sequential test, separation and the collusion reports.

The words, each defined once in :mod:`arena.stats.vocabulary`: the **level** of every interval
(:data:`LEVEL`), the :class:`Interval` every statistic reports, the **unit** (the independent
sample: a duplicate unit, one set of three bots and one round in its six seatings), and the
**rate** (a proportion of matches with its interval, :func:`rate_interval`).

The standings (re-exported here, as ``arena.stats.compute`` and so on):

- :mod:`arena.stats.outcomes`: finished matches as arrays; choices and pairs counted per
  duplicate unit.
- :mod:`arena.stats.plackett_luce`: the maximum-likelihood fit on counted choices, which bots
  are estimable, one-sided bounds for those that are not.
- :mod:`arena.stats.intervals`: cluster-robust variances of the ratings' contrasts, Student t.
- :mod:`arena.stats.standings`: :func:`compute`, the one function whose result the terminal,
  ``--json``, the database and the site all show.

The other reports: :mod:`arena.stats.duplicate` (duplicate scores, seat bias, cycles),
:mod:`arena.stats.betting` and :mod:`arena.stats.sequential` (the test of ``arena compare``),
:mod:`arena.stats.separation` (the rule of ``arena run --until-separated``),
:mod:`arena.stats.collusion` (clones and kingmaking). All are pure: they read no database and
start no process; their callers hand them the rows the store reads.

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
    PairRow,
    RatingRow,
    compute,
    from_rows,
    rate_text,
    rating_notes,
    rating_text,
    to_json,
    to_rows,
)
from arena.stats.vocabulary import LEVEL, MIN_UNITS, Interval, rate_interval, unit_key

__all__ = [
    "BASE",
    "LEVEL",
    "MIN_UNITS",
    "Interval",
    "rate_interval",
    "unit_key",
    "BOUND_NOTES",
    "ELO_SCALE",
    "METHOD",
    "BotStanding",
    "Outcomes",
    "Pair",
    "PairRow",
    "RatingRow",
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
