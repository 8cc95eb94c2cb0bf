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
from dataclasses import dataclass
from typing import Final

import numpy as np

LEVEL: Final = 0.95
"""Nominal coverage of every interval shown."""

MIN_UNITS: Final = 2
"""Fewest duplicate units an interval needs (one unit says nothing about its own spread)."""

MIN_DEFF: Final = 1 / 36
"""Lower limit of a design effect (robust over independent-match variance). Duplicate play
cancels luck, so design effects well below 1 are real (measured: 0.1 when the deal decides
nine matches in ten); but zero spread over a handful of units is chance, not certainty: a
unit of six matches never counts as more than 216 independent ones."""


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


def information_inverse(hessian: np.ndarray) -> np.ndarray:
    """The model-based covariance of the log-strengths: a generalised inverse of the
    information ``-hessian``, which is singular along "all up by one" (every quantity
    reported is a contrast, which that leaves exact)."""
    k = hessian.shape[0]
    flat = np.ones((k, k)) / k
    return np.asarray(np.linalg.inv(-hessian + flat) - flat)


@dataclass(frozen=True)
class Contrast:
    """The spread of one contrast of log-strengths (a bot against the centre)."""

    robust: float | None  # cluster-robust variance (floored, see MIN_DEFF); None: too few units
    model: float  # model-based variance (independent matches)
    df: float  # degrees of freedom of the robust variance

    @property
    def design_effect(self) -> float | None:
        """Robust over model-based variance: how much the duplicate structure inflates
        (> 1) or shrinks (< 1) the variance compared with independent matches (None when
        either is unknown)."""
        if self.robust is None or not self.model > 0:
            return None
        return self.robust / self.model


def contrast(
    c: np.ndarray,
    scores: np.ndarray,
    info_inv: np.ndarray,
    own: int | None = None,
    informs: np.ndarray | None = None,
) -> Contrast:
    """Cluster-robust variance of ``c @ theta`` from the per-unit scores ``(units, k)``.

    ``informs`` marks the units that hold a choice among the fitted bots; the others carry
    no information and are not counted (without it: the units whose score is not zero). A
    unit whose bots shared every place does count: its score is zero because the fit shows
    those bots as equal as the unit did. The variance is the sandwich with the G/(G-1)
    factor. Its degrees of freedom are those of the units that inform the contrast: ``own``
    (the units with a result of the bot it is about) minus one, when given, else G - 1. A
    bot of a
    large field shares few units with the rest: the sandwich's uncertainty is that of its own
    units, and counting every unit of the tournament made the intervals of small tournaments
    with many bots too narrow (0.924 for 5 bots x 1 round, against 0.95 with the bot's own
    units; docs/statistics.md). For an average of units this is exactly the Student-t
    interval. (Measured
    against Satterthwaite's degrees of freedom from the units' fourth moments, which widen
    the interval when a few units carry most of the information: those over-covered,
    0.968 against 0.946 when the deal decides nine matches in ten; docs/statistics.md.)
    """
    u = scores @ (info_inv @ c)
    u = u[informs] if informs is not None else u[u != 0]
    g = len(u)
    model = float(c @ info_inv @ c)
    if g < MIN_UNITS:
        return Contrast(None, model, 0.0)
    s2 = float(np.dot(u, u))
    robust = max(g / (g - 1) * s2, MIN_DEFF * model)
    informing = g if own is None else max(1, min(g, own))
    return Contrast(robust, model, informing - 1.0)


def contrast_interval(
    estimate: float, variance: float | None, df: float, level: float = LEVEL
) -> tuple[float, float] | None:
    """Estimate ± t·se; None when the variance is not available."""
    if variance is None or not (variance >= 0) or not math.isfinite(variance):
        return None
    half = t_quantile(df, level) * math.sqrt(variance)
    return estimate - half, estimate + half


def rate_variance(above: np.ndarray, together: np.ndarray) -> tuple[float, float | None, int]:
    """The placed-above rate over units and its cluster-robust variance.

    ``above[g]`` / ``together[g]``: per unit, the times A placed above B (ties one half) and
    the times they met. Returns ``(rate, variance, units)``; the variance is None with fewer
    than two units.
    """
    total = float(together.sum())
    rate = float(above.sum()) / total
    g = len(together)
    if g < 2:
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


def rate_interval(
    rate: float,
    variance: float | None,
    units: int,
    matches: float,
    pooled_deff: float,
    level: float = LEVEL,
) -> tuple[float, float, float] | None:
    """Wilson interval on the *effective* number of matches; returns ``(low, high, n_eff)``,
    or None with fewer than :data:`MIN_UNITS` units.

    The effective number is what makes a binomial as uncertain as the units say:
    ``rate·(1-rate) / variance`` (Kish's design effect; Korn & Graubard 1998 use it the same
    way for clustered proportions), shrunk by ``(z/t)²`` for the few-units uncertainty of the
    variance itself. At 0 % or 100 %, or when every unit scored the same (all ties), the data
    cannot say how correlated the matches are: the tournament's pooled design effect stands
    in, and the interval still has its binomial width.
    """
    if units < MIN_UNITS:
        return None
    binomial = rate * (1 - rate)
    if variance is not None and variance > 0 and binomial > 0:
        n_eff = binomial / variance
    else:
        n_eff = matches / pooled_deff
    n_eff = min(n_eff, matches / MIN_DEFF)
    z = z_quantile(level)
    n_eff *= (z / t_quantile(units - 1, level)) ** 2
    low, high = wilson(rate, n_eff, z)
    return low, high, n_eff
