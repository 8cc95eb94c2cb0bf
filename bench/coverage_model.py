"""The model behind ``bench/coverage.py``: scenarios, tournaments drawn from them, and their
exact truth (true strengths, placed-above rates and duplicate scores).

See ``bench/coverage.py`` for what is measured with it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from arena.stats import Outcomes
from arena.stats.duplicate import SeatRecord
from arena.stats.plackett_luce import Choices, fit_choices

PERMS = list(itertools.permutations(range(3)))
FAULTED = -math.inf


@dataclass(frozen=True)
class Scenario:
    """A tournament model: log-strengths (``FAULTED`` for a bot that always faults) and luck."""

    name: str
    theta: tuple[float, ...]
    rounds: int
    correlation: float = 0.0
    seat_luck: float = 0.0
    seats: tuple[float, float, float] = (0.3, 0.0, -0.3)
    tie_first: float = 0.0
    tie_second: float = 0.0
    tie_equal: float = 0.0
    """Ties that follow strength: two bots of equal strength that finish next to each other
    share their place with this chance more (first if they are the top two, second if the
    bottom two)."""

    @property
    def n(self) -> int:
        """Number of bots."""
        return len(self.theta)


SCENARIOS = [
    Scenario("3-bots-10-rounds", (0.5, 0.0, -0.5), 10),
    Scenario("3-bots-50-rounds", (0.5, 0.0, -0.5), 50),
    Scenario("4-bots-10-correlated", (0.6, 0.2, 0.0, -0.6), 10, correlation=0.5),
    Scenario(
        "5-bots-20-ties-seat-luck",
        (0.8, 0.3, 0.0, -0.2, -0.8),
        20,
        seat_luck=0.4,
        tie_first=0.03,
        tie_second=0.1,
    ),
    *(
        Scenario(
            f"6-bots-{rounds}-everything",
            (0.9, 0.5, 0.2, 0.0, -0.4, -1.0),
            rounds,
            correlation=0.3,
            seat_luck=0.3,
            tie_first=0.03,
            tie_second=0.1,
        )
        for rounds in (10, 50)
    ),
    Scenario("4-bots-20-faulted", (0.4, 0.0, -0.4, FAULTED), 20, correlation=0.3, tie_second=0.1),
    Scenario("5-bots-10-weak-bot", (0.5, 0.2, 0.0, -0.3, -5.5), 10, correlation=0.3),
    Scenario("4-bots-30-duplicate-luck", (0.3, 0.1, 0.0, -0.3), 30, seat_luck=0.7),
    Scenario("3-bots-10-deal-decides", (0.5, 0.0, -0.5), 10, seat_luck=0.9),
    Scenario("3-bots-10-strong-correlation", (0.5, 0.0, -0.5), 10, correlation=0.8),
    # Few units and many bots: each bot is in only a few of the tournament's units.
    Scenario("5-bots-1-round", (0.6, 0.3, 0.0, -0.3, -0.6), 1),
    Scenario("8-bots-1-round", (0.8, 0.5, 0.3, 0.1, -0.1, -0.3, -0.5, -0.8), 1),
    Scenario(
        "5-bots-2-luck-ties",
        (0.6, 0.3, 0.0, -0.3, -0.6),
        2,
        seat_luck=0.4,
        tie_first=0.03,
        tie_second=0.1,
    ),
    # Shared first places (tie_policy="shared_win" with close scores).
    Scenario("4-bots-50-shared-win", (1.0, 0.3, 0.0, -1.0), 50, tie_first=0.3),
    # Shared places that cluster between bots of equal strength (copies, or bots that play
    # alike): the audit's worst case for kingmaking's false alarms.
    Scenario("4-bots-50-equal-ties", (0.5, 0.5, -0.5, -0.5), 50, tie_equal=0.6),
    Scenario(
        "5-bots-30-equal-ties", (0.8, 0.8, 0.0, -0.8, -0.8), 30, tie_second=0.05, tie_equal=0.5
    ),
]
"""3-8 bots, 1-50 rounds; with and without correlation inside a unit, ties, seat luck, a
bot that always faults and one that rarely places above anybody. The last two are stress
cases: measured on the bundled bots, the deal decides every match between two copies of one
deterministic bot, and the six seatings of a unit are nearly independent otherwise (design
effect 1.16 for heuristic against random, i.e. a within-unit correlation near 0.03, where
``correlation=0.8`` has about 0.8)."""


# --- the model -----------------------------------------------------------------------------


def triples(n: int) -> np.ndarray:
    """Every set of three bots, ``(sets, 3)``."""
    return np.asarray(list(itertools.combinations(range(n), 3)), dtype=np.int64)


def simulate(sc: Scenario, rng: np.random.Generator) -> Outcomes:
    """One tournament drawn from the scenario, as the arena's :class:`Outcomes`."""
    sets = triples(sc.n)
    units = len(sets) * sc.rounds
    members = np.repeat(sets, sc.rounds, axis=0)  # (units, 3)
    perm = np.asarray(PERMS)  # (6, 3): seat -> member slot
    unit = np.repeat(np.arange(units), 6)
    slot = np.tile(perm, (units, 1))  # (matches, 3)
    bots = np.take_along_axis(members[unit], slot, axis=1)
    theta = np.asarray(sc.theta)
    faulted = np.isinf(theta[bots])
    strength = np.where(faulted, 0.0, theta[bots])
    m = len(unit)
    shared_bot = rng.gumbel(size=(units, 3))
    shared_seat = rng.gumbel(size=(units, 3))
    fresh = strength + rng.gumbel(size=(m, 3))
    copied = strength + np.take_along_axis(shared_bot[unit], slot, axis=1)
    by_seat = np.asarray(sc.seats) + shared_seat[unit]
    u = rng.random(m)[:, None]
    key = np.where(
        u < sc.seat_luck, by_seat, np.where(u < sc.seat_luck + sc.correlation, copied, fresh)
    )
    key = np.where(faulted, -np.inf, key)
    order = np.argsort(-key, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(3)[None, :].repeat(m, 0), axis=1)
    places = rank + 1
    ok = ~faulted
    top_two = np.take_along_axis(ok, order[:, :2], axis=1).all(axis=1)
    bottom_two = np.take_along_axis(ok, order[:, 1:], axis=1).all(axis=1)
    v = rng.random(m)
    ranked = np.take_along_axis(strength, order, axis=1)
    t1 = sc.tie_first + sc.tie_equal * (ranked[:, 0] == ranked[:, 1])
    t2 = sc.tie_second + sc.tie_equal * (ranked[:, 1] == ranked[:, 2])
    tie1 = (v < t1) & top_two
    tie2 = (v >= t1) & (v < t1 + t2) & bottom_two
    places = np.where(tie1[:, None] & (places == 2), 1, places)
    places = np.where(tie2[:, None] & (places == 3), 2, places)
    both_faulted = faulted.sum(axis=1) == 2
    places = np.where(both_faulted[:, None] & (places == 3), 2, places)
    faults = np.bincount(bots[faulted], minlength=sc.n)
    return Outcomes(tuple(range(sc.n)), unit, bots, places, faults, units)


def orders(sc: Scenario, seated: Sequence[int]) -> list[tuple[tuple[int, ...], float]]:
    """Exact distribution of one match's finishing order (best first) for bots seated at
    seats 0, 1, 2; faulted bots always last."""
    theta = [sc.theta[b] for b in seated]
    alive = [s for s in range(3) if not math.isinf(theta[s])]
    dead = [s for s in range(3) if math.isinf(theta[s])]

    def pl(weights: list[float]) -> dict[tuple[int, ...], float]:
        out = {}
        for o in itertools.permutations(alive):
            p, left = 1.0, list(alive)
            for s in o:
                p *= math.exp(weights[s]) / sum(math.exp(weights[r]) for r in left)
                left.remove(s)
            out[o] = p
        return out

    by_bot, by_seat = pl(theta), pl(list(sc.seats))
    return [
        (
            tuple(seated[s] for s in o + tuple(dead)),
            sc.seat_luck * by_seat[o] + (1 - sc.seat_luck) * by_bot[o],
        )
        for o in by_bot
    ]


def placings(
    sc: Scenario, seated: Sequence[int]
) -> Iterator[tuple[tuple[int, ...], tuple[int, int, int], float]]:
    """Every outcome of one match with bots seated at seats 0, 1, 2: the finishing order
    (bots, best first), the places in that order (shared places included) and the chance."""
    dead = {b for b in seated if math.isinf(sc.theta[b])}
    for o, p in orders(sc, seated):
        x, y, z = o
        th = sc.theta
        t1 = sc.tie_first + sc.tie_equal * (th[x] == th[y]) if not ({x, y} & dead) else 0.0
        t2 = sc.tie_second + sc.tie_equal * (th[y] == th[z]) if not ({y, z} & dead) else 0.0
        if {y, z} <= dead:
            t1, t2 = 0.0, 1.0
        for places, q in (((1, 1, 3), t1), ((1, 2, 2), t2), ((1, 2, 3), 1 - t1 - t2)):
            if q > 0:
                yield o, places, p * q


POINTS = np.array([0, 10, 6, 2])
"""A seat's points by its place (index 1-3) before the deal's luck: the winner reaches 10."""


def points(out: Outcomes, rng: np.random.Generator) -> np.ndarray:
    """Every seat's final score: its place's points, plus the luck of the cards it held (a
    bonus shared by the six matches of a unit in that seat, what duplicate scoring cancels),
    plus noise of its own. Both have mean zero, so the expected score is ``POINTS[place]``."""
    deal_luck = rng.integers(-3, 4, size=(out.units, 3))
    noise = rng.integers(-1, 2, size=out.places.shape)
    result: np.ndarray = POINTS[out.places] + deal_luck[out.unit] + noise
    return result


def seat_records(out: Outcomes, rng: np.random.Generator) -> list[SeatRecord]:
    """The tournament's seats as the duplicate reports read them, with :func:`points` drawn."""
    score = points(out, rng)
    return [
        SeatRecord(
            f"m{m}",
            str(out.unit[m]),
            s,
            int(out.bots[m, s]),
            int(score[m, s]),
            int(out.places[m, s]),
        )
        for m in range(len(out.unit))
        for s in range(3)
    ]


@dataclass
class Truth:
    """The scenario's true log-strengths (``-inf`` for a faulted bot), placed-above rates and
    duplicate scores (the expected points minus par over every seat a bot plays)."""

    theta: np.ndarray
    rate: np.ndarray  # rate[a, b]: a placed above b (ties one half)
    duplicate: np.ndarray


def truth(sc: Scenario) -> Truth:
    """Exact expected choices, pairwise results and points of one round, and the fit on them."""
    n = sc.n
    counts: dict[tuple[int, ...], float] = {}
    above = np.zeros((n, n))
    met = np.zeros((n, n))
    duplicate, seats = np.zeros(n), np.zeros(n)
    for members in triples(n):
        expected = {}  # (seating, bot) -> expected points
        for perm in PERMS:
            seated = [int(members[s]) for s in perm]
            for b in seated:
                expected[perm, b] = 0.0
            for o, places, w in placings(sc, seated):
                # As the fit counts them: every order the places allow, an equal share each.
                allowed = [
                    q
                    for q in itertools.permutations(range(3))
                    if places[q[0]] <= places[q[1]] <= places[q[2]]
                ]
                for q in allowed:
                    x, y, z = (o[i] for i in q)
                    share = w / len(allowed)
                    key = (x, *sorted((y, z)))
                    counts[key] = counts.get(key, 0.0) + share
                    counts[(y, z, -1)] = counts.get((y, z, -1), 0.0) + share
                for i, j in itertools.permutations(range(3), 2):
                    a, b = o[i], o[j]
                    met[a, b] += w
                    above[a, b] += w * (
                        1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                    )
                for i, b in enumerate(o):
                    expected[perm, b] += w * POINTS[places[i]]
        # Par of a (deal, seat): the mean over the three bots of each one's mean points there
        # (each sits there in two of the six seatings).
        for seat in range(3):
            here = {
                int(b): [expected[q, int(b)] for q in PERMS if members[q[seat]] == b]
                for b in members
            }
            par = sum(sum(v) / len(v) for v in here.values()) / 3
            for b, v in here.items():
                duplicate[b] += sum(v) - par * len(v)
                seats[b] += len(v)
    alive = [b for b in range(n) if not math.isinf(sc.theta[b])]
    index = {b: i for i, b in enumerate(alive)}
    rows, weights = [], []
    for key, w in counts.items():
        if key[0] in index and key[1] in index:
            rows.append([index[key[0]], index[key[1]], index.get(key[2], -1)])
            weights.append(w)
    fitted = fit_choices(Choices(np.asarray(rows), np.asarray(weights)), len(alive))
    theta = np.full(n, -np.inf)
    theta[alive] = fitted
    with np.errstate(invalid="ignore"):
        return Truth(theta, above / met, duplicate / seats)
