"""95 % intervals from duplicate units: cluster-robust variances, Student t, Wilson.

Every interval treats a *duplicate unit* (a set of three bots and a round: six seatings on the
same deals) as the independent sample. The six matches of a unit are correlated, positively
(the deal suits one bot's style in every seating) or negatively (the deal's luck follows the
seat, and every bot sits in every seat: the point of duplicate play). A cluster-robust
("sandwich") variance sums the per-unit contributions, so it measures whichever way the
correlation goes instead of assuming independent matches. With few units the sandwich is
biased low and its estimate is itself uncertain: the G/(G-1) factor and Student-t quantiles
with G-1 degrees of freedom correct for that (Cameron & Miller 2015, "A practitioner's guide
to cluster-robust inference"; MacKinnon, Nielsen & Webb 2023). The method was chosen, and is
checked, by measuring coverage on simulated tournaments (``bench/coverage.py``,
docs/statistics.md).
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np
from scipy import special  # type: ignore[import-untyped]

LEVEL: Final = 0.95
"""Nominal coverage of every interval shown."""

MIN_UNITS: Final = 2
"""Fewest duplicate units an interval needs (one unit says nothing about its own spread)."""


def t_quantile(df: float, level: float = LEVEL) -> float:
    """The two-sided Student-t critical value (``inf`` for no degrees of freedom)."""
    if df < 1:
        return math.inf
    return float(special.stdtrit(df, 0.5 + level / 2))


def z_quantile(level: float = LEVEL) -> float:
    """The two-sided normal critical value."""
    return float(special.ndtri(0.5 + level / 2))


def sandwich(scores: np.ndarray, hessian: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Cluster-robust and model-based covariances of the log-strengths, and the units used.

    ``scores`` ``(units, k)`` are the per-unit gradients at the maximum, ``hessian`` the
    log-likelihood's ``(k, k)`` Hessian there (singular along "all up by one", so a
    generalised inverse is used: every quantity reported is a contrast, which it leaves
    exact). Units that contribute nothing (all their matches tied) are not counted.
    """
    active = np.abs(scores).sum(axis=1) > 0
    g = int(active.sum())
    k = hessian.shape[0]
    info_inv = np.linalg.pinv(-hessian - np.ones((k, k)) / k) - np.ones((k, k)) / k
    meat = scores[active].T @ scores[active]
    robust = info_inv @ meat @ info_inv * (g / (g - 1) if g > 1 else math.nan)
    return robust, info_inv, g


def contrast_interval(
    estimate: float, variance: float, df: float, level: float = LEVEL
) -> tuple[float, float]:
    """Estimate ± t·se; NaNs when the variance is not available."""
    if not (variance >= 0) or not math.isfinite(variance):
        return math.nan, math.nan
    half = t_quantile(df, level) * math.sqrt(variance)
    return estimate - half, estimate + half


def rate_variance(above: np.ndarray, together: np.ndarray) -> tuple[float, float, int]:
    """The placed-above rate over units and its cluster-robust variance.

    ``above[g]`` / ``together[g]``: per unit, the times A placed above B (ties one half) and
    the times they met. Returns ``(rate, variance, units)``.
    """
    total = float(together.sum())
    rate = float(above.sum()) / total
    g = len(together)
    if g < 2:
        return rate, math.nan, g
    resid = above - rate * together
    return rate, g / (g - 1) * float(np.dot(resid, resid)) / total**2, g


def wilson(rate: float, n_eff: float, z: float) -> tuple[float, float]:
    """Wilson's score interval for a rate observed over ``n_eff`` effective trials.

    Never of zero width for a finite ``n_eff``, and inside [0, 1], also at 0 % and 100 %.
    """
    denom = 1 + z * z / n_eff
    centre = (rate + z * z / (2 * n_eff)) / denom
    half = z / denom * math.sqrt(rate * (1 - rate) / n_eff + z * z / (4 * n_eff * n_eff))
    return max(0.0, centre - half), min(1.0, centre + half)


def rate_interval(
    rate: float,
    variance: float,
    units: int,
    matches: float,
    pooled_deff: float,
    level: float = LEVEL,
) -> tuple[float, float, float]:
    """Wilson interval on the *effective* number of matches; returns ``(low, high, n_eff)``.

    The effective number is what makes a binomial as uncertain as the units say:
    ``rate·(1-rate) / variance`` (Kish's design effect; Korn & Graubard 1998 use it the same
    way for clustered proportions), shrunk by ``(z/t)²`` for the few-units uncertainty of the
    variance itself. At 0 % or 100 %, or when every unit scored the same (all ties), the data
    cannot say how correlated the matches are: the tournament's pooled design effect stands
    in, and the interval still has its binomial width.
    """
    if units < MIN_UNITS:
        return math.nan, math.nan, math.nan
    binomial = rate * (1 - rate)
    if variance > 0 and binomial > 0:
        n_eff = binomial / variance
    else:
        n_eff = matches / pooled_deff
    n_eff = min(n_eff, matches / MIN_DEFF)
    z = z_quantile(level)
    n_eff *= (z / t_quantile(units - 1, level)) ** 2
    low, high = wilson(rate, n_eff, z)
    return low, high, n_eff


MIN_DEFF: Final = 1 / 6
"""Lower limit of a design effect: a unit of six matches never counts as more than 36
independent ones. Duplicate play does cancel luck (a design effect below 1), but an estimate of
zero spread from a handful of units is chance, not certainty."""


def design_effect(robust: float, model: float) -> float:
    """Robust over model-based variance: how much the duplicate structure inflates (> 1) or
    shrinks (< 1) the variance of an estimate compared with independent matches."""
    if not (model > 0) or not math.isfinite(robust):
        return math.nan
    return max(MIN_DEFF, robust / model)
