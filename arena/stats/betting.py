"""The test by betting behind ``arena compare``: two gamblers, their bets and their interval.

Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting" (JRSS B
2024): before each duplicate set, one gambler stakes a share of its capital on "the set
scores above ``m``", the other on "below ``m``", for every rate ``m`` at once. Their capitals
are the evidence of :class:`arena.stats.sequential.SequentialTest` (which decides) and the ends of
the interval it shows, one construction for both. Set scores are in [0, 1]; nothing else
about them is assumed. How fast any such test can decide, and this one does: docs/evaluation.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from arena.lazy import lazy_module
from arena.stats.vocabulary import Interval

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")

BET_CAP: Final = 0.9
"""The most a gambler can lose on one set, as a share of its capital (see :func:`capped`)."""

PRIOR_SETS: Final = 1.0
"""The bets start as if one set had been seen, half of it scoring 0 and half 1 (mean 1/2 and
variance 1/4, the largest a score in [0, 1] can have): no bet is sure of itself before the
sets say so."""

NEWTON_STEPS: Final = 40
"""Steps of the safeguarded Newton iteration that finds a bet (it converges in far fewer)."""


def kelly(weights: np.ndarray, d: np.ndarray, top: np.ndarray | float) -> np.ndarray:
    """The share ``lam`` in ``[0, top]`` maximising ``sum w log(1 + lam d)`` along the last
    axis, row by row (Kelly's bet on the empirical distribution ``weights`` of outcomes ``d``).

    The sum is concave in ``lam``; its slope at 0 is ``sum w d``: not positive, no bet; still
    positive at ``top``, bet ``top``; else the root of the slope, by Newton's method kept
    inside a shrinking bracket (bisection when a step would leave it). Every ``1 + top d``
    must be positive."""
    top = np.broadcast_to(np.asarray(top, dtype=float), d.shape[:-1])

    def slope(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r = d / (1.0 + lam[..., None] * d)
        return (weights * r).sum(axis=-1), -(weights * r * r).sum(axis=-1)

    lo, hi = np.zeros(top.shape), top.copy()
    at_top, _ = slope(hi)
    lam = 0.5 * hi
    for _ in range(NEWTON_STEPS):
        g, h = slope(lam)
        lo = np.where(g > 0, lam, lo)
        hi = np.where(g > 0, hi, lam)
        with np.errstate(divide="ignore", invalid="ignore"):
            new = lam - g / h
        new = np.where((new > lo) & (new < hi), new, 0.5 * (lo + hi))
        done = np.abs(new - lam) <= 1e-9 * (1.0 + lam)
        lam = new
        if done.all():
            break
    first = (weights * d).sum(axis=-1)
    result: np.ndarray = np.where(first <= 0, 0.0, np.where(at_top >= 0, top, lam))
    return result


def bets(
    values: np.ndarray,
    counts: np.ndarray,
    p0: float,
    p1: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The two bets on the next set, from the sets before it only ("predictable"), before the
    cap of :func:`capped`: ``counts[..., i]`` is how often the score ``values[i]`` has been
    seen (any leading axes are independent tests, computed at once).

    Against ``p <= p0``: Kelly's share on the sets seen so far (plus :data:`PRIOR_SETS`),
    shifted up so that their mean is at least ``p1`` (betting at least as if the rate were
    ``p1``): the share that would have grown the capital fastest on them, GRAPA in
    Waudby-Smith and Ramdas (2024). Against ``p >= p1``, its mirror (the sets shifted down to
    a mean of at most ``p0``). Unlike the approximation ``r / (variance + r^2)`` (their aGRAPA,
    this test's bet before), it sees the shape of the scores, not only their mean and
    variance: on a pair that usually wins narrowly and now and then loses a whole set, that
    approximation bets 1.8 where the best share is 1.2 (``bench/compare.py``, ``skewed``)."""
    v = np.asarray(values, dtype=float)
    n = np.asarray(counts, dtype=float)
    lead = n.shape[:-1]
    w = np.concatenate([n, np.full((*lead, 2), 0.5 * PRIOR_SETS)], axis=-1)
    ends = (np.zeros((*lead, 1)), np.ones((*lead, 1)))
    x = np.concatenate([np.broadcast_to(v, n.shape), *ends], axis=-1)
    mean = (w * x).sum(axis=-1) / w.sum(axis=-1)
    rise = np.maximum(p1 - mean, 0.0)[..., None]
    fall = np.maximum(mean - p0, 0.0)[..., None]
    up = kelly(w, x + rise - p0, BET_CAP / p0)
    down = kelly(w, p1 - (x - fall), BET_CAP / (1.0 - p1))
    return up, down


def capped(
    up: np.ndarray | float, down: np.ndarray | float, m: np.ndarray | float
) -> tuple[np.ndarray, np.ndarray]:
    """The bets at the rate ``m``: ``up`` at most ``BET_CAP / m``, ``down`` at most
    ``BET_CAP / (1 - m)``. Either way a set's factor (``1 + up (x - m)``, ``1 - down (x - m)``)
    is monotone in ``m``: the gambler on "above" gains less the higher ``m``, the gambler on
    "below" more, which makes the rejected rates two rays and the interval one piece."""
    with np.errstate(divide="ignore"):
        m = np.asarray(m, dtype=float)
        return np.minimum(up, BET_CAP / m), np.minimum(down, BET_CAP / (1.0 - m))


@dataclass(eq=False)
class Gamblers:
    """The evidence of a comparison and its interval: one construction for both.

    Before each set, one gambler bets a share ``up`` of its capital that the set's score is
    above ``m``, the other a share ``down`` that it is below ``m``, for every rate ``m`` at
    once with the shares of :func:`bets` (Kelly's share on the sets so far, tuned to ``p0``
    and ``p1``), capped at ``m`` by :func:`capped`. A set with score ``x`` multiplies the
    first capital by ``1 + up (x - m)`` and the second by ``1 - down (x - m)``. If the true
    rate is at most ``m``, no bet on "above ``m``" is favourable, so the first capital is a
    nonnegative supermartingale that starts at 1, and by Ville's inequality it *ever* reaches
    ``1 / alpha`` with probability at most ``alpha``,
    whenever one looks and whatever the distribution of set scores: an anytime-valid test
    (Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting", JRSS
    B 2024; Ramdas et al., "Game-theoretic statistics and safe anytime-valid inference" 2023).

    The first capital falls as ``m`` rises, the second rises: the rates whose first capital
    reached ``1 / alpha`` are exactly those below :meth:`interval`'s lower end, and those
    whose second reached ``1 / beta`` those above its upper end. The test accepts H1 when the
    first capital at ``p0`` reaches ``1 / alpha``, which *is* the interval's lower end
    passing ``p0``; H0 when the second at ``p1`` reaches ``1 / beta``, the upper end passing
    ``p1``. Verdict and interval cannot disagree.
    """

    p0: float
    p1: float
    alpha: float = 0.05
    beta: float = 0.05
    sets: int = 0
    seen: dict[float, int] = field(default_factory=dict)
    """How often each score has been seen (the bets' data)."""
    scores: list[float] = field(default_factory=list)
    ups: list[float] = field(default_factory=list)
    downs: list[float] = field(default_factory=list)
    evidence: tuple[float, float] = (0.0, 0.0)
    """The log capital of each gambler: against ``p <= p0`` at ``p0``, against ``p >= p1``
    at ``p1``."""

    def add(self, score: float) -> None:
        """The next set's score (0..1)."""
        values = np.fromiter(self.seen, dtype=float, count=len(self.seen))
        counts = np.fromiter(self.seen.values(), dtype=float, count=len(self.seen))
        up, down = bets(values, counts, self.p0, self.p1)
        self.ups.append(float(up))
        self.downs.append(float(down))
        self.scores.append(score)
        e1, e0 = self.evidence
        at_p0, _ = capped(up, down, self.p0)
        _, at_p1 = capped(up, down, self.p1)
        self.evidence = (
            e1 + math.log1p(float(at_p0) * (score - self.p0)),
            e0 + math.log1p(-float(at_p1) * (score - self.p1)),
        )
        self.sets += 1
        self.seen[score] = self.seen.get(score, 0) + 1

    def capital(self, m: float) -> tuple[float, float]:
        """The log capital of both gamblers at the rate ``m``."""
        x = np.asarray(self.scores)
        up, down = capped(np.asarray(self.ups), np.asarray(self.downs), m)
        with np.errstate(divide="ignore"):
            return (
                float(np.log1p(up * (x - m)).sum()),
                float(np.log1p(-down * (x - m)).sum()),
            )

    def interval(self) -> Interval:
        """The rates not rejected so far: above every rate whose "above" gambler reached
        ``1 / alpha``, below every rate whose "below" gambler reached ``1 / beta``. Each end
        holds at its own level (``1 - alpha``, ``1 - beta``) at every set count at once; both
        together at least ``1 - alpha - beta``, the interval's ``level``. The whole range
        before the first set."""
        high_bar, low_bar = -math.log(self.alpha), -math.log(self.beta)

        def lower(m: float) -> float:
            return self.capital(m)[0] - high_bar

        def upper(m: float) -> float:
            return self.capital(m)[1] - low_bar

        from scipy import optimize  # type: ignore[import-untyped]  # scipy only when computed: a stored table reads without it

        edge = 1e-12
        low = 0.0
        if lower(0.0) >= 0:
            low = 1.0 if lower(1.0 - edge) >= 0 else float(optimize.brentq(lower, 0.0, 1 - edge))
        high = 1.0
        if upper(1.0) >= 0:
            high = 0.0 if upper(edge) >= 0 else float(optimize.brentq(upper, edge, 1.0))
        level = 1.0 - (self.alpha + self.beta)
        if low <= high:
            return Interval(low, high, level)
        # Every rate rejected (at most alpha + beta of the time): the gambler nearer its
        # bound, who decides the test (:func:`signed`), says where.
        e1, e0 = (max(0.0, e) for e in self.evidence)
        at = low if e1 / high_bar >= e0 / low_bar else high
        return Interval(at, at, level)
