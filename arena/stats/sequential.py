"""Is A stronger than B? A sequential test on duplicate sets (the core of ``arena compare``).

The sample is one **duplicate set**: a fresh deal seed played in all six seatings of A, B and
a third bot. Its score is A's placed-above rate over B in the set (a shared place counts one
half), so it is one of the 13 values 0, 1/12, ..., 1; it is kept as an integer count of
half-points, 0 to 12. Sets are independent (each has its own seed); the matches inside one are
not (they share the cards), which is why the set, not the match, is the unit.

The test is a pair of gamblers (:class:`Gamblers`), the anytime-valid test by betting of
Waudby-Smith and Ramdas (JRSS B 2024). Before each set one gambler stakes a share of its
capital on "the set scores above ``p0``", the other on "below ``p1``", with Kelly's share
estimated from the sets before it (GRAPA: the share that would have grown the capital fastest
on them). If ``p <= p0`` the first gambler's capital is a nonnegative supermartingale, so by
Ville's inequality it ever reaches ``1 / alpha`` with probability at most ``alpha``: H1 is
accepted when it does, H0 when the second reaches
``1 / beta``. Nothing is assumed about the distribution of set scores beyond their range,
the error bounds hold exactly (not asymptotically) and at whatever set the test stops, and
the evidence a set adds is not capped by the design: a pair that wins every set is decided in
7 sets, a steady pair as fast as its low spread allows (``bench/compare.py``).

The interval ``arena compare`` shows (:attr:`Status.ci`) comes from the same gamblers betting
at every rate at once: the rates rejected from below end where the lower end begins, so the
lower end passes ``p0`` exactly when the first gambler wins (H1), the upper end ``p1`` when
the second does (H0). Verdict and interval answer one question and cannot disagree; each end
holds at its level (``1 - alpha``, ``1 - beta``) at every set count at once.

The profile likelihood below (``profile``, ``llr``: the fishtest GSPRT's statistic on our 13
set outcomes, this module's test before, whose evidence per set was capped at ``log(p1 /
p0)``) remains for the fixed-sample interval. For a hypothesised mean ``s`` the likelihood of
the sets seen so far is maximised over every distribution on the 13 outcomes whose mean is
``s``; the solution is ``q_i = f_i / (1 + x (a_i - s))`` with ``f_i`` the observed frequencies,
``a_i`` the outcomes and ``x`` a Lagrange multiplier found by a safeguarded Newton iteration
(M. Van den Bergh, "Maximum likelihood estimation for a multinomial distribution with a given
expectation value"). The log-likelihood lost by forcing the mean to ``s`` is the *profile*
``l(s) = sum_i n_i log(1 + x (a_i - s))``. An outcome never seen gets a count of 0.001
(fishtest's regularisation).

The fixed-sample 95 % interval for ``p`` (:func:`empirical_likelihood_interval`) is the set of
means the same likelihood does not reject: ``{s : 2 l(s) <= F(1, n - 1) quantile}`` (Owen's
empirical-likelihood interval, F-calibrated for small samples): right for a fixed number of
sets, not at a stopping time the data chose.

Matches finish out of order when workers run in parallel; deciding on whatever happens to be
finished would bias the test towards short (often lopsided) matches. :class:`SetQueue` holds
match outcomes back until their set is complete and releases set scores strictly in set order,
so the test sees exactly the sequence a serial run would.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from arena.errors import ArenaError
from arena.lazy import lazy_module
from arena.matches.scheduler import SEATINGS
from arena.stats.betting import BET_CAP as BET_CAP  # the gamblers live in arena.stats.betting
from arena.stats.betting import PRIOR_SETS as PRIOR_SETS
from arena.stats.betting import Gamblers
from arena.stats.betting import bets as bets
from arena.stats.betting import capped as capped
from arena.stats.vocabulary import LEVEL, MIN_UNITS, Interval

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")

HALF_POINTS: Final = 2 * len(SEATINGS)
"""Half-points in a duplicate set: 2 per seating (placed above B), 1 for a shared place."""

SCORE_VALUES: Final = tuple(k / HALF_POINTS for k in range(HALF_POINTS + 1))
"""The possible set scores 0, 1/12, ..., 1, indexed by half-points (``SET_SCORES`` as a
numpy array, made when first read, so that importing this module does not load numpy)."""

if TYPE_CHECKING:
    SET_SCORES: np.ndarray


@functools.cache
def _set_scores() -> np.ndarray:
    scores = np.asarray(SCORE_VALUES)
    scores.flags.writeable = False
    return scores


def __getattr__(name: str) -> Any:  # PEP 562: SET_SCORES, made on first use
    if name == "SET_SCORES":
        return _set_scores()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


REGULARISATION: Final = 1e-3
"""Count given to an outcome not seen yet (fishtest's value)."""

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
    counts: Sequence[float] | np.ndarray,
    s: float,
    values: Sequence[float] | np.ndarray = SCORE_VALUES,
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


def llr(
    counts: Sequence[float] | np.ndarray,
    p0: float,
    p1: float,
    values: Sequence[float] | np.ndarray = SCORE_VALUES,
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
    if sets < MIN_UNITS:
        return math.inf
    from scipy import stats  # type: ignore[import-untyped]  # scipy only when computed: a stored table reads without it

    return float(stats.f.ppf(level, 1, sets - 1))


def empirical_likelihood_interval(
    counts: Sequence[float] | np.ndarray,
    level: float = LEVEL,
    values: Sequence[float] | np.ndarray = SCORE_VALUES,
) -> Interval:
    """The ``level`` empirical-likelihood interval for the mean set score (see the module
    docstring): a fixed-sample interval, kept to measure the interval shown against it
    (``bench/coverage.py``); the rates of the standings use
    :func:`arena.stats.vocabulary.rate_interval`.

    With fewer than two samples nothing bounds the mean: the whole range is returned.
    """
    from scipy import optimize  # scipy only when computed: a stored table reads without it

    c = np.asarray(counts, dtype=float)
    lowest, highest = float(values[0]), float(values[-1])
    q = threshold(int(round(c.sum())), level)
    if math.isinf(q):
        return Interval(lowest, highest, level)
    n = _regularised(c)
    centre = float((n * values).sum() / n.sum())

    def excess(s: float) -> float:
        return 2.0 * float(profile(c, s, values)) - q

    # The profile is 0 at the centre and grows without bound towards either end of the range.
    edge = 1e-9 * (highest - lowest)
    first, last = lowest + edge, highest - edge
    low = lowest if excess(first) <= 0 else float(optimize.brentq(excess, first, centre))
    high = highest if excess(last) <= 0 else float(optimize.brentq(excess, centre, last))
    return Interval(low, high, level)


@dataclass(frozen=True)
class Design:
    """What a sequential test decides, and how sure it must be.

    H0: the long-run rate ``p <= p0``; H1: ``p >= p1``. ``alpha`` bounds the chance of ever
    accepting H1 when ``p <= p0``, ``beta`` the chance of ever accepting H0 when ``p >= p1``
    (both by Ville's inequality, exactly, for any distribution of set scores and at whatever
    set one stops); between the two the test may go either way. ``max_sets`` ends an
    undecided test as "inconclusive".
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
        """The signed evidence at or below which H0 is accepted: ``log(beta)`` (the gambler
        against ``p >= p1`` has multiplied its capital by ``1 / beta``)."""
        return math.log(self.beta)

    @property
    def upper(self) -> float:
        """The signed evidence at or above which H1 is accepted: ``log(1 / alpha)``."""
        return -math.log(self.alpha)

    def decide(self, evidence: float, sets: int) -> Decision | None:
        """The decision after ``sets`` sets with this signed evidence (None: keep playing)."""
        if evidence >= self.upper:
            return "H1"
        if evidence <= self.lower:
            return "H0"
        if self.max_sets is not None and sets >= self.max_sets:
            return "inconclusive"
        return None


def _apart(x: float, marks: Sequence[float]) -> str:
    """``x`` to 3 decimals, or more (up to 6) until it does not print as a mark it is not: a
    lower end just above ``p0`` must not read as ``p0`` beside "H1 accepted"."""
    for digits in range(3, 7):
        text = f"{x:.{digits}f}"
        if all(x == m or text != f"{m:.{digits}f}" for m in marks):
            return text
    return text


def signed(evidence: tuple[float, float], design: Design) -> float:
    """One number for the two gamblers' log capital: that of the one nearer its bound (as a
    share of it), positive against ``p <= p0`` (towards H1), negative against ``p >= p1``."""
    e1, e0 = max(0.0, evidence[0]), max(0.0, evidence[1])  # a loss is no evidence either way
    return e1 if e1 / design.upper >= e0 / -design.lower else -e0


@dataclass(frozen=True)
class Status:
    """Where a sequential test stands: what ``arena compare`` prints and stores."""

    design: Design
    sets: int
    llr: float
    """The signed log evidence (:func:`signed`): H1 at :attr:`Design.upper`, H0 at
    :attr:`Design.lower`. (Named for the likelihood ratio it replaced: a gambler's capital is
    a likelihood ratio against the hypothesis it bets against.)"""
    rate: float | None
    ci: Interval
    """The interval for the rate from the same gamblers (:meth:`Gamblers.interval`): its lower
    end is above ``p0`` whenever H1 is accepted, its upper end below ``p1`` whenever H0 is;
    each end holds at its level (``1 - alpha``, ``1 - beta``) at any set count."""
    decision: Decision | None
    evidence: tuple[float, float] = (0.0, 0.0)
    """Each gambler's log capital: against ``p <= p0`` and against ``p >= p1``."""

    def to_dict(self, matches: int | None = None) -> dict[str, Any]:
        """The ``arena compare --json`` object (``matches`` defaults to six per set)."""
        d = self.design
        return {
            "decision": self.decision,
            "llr": round(self.llr, 4),
            "lower": round(d.lower, 4),
            "upper": round(d.upper, 4),
            "evidence": {"h1": round(self.evidence[0], 4), "h0": round(self.evidence[1], 4)},
            "sets": self.sets,
            "matches": len(SEATINGS) * self.sets if matches is None else matches,
            "rate": None if self.rate is None else round(self.rate, 4),
            "ci": self.ci.rounded(6),
            "p0": d.p0,
            "p1": d.p1,
            "alpha": d.alpha,
            "beta": d.beta,
        }

    @property
    def ends(self) -> tuple[str, str]:
        """The interval's ends as text, with the digits its verdict needs: 3 decimals, more
        (up to 6) where fewer would print an end as ``p0`` or ``p1`` when it is not (a lower
        end just above ``p0`` beside "H1 accepted"). The terminal, ``--json``-readers and the
        site print these."""
        marks = (self.design.p0, self.design.p1)
        low, high = (_apart(x, marks) for x in (self.ci.low, self.ci.high))
        return low, high

    def line(self) -> str:
        """One progress line: sets, rate with its interval, evidence between its bounds."""
        rate = "-" if self.rate is None else f"{self.rate:.3f}"
        low, high = self.ends
        return (
            f"sets {self.sets}: rate {rate} [{low}, {high}], "
            f"evidence {self.llr:+.2f} in [{self.design.lower:.2f}, {self.design.upper:.2f}]"
        )

    def verdict(self, a: str = "A", b: str = "B") -> str:
        """The result in words: what each decision allows one to say, and no more.

        Accepting H1 rejects ``p <= p0`` (wrongly at most ``alpha`` of the time); accepting
        H0 rejects ``p >= p1`` (wrongly at most ``beta`` of the time). The interval shown
        beside it says the same: its lower end is above ``p0`` (its upper end below ``p1``).
        Without a decision, what is known is the interval at the stop (which holds at any
        stopping time), never a band the sets do not support.
        """
        d = self.design
        if self.decision == "H1":
            return f"H1 accepted: {a} places above {b} at a rate above {d.p0:g} ({a} is stronger)"
        if self.decision == "H0":
            return (
                f"H0 accepted: {a} places above {b} at a rate below {d.p1:g} (no edge that large)"
            )
        low, high = self.ends
        known = f"the rate is between {low} and {high} ({self.ci.level:.0%} interval)"
        if self.decision == "inconclusive":
            return (
                f"inconclusive after {self.sets} sets: neither {d.p0:g} nor {d.p1:g} ruled "
                f"out; {known}"
            )
        return f"undecided after {self.sets} sets: {known}"


@dataclass(eq=False)  # identity: two tests with equal counts are still two tests
class SequentialTest:
    """The test fed complete duplicate-set scores (half-points 0..12) in set order.

    Once decided it accepts no more sets: sets finished after the stopping time must not
    change the verdict (they would not change its error rates, which hold at any stopping
    time, but a verdict that moves is no verdict).
    """

    design: Design = field(default_factory=Design)
    counts: np.ndarray = field(default_factory=lambda: np.zeros(HALF_POINTS + 1, dtype=int))
    history: list[float] = field(default_factory=list)
    """The signed evidence after each set (:func:`signed`)."""
    trail: list[tuple[float, float]] = field(default_factory=list)
    """Both gamblers' log capital after each set (the chart of the test)."""
    decision: Decision | None = None
    gamblers: Gamblers | None = None
    """The evidence and the interval (made from the design when not given)."""

    def __post_init__(self) -> None:
        d = self.design
        if self.gamblers is None:
            self.gamblers = Gamblers(d.p0, d.p1, d.alpha, d.beta)

    @property
    def sets(self) -> int:
        """Sets seen so far."""
        return int(self.counts.sum())

    @property
    def llr(self) -> float:
        """The signed evidence after the last set (0 before the first)."""
        return self.history[-1] if self.history else 0.0

    @property
    def rate(self) -> float | None:
        """A's mean placed-above rate over B (None before the first set)."""
        sets = self.sets
        return float(self.counts @ _set_scores() / sets) if sets else None

    def add(self, half_points: int) -> Decision | None:
        """Add the next set's score (A's half-points over B in its six matches)."""
        if self.decision is not None:
            raise ValueError(f"the test has already decided ({self.decision})")
        if not 0 <= half_points <= HALF_POINTS:
            raise ValueError(f"a set score is 0..{HALF_POINTS} half-points, not {half_points}")
        assert self.gamblers is not None
        self.counts[half_points] += 1
        self.gamblers.add(SCORE_VALUES[half_points])
        self.trail.append(self.gamblers.evidence)
        self.history.append(signed(self.gamblers.evidence, self.design))
        self.decision = self.design.decide(self.history[-1], self.sets)
        return self.decision

    def status(self) -> Status:
        """The test's current state, with the interval of the same gamblers."""
        assert self.gamblers is not None
        return Status(
            self.design,
            self.sets,
            self.llr,
            self.rate,
            self.gamblers.interval(),
            self.decision,
            self.gamblers.evidence,
        )


def replay(design: Design, scores: Iterable[int]) -> SequentialTest:
    """The test after feeding ``scores`` in order, stopping at its decision.

    This is how a stored comparison is re-read (resume, ``--json``, the site's chart): sets
    stored after the stopping time, played by matches already in flight, are ignored.
    """
    scores = list(scores)
    if any(not 0 <= s <= HALF_POINTS for s in scores):
        raise ValueError(f"set scores are 0..{HALF_POINTS} half-points")
    test = SequentialTest(design)
    for score in scores:
        if test.add(score) is not None:
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
