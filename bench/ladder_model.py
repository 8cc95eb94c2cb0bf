"""The synthetic ladder behind ``bench/ladder.py``: bots with known Plackett-Luce strengths,
duplicate sets with shared deal luck and ties, and the schedulers compared.

A duplicate set plays one deal in all six seatings. Each seat of the deal has a luck (a
uniform draw, shared by the six matches with chance ``luck``, else drawn afresh per match);
a seated bot's performance is its log-strength plus the Gumbel quantile of its seat's luck,
and the placing is the order of performances. Within one match the three seats' draws are
independent, so every match is *exactly* Plackett-Luce in the true strengths, and the truth
of the ratings is known; across the six matches the luck follows the seat, and every bot
sits in every seat twice, which is what duplicate play cancels. Two bots share a place when
their performances are closer than a margin (equal scores: likelier between bots of equal
strength), the margins set so that equal bots share first place 3 % and second place 8 % of
the time. Counted as the ratings count a shared place (an equal share of each order it
allows), such ties leave the scale where it was: a round robin of 12 bots, 15 times over,
fits a slope of 1.01 against the truth (0.996 without ties). Ties drawn at random whoever is
placed (this model's first form) are not what the ratings assume: they compressed the fitted
scale to 0.92 of the truth, 40 rating points at the ends of a 12-bot field, which no
schedule can cover (docs/ladder.md, coverage).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
from scipy import special  # type: ignore[import-untyped]

from arena.ladder.policy import Ladder

PERMS = np.asarray(list(itertools.permutations(range(3))))  # seating -> member in each seat


@dataclass(frozen=True)
class World:
    """How sets are played: deal luck, the bot-by-deal effect and tie rates.

    ``luck`` is the chance a seat's luck is the deal's (the same in the six seatings: what
    duplicate play cancels, as every bot sits in every seat twice). ``bot_luck`` is the chance
    a bot's luck in a match is its own draw for the whole set, whatever the seat: how well
    this deal suits this bot, the bot-by-deal effect that duplicate play cannot cancel. Each
    draw is a uniform on its own, and within one match the three bots' draws stay
    independent, so every match is still exactly Plackett-Luce in the true strengths (the
    ratings' limit is the truth), but the six matches of a set teach less than six."""

    luck: float = 0.9
    bot_luck: float = 0.0
    tie_first: float = 0.03
    tie_second: float = 0.08

    @staticmethod
    def margin(rate: float, spacing: int) -> float:
        """The gap of performances under which two places are shared, so that three bots of
        equal strength share first (``spacing`` 1) or second (2) place at ``rate``. With
        ``E = exp(-performance)`` the three are independent exponentials, and a gap under
        ``m`` is ``E`` of the lower place within ``e^m - 1`` of the upper's: closed form."""
        if spacing == 1:  # P = 1 - 3 / (3 + 2x)
            x = 1.5 * rate / (1 - rate)
        else:  # P = 1 - 6 / ((3 + x)(2 + x))
            x = (-5 + math.sqrt(1 + 24 / (1 - rate))) / 2
        return math.log1p(x)


def strengths(n: int, spread: float, seed: int, spaced: bool = True) -> np.ndarray:
    """True log-strengths of ``n`` bots with sd ``spread``: evenly spaced normal quantiles,
    shuffled (``spaced``), or drawn at random from the normal (near-ties included, as a real
    field has them)."""
    rng = np.random.default_rng([seed, 99])
    if not spaced:
        return np.asarray(rng.normal(size=n) * spread)
    q = special.ndtri((np.arange(n) + 0.5) / n) * spread
    return np.asarray(rng.permutation(q))


def play_set(
    theta: np.ndarray, rng: np.random.Generator, world: World
) -> tuple[tuple[int, int, int], ...]:
    """The places of the three bots (log-strengths ``theta``) in the six matches of a set."""
    return play_set_scored(theta, rng, world)[0]


def play_set_scored(
    theta: np.ndarray, rng: np.random.Generator, world: World
) -> tuple[tuple[tuple[int, int, int], ...], np.ndarray]:
    """The places of a set (:func:`play_set`, the same draws) and each bot's **score** in
    each match, ``(6, 3)``: its performance, the log-strength plus its luck, of which the
    places are the order. A score that is a monotone function of the performance is the
    most a score can tell consistently with Plackett-Luce places (what a match's points
    tell beyond its places is measured on a real ladder by ``bench/ladder_information.py
    --db``)."""
    deal = rng.random(3)
    u = np.where(rng.random((6, 3)) < world.luck, deal, rng.random((6, 3)))  # (match, seat)
    by_member = np.empty((6, 3))
    np.put_along_axis(by_member, PERMS, u, axis=1)
    if world.bot_luck:
        own = rng.random(3)  # how this deal suits each bot, in all six seatings
        by_member = np.where(rng.random((6, 3)) < world.bot_luck, own, by_member)
    perf = theta - np.log(-np.log(by_member))  # (match, member)
    order = np.argsort(-perf, axis=1)
    places = np.empty((6, 3), dtype=np.int64)
    np.put_along_axis(places, order, np.arange(1, 4)[None, :].repeat(6, 0), axis=1)
    ranked = np.take_along_axis(perf, order, axis=1)
    first = ranked[:, 0] - ranked[:, 1] < world.margin(world.tie_first, 1)
    second = ~first & (ranked[:, 1] - ranked[:, 2] < world.margin(world.tie_second, 2))
    places = np.where(first[:, None] & (places == 2), 1, places)
    places = np.where(second[:, None] & (places == 3), 2, places)
    return tuple((int(a), int(b), int(c)) for a, b, c in places), perf


Picker = Callable[[Ladder, np.random.Generator], tuple[int, int, int] | None]
"""A scheduler: the next triple, or None for the ladder's own rule."""


def ladder_rule(lad: Ladder, rng: np.random.Generator) -> None:
    """The ladder's rule (:meth:`arena.ladder.policy.Ladder.next_set`)."""
    return None


def random_triples(lad: Ladder, rng: np.random.Generator) -> tuple[int, int, int]:
    """Three bots drawn uniformly from the field."""
    field = lad.active()
    a, b, c = rng.choice(len(field), 3, replace=False)
    return field[a], field[b], field[c]


def neighbour_matchmaking(lad: Ladder, rng: np.random.Generator) -> tuple[int, int, int]:
    """TrueSkill/Kaggle-style matchmaking: the bot with the fewest sets (the longest
    waiting among them) and two partners drawn from the ten nearest to it in rating."""
    field = lad.active()
    seed = min(field, key=lambda b: (lad.entries[b].scheduled, -lad.wait(b), b))
    theta = lad.ratings.theta
    me = theta[lad.ratings.index[seed]]
    others = [b for b in field if b != seed]
    near = sorted(others, key=lambda b: (abs(theta[lad.ratings.index[b]] - me), b))[:10]
    a, b = rng.choice(len(near), 2, replace=False)
    return seed, near[a], near[b]


def round_robin(n: int, seed: int) -> Picker:
    """Every triple once in a shuffled order, then again (for small fields only)."""
    triples = list(itertools.combinations(range(n), 3))
    state = {"i": 0, "order": np.random.default_rng([seed, 7]).permutation(len(triples))}

    def pick(lad: Ladder, rng: np.random.Generator) -> tuple[int, int, int]:
        i = state["i"]
        state["i"] = i + 1
        a, b, c = triples[int(state["order"][i % len(triples)])]
        return a, b, c

    return pick


def focal_random_pairs(newcomer: int) -> Picker:
    """The newcomer against two bots drawn uniformly from the rest of the field."""

    def pick(lad: Ladder, rng: np.random.Generator) -> tuple[int, int, int]:
        others = [b for b in lad.active() if b != newcomer]
        a, b = rng.choice(len(others), 2, replace=False)
        return newcomer, others[a], others[b]

    return pick


def truth_bracketing(newcomer: int, truth: np.ndarray, nearest: int = 2) -> Picker:
    """An oracle, not a schedule: the newcomer between two bots of the field taken from the
    ``nearest`` just above and just below it in *true* strength (in turn, so that their own
    errors average out; two from one side for a newcomer past either end). What a rule that
    placed the newcomer and ordered the field perfectly from its first set would play: the
    fewest sets partner choice could give."""

    def pick(lad: Ladder, rng: np.random.Generator) -> tuple[int, int, int]:
        others = np.asarray([b for b in lad.active() if b != newcomer])
        gap = truth[others] - truth[newcomer]
        up = others[gap > 0][np.argsort(gap[gap > 0])][:nearest]
        down = others[gap <= 0][np.argsort(-gap[gap <= 0])][:nearest]
        k = lad.step
        if len(up) and len(down):
            return newcomer, int(up[k % len(up)]), int(down[(k // len(up)) % len(down)])
        side = up if len(up) else down
        a, b = rng.choice(len(side), 2, replace=False)
        return newcomer, int(side[a]), int(side[b])

    return pick


def _fewest(lad: Ladder) -> int:
    """The bot matchmaking serves first: the fewest sets, then the longest wait."""
    return min(lad.active(), key=lambda b: (lad.entries[b].scheduled, -lad.wait(b), b))


BETA: Final = math.pi / math.sqrt(6)
"""A bot's performance noise in logits (the sd of a Gumbel draw), TrueSkill's beta."""


def quality(mu: np.ndarray, var: np.ndarray, beta: float = BETA) -> np.ndarray:
    """TrueSkill's (and openskill's) match quality of free-for-all triples, one per row of
    ``mu`` and ``var`` (means and variances of the three bots' strengths): the chance of a
    draw relative to the chance were all three known exactly, ``sqrt(det(b²AᵀA) / det(b²AᵀA
    + AᵀΣA)) exp(-dᵀ(b²AᵀA + AᵀΣA)⁻¹d / 2)`` with ``d = Aᵀμ`` the successive differences.
    Written out for 3 x 3 (``openskill`` is not installable here, and it scores one match
    per call where a matchmaker scores thousands)."""
    b2 = beta * beta
    s0, s1, s2 = var[:, 0], var[:, 1], var[:, 2]
    m00, m01, m11 = 2 * b2 + s0 + s1, -b2 - s1, 2 * b2 + s1 + s2
    det = m00 * m11 - m01 * m01
    d0, d1 = mu[:, 0] - mu[:, 1], mu[:, 1] - mu[:, 2]
    quad = (m11 * d0 * d0 - 2 * m01 * d0 * d1 + m00 * d1 * d1) / det
    return np.asarray(np.sqrt(3 * b2 * b2 / det) * np.exp(-quad / 2))


def match_quality(lad: Ladder, rng: np.random.Generator, pool: int = 40) -> tuple[int, int, int]:
    """openskill/TrueSkill matchmaking: the bot served first (fewest sets) with the pair of
    partners of the highest match quality, from its ``pool`` nearest in rating (the ladder's
    estimates and spreads); ties to the first."""
    seed = _fewest(lad)
    r = lad.ratings
    others = np.asarray([b for b in lad.active() if b != seed])
    idx = np.asarray([r.index[int(b)] for b in others])
    me = r.index[seed]
    near = np.argsort(np.abs(r.theta[idx] - r.theta[me]), kind="stable")[:pool]
    a, b = np.triu_indices(len(near), 1)
    cols = np.stack([np.full(len(a), me), idx[near[a]], idx[near[b]]], axis=1)
    q = quality(r.theta[cols], np.diagonal(r.cov)[cols])
    best = int(np.argmax(q))
    return seed, int(others[near[a[best]]]), int(others[near[b[best]]])


def truth_neighbours(truth: np.ndarray) -> Picker:
    """An oracle for a whole field: the bot served first between its nearest bots above and
    below it in *true* strength (:func:`truth_bracketing`), what neighbour matchmaking would
    play were every rating already right."""

    def pick(lad: Ladder, rng: np.random.Generator) -> tuple[int, int, int]:
        return truth_bracketing(_fewest(lad), truth)(lad, rng)

    return pick
