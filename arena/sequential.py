"""Is A stronger than B? A sequential test on duplicate sets (the core of ``arena compare``).

The sample is one **duplicate set**: a fresh deal seed played in all six seatings of A, B and
a third bot. Its score is A's placed-above rate over B in the set (a shared place counts one
half), so it is one of the 13 values 0, 1/12, ..., 1; it is kept as an integer count of
half-points, 0 to 12. Sets are independent (each has its own seed); the matches inside one are
not (they share the cards), which is why the set, not the match, is the unit.

The test is the generalized sequential probability ratio test (GSPRT) that fishtest runs on
chess game pairs, with our 13 set outcomes in place of fishtest's 5 pair outcomes (its
"pentanomial" model): nothing is assumed about the shape of the distribution of set scores,
only about its mean ``p``, the long-run rate. For a hypothesised mean ``s`` the likelihood of
the sets seen so far is maximised over every distribution on the 13 outcomes whose mean is
``s``; the solution is ``q_i = f_i / (1 + x (a_i - s))`` with ``f_i`` the observed frequencies,
``a_i`` the outcomes and ``x`` a Lagrange multiplier found by a safeguarded Newton iteration
(M. Van den Bergh, "Maximum likelihood estimation for a multinomial distribution with a given
expectation value"). The log-likelihood lost by forcing the mean to ``s`` is the *profile*
``l(s) = sum_i n_i log(1 + x (a_i - s))``, and

    LLR = l(p0) - l(p1)

tests H0: p <= p0 against H1: p >= p1. Wald's bounds ``log(beta / (1 - alpha))`` and
``log((1 - beta) / alpha)`` stop it; ``max_sets`` ends it as "inconclusive". An outcome never
seen gets a count of 0.001 (fishtest's regularisation), so every hypothesis in (0, 1) stays
reachable and one lucky first set cannot make the likelihood of a mean infinite.

The interval ``arena compare`` shows (:attr:`Status.ci`) is a *confidence sequence*
(:class:`ConfidenceSequence`): it contains the true rate at every set count at once with
probability 95 %, so it stays honest at the stopping time, which the test chooses when the
data look extreme, and on every live line a user may stop at. ``bench/compare.py`` measures
its coverage at the stop next to the fixed-sample interval's.

The fixed-sample 95 % interval for ``p`` (:func:`rate_interval`) is the set of means the
same likelihood does not reject:
``{s : 2 l(s) <= F(1, n - 1) quantile}`` (Owen's empirical-likelihood interval, with the F
calibration he discusses for small samples; ``bench/compare.py`` measured it against the plain
chi-square one). Thanks to the regularisation it
never has zero width on a finite sample. Read at the moment a sequential test stops, it covers
only 92-94 % of the time in some designs (``bench/compare.py`` measures how much), which is
why the test shows the confidence sequence instead.

Matches finish out of order when workers run in parallel; deciding on whatever happens to be
finished would bias the test towards short (often lopsided) matches. :class:`SetQueue` holds
match outcomes back until their set is complete and releases set scores strictly in set order,
so the test sees exactly the sequence a serial run would.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import numpy as np
from scipy import optimize, stats  # type: ignore[import-untyped]

from arena.errors import ArenaError
from arena.scheduler import SEATINGS

HALF_POINTS: Final = 2 * len(SEATINGS)
"""Half-points in a duplicate set: 2 per seating (placed above B), 1 for a shared place."""

SET_SCORES: Final = np.arange(HALF_POINTS + 1) / HALF_POINTS
"""The possible set scores 0, 1/12, ..., 1, indexed by half-points."""

REGULARISATION: Final = 1e-3
"""Count given to an outcome not seen yet (fishtest's value)."""

LEVEL: Final = 0.95
"""Confidence level of the interval for the rate."""

Decision = Literal["H1", "H0", "inconclusive"]


def half_points(place_a: int, place_b: int) -> int:
    """A's half-points over B in one match: 2 when A placed above B, 1 for a shared place."""
    return 2 if place_a < place_b else 1 if place_a == place_b else 0


# --- the likelihood ---------------------------------------------------------------------------


def _regularised(counts: np.ndarray) -> np.ndarray:
    return np.where(counts > 0, counts, REGULARISATION).astype(float)


def _multiplier(weights: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The Lagrange multiplier ``x`` maximising ``g(x) = sum w log(1 + x d)``, row by row.

    ``g`` is concave on the open interval where every ``1 + x d`` is positive, and its
    derivative, the secular function ``sum w d / (1 + x d)``, decreases there from +inf to
    -inf: one root. Every row of ``d`` must have both signs.
    """
    top, bottom = d.max(axis=-1), d.min(axis=-1)
    pole_lo, pole_hi = -1.0 / top, -1.0 / bottom
    lo, hi = pole_lo, pole_hi
    x = np.zeros(lo.shape)
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero derivative: bisect instead
        for _ in range(100):
            r = d / (1.0 + x[..., None] * d)
            slope = (weights * r).sum(axis=-1)
            bend = (weights * r * r).sum(axis=-1)
            lo = np.where(slope > 0, x, lo)
            hi = np.where(slope > 0, hi, x)
            # Newton on slope * (1 + x top) * (1 + x bottom): the same root, without the poles
            # at the ends of the interval, near which Newton on the slope itself crawls (the
            # root sits next to a pole whenever the mean must move onto an outcome barely seen).
            a, b = 1.0 + x * top, 1.0 + x * bottom
            new = x - slope * a * b / (slope * (top * b + bottom * a) - bend * a * b)
            inside = (new >= lo) & (new <= hi) & (new > pole_lo) & (new < pole_hi)
            new = np.where(inside, new, 0.5 * (lo + hi))  # else bisect the bracket
            done = np.abs(new - x) <= 1e-13 * (1.0 + np.abs(x))
            x = new
            if done.all():
                break
    return x


def profile(
    counts: Sequence[float] | np.ndarray, s: float, values: np.ndarray = SET_SCORES
) -> np.ndarray:
    """``l(s)``: log-likelihood lost by forcing the mean of the outcome distribution to ``s``.

    ``counts[..., i]`` is how often outcome ``values[i]`` was seen (any leading axes are
    independent samples, computed at once); ``s`` must lie strictly between the smallest and
    the largest value. ``l`` is 0 at the sample mean and grows on either side.
    """
    if not values[0] < s < values[-1]:
        raise ValueError(f"the mean must lie strictly between {values[0]} and {values[-1]}")
    n = _regularised(np.asarray(counts, dtype=float))
    d = np.broadcast_to(np.asarray(values, dtype=float) - s, n.shape)
    x = _multiplier(n, d)
    result: np.ndarray = (n * np.log1p(x[..., None] * d)).sum(axis=-1)
    return result


def constrained_mle(
    counts: Sequence[float], s: float, values: np.ndarray = SET_SCORES
) -> np.ndarray:
    """The most likely distribution over ``values`` with mean ``s``, given ``counts``."""
    n = _regularised(np.asarray(counts, dtype=float))
    d = np.asarray(values, dtype=float) - s
    x = _multiplier(n, d)
    q: np.ndarray = (n / n.sum()) / (1.0 + x * d)
    return q


def llr(
    counts: Sequence[float] | np.ndarray,
    p0: float,
    p1: float,
    values: np.ndarray = SET_SCORES,
) -> np.ndarray:
    """The generalized log-likelihood ratio of mean ``p1`` against mean ``p0``."""
    result: np.ndarray = profile(counts, p0, values) - profile(counts, p1, values)
    return result


def threshold(sets: int, level: float = LEVEL) -> float:
    """The bound on ``2 l(s)`` for a ``level`` interval from ``sets`` samples.

    The F(1, n - 1) quantile (the square of Student's t) rather than the chi-square one: the
    empirical likelihood shares the t statistic's small-sample behaviour, and the F
    calibration gives intervals that cover closer to ``level`` when there are few sets.
    """
    if sets < 2:
        return math.inf
    return float(stats.f.ppf(level, 1, sets - 1))


def rate_interval(
    counts: Sequence[float] | np.ndarray, level: float = LEVEL, values: np.ndarray = SET_SCORES
) -> tuple[float, float]:
    """The ``level`` empirical-likelihood interval for the mean (see the module docstring).

    With fewer than two samples nothing bounds the mean: the whole range is returned.
    """
    c = np.asarray(counts, dtype=float)
    lowest, highest = float(values[0]), float(values[-1])
    q = threshold(int(round(c.sum())), level)
    if math.isinf(q):
        return lowest, highest
    n = _regularised(c)
    centre = float((n * values).sum() / n.sum())

    def excess(s: float) -> float:
        return 2.0 * float(profile(c, s, values)) - q

    # The profile is 0 at the centre and grows without bound towards either end of the range.
    edge = 1e-9 * (highest - lowest)
    first, last = lowest + edge, highest - edge
    low = lowest if excess(first) <= 0 else float(optimize.brentq(excess, first, centre))
    high = highest if excess(last) <= 0 else float(optimize.brentq(excess, centre, last))
    return low, high


# --- the interval at any stopping time --------------------------------------------------------

GRID: Final = np.linspace(0.0, 1.0, 2001)
"""The rates a :class:`ConfidenceSequence` tests (steps of 1/2000)."""

BET_CAP: Final = 0.5
"""The largest share of the capital bet on one set (``c`` in Waudby-Smith and Ramdas)."""


def wager(sets: np.ndarray | int, spread: np.ndarray | float, level: float = LEVEL) -> np.ndarray:
    """The bet on the next set, from the sets before it only ("predictable plug-in").

    ``spread`` is the sum of the squared distances of the ``sets`` scores seen from the
    running mean (each from the mean up to and including it), a variance estimate that
    starts at 1/4, the largest a score in [0, 1] can have. The bet shrinks like
    ``sqrt(log(2 / (1 - level)) / (variance t log t))``: bold while little is known, then
    small enough that the interval stays near the fixed-sample width times a slowly growing
    factor.
    """
    t = np.asarray(sets, dtype=float) + 1.0
    variance = (0.25 + np.asarray(spread, dtype=float)) / t
    result: np.ndarray = np.sqrt(2.0 * math.log(2.0 / (1.0 - level)) / (variance * t * np.log1p(t)))
    return result


def stakes(means: np.ndarray, bet: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bets on "above ``m``" and "below ``m``", capped so no set can ruin either."""
    with np.errstate(divide="ignore"):
        up = np.minimum(bet, BET_CAP / means)
        down = np.minimum(bet, BET_CAP / (1.0 - means))
    return up, down


@dataclass(eq=False)
class ConfidenceSequence:
    """A 95 % interval for the rate that holds at every set count at once, hence at whatever
    set the test stops (Waudby-Smith and Ramdas, "Estimating means of bounded random
    variables by betting", JRSS B 2024: the hedged capital process with predictable plug-in
    bets).

    For each candidate rate ``m`` two gamblers start with 1 and bet, before each set, a share
    of their capital that the set's score will be above ``m`` (and below ``m``). If ``m`` is
    the true rate neither bet is favourable, so by Ville's inequality their mixed capital ever
    reaching ``1 / (1 - level)`` has probability at most ``1 - level``, whenever one looks.
    The interval is the set of ``m`` (on :data:`GRID`) where it has not, widened by one grid
    step. It is never empty and never a point.
    """

    level: float = LEVEL
    sets: int = 0
    total: float = 0.0
    spread: float = 0.0
    log_up: np.ndarray = field(default_factory=lambda: np.zeros(GRID.size))
    log_down: np.ndarray = field(default_factory=lambda: np.zeros(GRID.size))

    def add(self, score: float) -> None:
        """The next set's score (0..1)."""
        up, down = stakes(GRID, wager(self.sets, self.spread, self.level))
        self.log_up += np.log1p(up * (score - GRID))
        self.log_down += np.log1p(-down * (score - GRID))
        self.sets += 1
        self.total += score
        mean = (0.5 + self.total) / (self.sets + 1)
        self.spread += (score - mean) ** 2

    def interval(self) -> tuple[float, float]:
        """The rates not rejected so far (the whole range before the first set)."""
        capital = np.logaddexp(self.log_up, self.log_down) - math.log(2.0)
        kept = np.flatnonzero(capital < math.log(1.0 / (1.0 - self.level)))
        if not kept.size:  # every rate rejected (at most 5 % of the time): the least rejected
            kept = np.array([int(np.argmin(capital))])
        step = GRID[1] - GRID[0]
        return max(0.0, float(GRID[kept[0]] - step)), min(1.0, float(GRID[kept[-1]] + step))


def stopping_interval(scores: Iterable[int], level: float = LEVEL) -> tuple[float, float]:
    """The :class:`ConfidenceSequence` interval after ``scores`` (half-points, in set order):
    what ``arena compare`` shows, valid however and whenever the test stopped."""
    sequence = ConfidenceSequence(level)
    for k in scores:
        sequence.add(float(SET_SCORES[k]))
    return sequence.interval()


# --- the test ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Design:
    """What a sequential test decides, and how sure it must be.

    H0: the long-run rate ``p <= p0``; H1: ``p >= p1``. ``alpha`` is the chance of accepting
    H1 when ``p = p0``, ``beta`` the chance of accepting H0 when ``p = p1``; between the two
    the test may go either way. ``max_sets`` ends an undecided test as "inconclusive".
    """

    p0: float = 0.50
    p1: float = 0.55
    alpha: float = 0.05
    beta: float = 0.05
    max_sets: int | None = None

    def __post_init__(self) -> None:
        if not 0 < self.p0 < self.p1 < 1:
            raise ArenaError(f"need 0 < p0 < p1 < 1 (have p0={self.p0}, p1={self.p1})")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ArenaError(
                f"need alpha and beta in (0, 1) with alpha + beta < 1 "
                f"(have alpha={self.alpha}, beta={self.beta})"
            )
        if self.max_sets is not None and self.max_sets < 1:
            raise ArenaError(f"max sets must be at least 1, not {self.max_sets}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ``log((1 - beta) / alpha)``."""
        return math.log((1 - self.beta) / self.alpha)

    def decide(self, llr_value: float, sets: int) -> Decision | None:
        """The decision after ``sets`` sets with this LLR (None: keep playing)."""
        if llr_value >= self.upper:
            return "H1"
        if llr_value <= self.lower:
            return "H0"
        if self.max_sets is not None and sets >= self.max_sets:
            return "inconclusive"
        return None


@dataclass(frozen=True)
class Status:
    """Where a sequential test stands: what ``arena compare`` prints and stores."""

    design: Design
    sets: int
    llr: float
    rate: float | None
    ci: tuple[float, float]
    """The 95 % interval for the rate: the :class:`ConfidenceSequence`'s, valid at whatever set
    the test stopped or the reader stops reading."""
    decision: Decision | None

    def to_dict(self, matches: int | None = None) -> dict[str, Any]:
        """The ``arena compare --json`` object (``matches`` defaults to six per set)."""
        d = self.design
        return {
            "decision": self.decision,
            "llr": round(self.llr, 4),
            "lower": round(d.lower, 4),
            "upper": round(d.upper, 4),
            "sets": self.sets,
            "matches": len(SEATINGS) * self.sets if matches is None else matches,
            "rate": None if self.rate is None else round(self.rate, 4),
            "ci": [round(self.ci[0], 4), round(self.ci[1], 4)],
            "p0": d.p0,
            "p1": d.p1,
            "alpha": d.alpha,
            "beta": d.beta,
        }

    def line(self) -> str:
        """One progress line: sets, rate with its interval, LLR between its bounds."""
        rate = "-" if self.rate is None else f"{self.rate:.3f}"
        return (
            f"sets {self.sets}: rate {rate} [{self.ci[0]:.3f}, {self.ci[1]:.3f}], "
            f"LLR {self.llr:+.2f} in [{self.design.lower:.2f}, {self.design.upper:.2f}]"
        )

    def verdict(self, a: str = "A", b: str = "B") -> str:
        """The result in words: what each decision allows one to say, and no more.

        Accepting H1 rejects ``p <= p0`` (wrongly at most ``alpha`` of the time); accepting
        H0 rejects ``p >= p1`` (wrongly at most ``beta`` of the time).
        """
        d = self.design
        if self.decision == "H1":
            return f"H1 accepted: {a} places above {b} at a rate above {d.p0:g} ({a} is stronger)"
        if self.decision == "H0":
            return (
                f"H0 accepted: {a} places above {b} at a rate below {d.p1:g} (no edge that large)"
            )
        if self.decision == "inconclusive":
            return (
                f"inconclusive after {self.sets} sets: "
                f"the rate is probably between {d.p0:g} and {d.p1:g}"
            )
        return f"undecided after {self.sets} sets"


@dataclass(eq=False)  # identity: two tests with equal counts are still two tests
class SequentialTest:
    """A GSPRT fed complete duplicate-set scores (half-points 0..12) in set order.

    Once decided it accepts no more sets: sets finished after the stopping time must not
    change the verdict, or the error rates no longer hold.
    """

    design: Design = field(default_factory=Design)
    counts: np.ndarray = field(default_factory=lambda: np.zeros(HALF_POINTS + 1, dtype=int))
    history: list[float] = field(default_factory=list)
    """The LLR after each set (the chart of the test)."""
    decision: Decision | None = None
    sequence: ConfidenceSequence = field(default_factory=ConfidenceSequence)
    """The interval for the rate, valid at whatever set the test stops."""

    @property
    def sets(self) -> int:
        """Sets seen so far."""
        return int(self.counts.sum())

    @property
    def llr(self) -> float:
        """The LLR after the last set (0 before the first)."""
        return self.history[-1] if self.history else 0.0

    @property
    def rate(self) -> float | None:
        """A's mean placed-above rate over B (None before the first set)."""
        sets = self.sets
        return float(self.counts @ SET_SCORES / sets) if sets else None

    def add(self, half_points: int) -> Decision | None:
        """Add the next set's score (A's half-points over B in its six matches)."""
        if self.decision is not None:
            raise ValueError(f"the test has already decided ({self.decision})")
        if not 0 <= half_points <= HALF_POINTS:
            raise ValueError(f"a set score is 0..{HALF_POINTS} half-points, not {half_points}")
        self.counts[half_points] += 1
        self.sequence.add(float(SET_SCORES[half_points]))
        self.history.append(float(llr(self.counts, self.design.p0, self.design.p1)))
        self.decision = self.design.decide(self.history[-1], self.sets)
        return self.decision

    def status(self) -> Status:
        """The test's current state, with the interval of :attr:`sequence` (not the
        fixed-sample :func:`rate_interval`, which covers less than 95 % when read at the
        moment a sequential test stops)."""
        return Status(
            self.design, self.sets, self.llr, self.rate, self.sequence.interval(), self.decision
        )


def llr_path(design: Design, scores: Sequence[int]) -> np.ndarray:
    """The LLR after each of ``scores`` (set scores in set order), computed at once."""
    if not len(scores):
        return np.zeros(0)
    onehot = np.zeros((len(scores), HALF_POINTS + 1), dtype=int)
    onehot[np.arange(len(scores)), np.asarray(scores)] = 1
    return llr(np.cumsum(onehot, axis=0), design.p0, design.p1)


def replay(design: Design, scores: Iterable[int]) -> SequentialTest:
    """The test after feeding ``scores`` in order, stopping at its decision.

    This is how a stored comparison is re-read (resume, ``--json``, the site's chart): sets
    stored after the stopping time, played by matches already in flight, are ignored.
    """
    scores = list(scores)
    if any(not 0 <= s <= HALF_POINTS for s in scores):
        raise ValueError(f"set scores are 0..{HALF_POINTS} half-points")
    path = llr_path(design, scores)
    test = SequentialTest(design)
    for k, (score, value) in enumerate(zip(scores, path, strict=True), 1):
        test.counts[score] += 1
        test.sequence.add(float(SET_SCORES[score]))
        test.history.append(float(value))
        test.decision = design.decide(float(value), k)
        if test.decision is not None:
            break
    return test


# --- complete sets, in set order --------------------------------------------------------------


class SetQueue:
    """Match outcomes in, complete set scores out, in set order.

    Workers finish matches in any order; :meth:`add` takes each as it comes (its set index,
    its seating 0..5 and A's half-points over B) and returns the scores of the sets that have
    just become releasable: complete, and every earlier set already released. An outcome
    delivered twice is ignored; two different outcomes for one match are an error.
    """

    def __init__(self, first: int = 0) -> None:
        self.next_set = first
        """The index of the next set to be released."""
        self._first = first
        self._sets: dict[int, dict[int, int]] = {}

    def add(self, set_index: int, seating: int, points: int) -> list[int]:
        """Record one match; return the set scores released by it (often none), in order."""
        if set_index < self._first:
            raise ValueError(f"set {set_index} comes before the first set {self._first}")
        if not 0 <= seating < len(SEATINGS):
            raise ValueError(f"seating must be 0..{len(SEATINGS) - 1}, not {seating}")
        if points not in (0, 1, 2):
            raise ValueError(f"half-points in one match are 0, 1 or 2, not {points}")
        seen = self._sets.setdefault(set_index, {})
        if seen.get(seating, points) != points:
            raise ValueError(f"set {set_index}, seating {seating} already has another outcome")
        seen[seating] = points
        released = []
        while len(self._sets.get(self.next_set, ())) == len(SEATINGS):
            released.append(sum(self._sets[self.next_set].values()))
            self.next_set += 1
        return released

    @property
    def waiting(self) -> int:
        """Sets with at least one match in that are not released yet."""
        return sum(1 for k in self._sets if k >= self.next_set)
