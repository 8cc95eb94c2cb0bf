"""The ratings' intervals from duplicate units: cluster-robust variances of contrasts, Student t.

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
from typing import TYPE_CHECKING

from arena.lazy import lazy_module
from arena.stats.vocabulary import LEVEL, MIN_DEFF, MIN_UNITS, Interval, t_quantile

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")


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
) -> Interval | None:
    """Estimate ± t·se; None when the variance is not available."""
    if variance is None or not (variance >= 0) or not math.isfinite(variance):
        return None
    half = t_quantile(df, level) * math.sqrt(variance)
    return Interval(estimate - half, estimate + half, level)
