"""The words every statistic of the arena uses, each defined once: level, interval, unit, rate.

- **level**: :data:`LEVEL`, the confidence of every interval shown (95 %). A one-sided bound
  holds at the same level; a flag over several comparisons widens it (Bonferroni) and says so.
- **interval**: :class:`Interval`, the values a statistic does not rule out at its ``level``:
  a rating's, a duplicate score's, a placed-above rate's, the sequential test's, a kingmaking
  rate's.
- **unit**: the independent sample of a statistic. Matches that share their cards are not
  independent: a *duplicate unit* is one set of three bots and one round, played in its six
  seatings on the same deals (:func:`unit_key` names it ``"set_key/round"``; ``arena compare``
  calls each of its units a *set*). Every count of them is called ``units``; an interval
  needs at least :data:`MIN_UNITS`.
- **rate**: a proportion of matches (a shared place counts one half) with its interval over
  units, :func:`rate_interval`: the placed-above table of the standings, the stopping rule of
  ``--until-separated`` and the cycles of the duplicate reports all read it.

What each figure means and how well the intervals cover (measured): docs/statistics.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from arena.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")


LEVEL: Final = 0.95
"""The confidence level of every interval shown."""

MIN_UNITS: Final = 2
"""Fewest units an interval needs (one unit says nothing about its own spread)."""

MIN_DEFF: Final = 1 / 36
"""Lower limit of a design effect (robust over independent-match variance). Duplicate play
cancels luck, so design effects well below 1 are real (measured: 0.1 when the deal decides
nine matches in ten); but zero spread over a handful of units is chance, not certainty: a
unit of six matches never counts as more than 216 independent ones."""


def unit_key(set_key: str, round_: int) -> str:
    """The name of a duplicate unit: its set of three bots and its round, ``"1,2,5/0"``."""
    return f"{set_key}/{round_}"


def unit_round(key: str) -> int:
    """The round of a duplicate unit named by :func:`unit_key`."""
    return int(key.rsplit("/", 1)[1])


@dataclass(frozen=True)
class Interval:
    """The values a statistic does not rule out: ``low`` to ``high`` at ``level``."""

    low: float
    high: float
    level: float = LEVEL

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError(f"an interval's low end {self.low} is above its high end {self.high}")

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def contains(self, x: float) -> bool:
        """Whether ``x`` is not ruled out."""
        return self.low <= x <= self.high

    def above(self, x: float) -> bool:
        """Whether the whole interval is above ``x`` (``x`` is ruled out from below)."""
        return self.low > x

    def below(self, x: float) -> bool:
        """Whether the whole interval is below ``x``."""
        return self.high < x

    def excludes(self, x: float) -> bool:
        """Whether ``x`` is ruled out, either way."""
        return self.above(x) or self.below(x)

    def map(self, f: Callable[[float], float]) -> Interval:
        """The interval of ``f`` of the statistic, for an increasing ``f`` (a scale)."""
        return Interval(f(self.low), f(self.high), self.level)

    def complement(self) -> Interval:
        """The interval of ``1 - rate``: the same pair seen from the other side."""
        return Interval(1.0 - self.high, 1.0 - self.low, self.level)

    def rounded(self, digits: int) -> list[float]:
        """``[low, high]`` rounded, as the ``--json`` documents give it."""
        return [round(self.low, digits), round(self.high, digits)]


def t_quantile(df: float, level: float = LEVEL) -> float:
    """The two-sided Student-t critical value (``inf`` for no degrees of freedom)."""
    if df < 1:
        return math.inf
    from scipy import special  # type: ignore[import-untyped]  # scipy only when computed: a stored table reads without it

    return float(special.stdtrit(df, 0.5 + level / 2))


def z_quantile(level: float = LEVEL) -> float:
    """The two-sided normal critical value."""
    from scipy import special  # scipy only when computed: a stored table reads without it

    return float(special.ndtri(0.5 + level / 2))


# --- rates ------------------------------------------------------------------------------------


def rate_variance(above: np.ndarray, together: np.ndarray) -> tuple[float, float | None, int]:
    """A rate over units and its cluster-robust variance.

    ``above[g]`` / ``together[g]``: per unit, the times it happened (a shared place one half)
    and the matches it could. Returns ``(rate, variance, units)``; the variance is None with
    fewer than two units.
    """
    total = float(together.sum())
    rate = float(above.sum()) / total
    g = len(together)
    if g < MIN_UNITS:
        return rate, None, g
    resid = above - rate * together
    return rate, g / (g - 1) * float(np.dot(resid, resid)) / total**2, g


def wilson(rate: float, n_eff: float, z: float) -> tuple[float, float]:
    """Wilson's score interval for a rate observed over ``n_eff`` effective trials.

    Never of zero width for a finite ``n_eff``, and inside [0, 1], also at 0 % and 100 %.
    """
    denom = 1 + z * z / n_eff
    centre = (rate + z * z / (2 * n_eff)) / denom
    half = z / denom * math.sqrt(rate * (1 - rate) / n_eff + z * z / (4 * n_eff * n_eff))
    # The bounds contain the rate exactly, also at 0 and 1 (where rounding could miss it).
    return max(0.0, min(rate, centre - half)), min(1.0, max(rate, centre + half))


def effective_matches(
    rate: float,
    variance: float | None,
    units: int,
    matches: float,
    pooled_deff: float,
    level: float = LEVEL,
) -> float:
    """The number of independent matches that would make a binomial rate as uncertain as the
    units say: ``rate·(1-rate) / variance`` (Kish's design effect; Korn & Graubard 1998 use
    it the same way for clustered proportions), shrunk by ``(z/t)²`` for the few-units
    uncertainty of the variance itself. At 0 % or 100 %, or when every unit scored the same
    (all ties), the data cannot say how correlated the matches are: ``pooled_deff`` (the
    design effect of the other rates of the same table) stands in."""
    binomial = rate * (1 - rate)
    if variance is not None and variance > 0 and binomial > 0:
        n_eff = binomial / variance
    else:
        n_eff = matches / pooled_deff
    n_eff = min(n_eff, matches / MIN_DEFF)
    return n_eff * (z_quantile(level) / t_quantile(units - 1, level)) ** 2


def rate_interval(
    rate: float,
    variance: float | None,
    units: int,
    matches: float,
    pooled_deff: float,
    level: float = LEVEL,
) -> Interval | None:
    """The interval of a rate over units: Wilson's on the :func:`effective_matches`; None
    with fewer than :data:`MIN_UNITS` units. ``variance`` is :func:`rate_variance`'s.

    The one rate interval of the arena: it takes units of any size, is never of zero width
    and stays inside [0, 1] at 0 % and 100 %; docs/statistics.md says why it was chosen and
    what it covers.
    """
    if units < MIN_UNITS:
        return None
    n_eff = effective_matches(rate, variance, units, matches, pooled_deff, level)
    low, high = wilson(rate, n_eff, z_quantile(level))
    return Interval(low, high, level)
