"""The ladder's incremental ratings (arena.ladder.ratings) against full fits: the running
estimate stays within tolerance of a fit from scratch, and the table (ratings and intervals)
is what ``arena standings`` computes from the same matches."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from bench_support import BENCH

from arena.ladder import LadderRatings, SetResult
from arena.ladder.ratings import set_choices
from arena.stats import BASE, ELO_SCALE, Outcomes, compute

sys.path.insert(0, str(BENCH))

from ladder_model import World, play_set, strengths  # noqa: E402


def random_sets(n: int, sets: int, seed: int) -> list[SetResult]:
    rng = np.random.default_rng(seed)
    truth = strengths(n, 1.0, seed)
    out = []
    for _ in range(sets):
        t = rng.choice(n, 3, replace=False)
        bots = (int(t[0]), int(t[1]), int(t[2]))
        out.append(SetResult(bots, play_set(truth[t], rng, World())))
    return out


def rows(results: list[SetResult]) -> list[tuple[str, int, int, int, int, int, int]]:
    return [(f"set{g}", *r.bots, *places) for g, r in enumerate(results) for places in r.places]


def test_choices_are_counted_as_the_standings_count_them() -> None:
    counted = set_choices([(1, 2, 3), (1, 1, 3), (1, 2, 2), (3, 2, 1), (2, 1, 3)])
    # A shared place counts an equal share of each order it allows (half of each here).
    assert counted == {
        (0, 2, 1): 2.5,
        (1, 2, -1): 2.0,
        (1, 2, 0): 1.5,
        (0, 2, -1): 1.5,
        (2, 1, 0): 1.0,
        (1, 0, -1): 1.0,
        (2, 1, -1): 0.5,
    }


def drift(r: LadderRatings, results: list[SetResult], every: int) -> list[float]:
    """Rating points between the running estimate and a fit from scratch, every ``every``
    sets (the level aside: both are compared as contrasts against their mean)."""
    out = []
    for g, result in enumerate(results):
        r.add_set(result)
        if g % every == every - 1:
            full = r.full_fit()
            gap = (r.theta - r.theta.mean()) - (full - full.mean())
            out.append(float(np.abs(gap).max()) * ELO_SCALE)
    return out


def test_the_running_estimate_stays_near_a_full_fit() -> None:
    results = random_sets(20, 600, seed=1)
    r = LadderRatings()
    r.add_bots(range(20))
    steady = drift(r, results, 25)
    # From 50 sets on (each bot about 7): within a few rating points, where the intervals are
    # about ±150 wide. Earlier, with a bot's first two or three sets, a set can move a
    # rating further than the Gaussian approximation of the older sets foresees.
    assert max(steady[1:]) < 5.0 and steady[-1] < 2.0
    # Without the full fits the per-set updates alone drift further, and less as data grows.
    alone = drift(LadderRatings(refit_every=10**9, growth=math.inf), results, 100)
    assert alone[-1] < alone[0] and max(steady[1:]) < alone[0]


def test_the_table_is_what_arena_standings_shows() -> None:
    results = random_sets(10, 300, seed=2)
    r = LadderRatings()
    for result in results:
        r.add_set(result)
    r.refit()
    mine = {s.bot: s for s in r.standings()}
    names = {b: f"bot{b}" for b in range(10)}
    theirs = compute(Outcomes.build(range(10), rows(results), {}), names)
    # One centre everywhere: the plain mean of the rated bots, in ``arena standings`` as on
    # the ladder, so the two tables agree without any shift.
    for s in theirs:
        m = mine[s.bot]
        assert s.rating is not None and s.rating_low is not None and s.rating_high is not None
        assert m.low is not None and m.high is not None
        # The prior's pull (sd 2 logits, which offsets the estimate's outward bias with few
        # sets): under two points at 90 sets a bot; the interval within three.
        assert m.rating == pytest.approx(s.rating, abs=2.0)
        assert m.low == pytest.approx(s.rating_low, abs=3.0)
        assert m.high == pytest.approx(s.rating_high, abs=3.0)
        assert m.sets == s.units
    assert [s.bot for s in r.standings()] == [s.bot for s in theirs]


def test_1500_is_the_plain_mean_of_the_rated_bots_however_the_sets_fall() -> None:
    """Sets piled on the top three bots make them the best measured; a centre weighted by
    information would follow them, the ladder's stays the plain mean of the rated bots."""
    r = LadderRatings()
    for result in random_sets(12, 60, seed=3):
        r.add_set(result)
    top = sorted(range(12), key=lambda b: -r.theta[r.index[b]])[:3]
    for result in random_sets(3, 400, seed=4):
        r.add_set(SetResult(tuple(top[b] for b in result.bots), result.places))  # type: ignore[arg-type]
    r.add_bots([12])  # a bot without sets: not rated, not in the centre
    lines = [s for s in r.standings() if s.sets >= 2]
    assert len(lines) == 12
    assert sum(s.rating for s in lines) / len(lines) == pytest.approx(BASE, abs=1e-6)
    weighted = float(r.info[:12] @ r.theta[:12] / r.info[:12].sum())
    plain = float(r.theta[:12].mean())
    assert abs(weighted - plain) * ELO_SCALE > 10  # the weighted centre would have moved


def test_a_bot_is_rated_from_its_first_set_and_shown_with_an_interval_from_its_second() -> None:
    r = LadderRatings()
    r.add_bots(range(6))
    for result in random_sets(6, 60, seed=3):
        r.add_set(result)
    r.add_set(SetResult((6, 0, 1), ((3, 1, 2),) * 6))  # a new bot that lost everything
    (line,) = r.standings([6])
    assert line.sets == 1 and line.low is None and line.high is None
    assert line.rating < min(s.rating for s in r.standings() if s.bot != 6)
    r.add_set(SetResult((6, 2, 3), ((3, 1, 2),) * 6))
    (line,) = r.standings([6])
    assert line.low is not None and line.high is not None and line.low < line.rating < line.high


def test_a_set_of_fewer_than_three_bots_is_refused_and_counts_nothing() -> None:
    r = LadderRatings()
    r.add_bots(range(3))
    with pytest.raises(ValueError, match="three different bots"):
        r.add_set(SetResult((0, 0, 1), ((1, 2, 3),)))
    assert r.set_count == 0


def test_each_sets_share_of_the_interval_is_what_leaving_it_out_moves() -> None:
    """The robust interval sums, per set, what leaving that set out would move the ratings
    (the jackknife form of the sandwich): checked against real refits without the set. The
    plain score misses a set's own leverage, which matters where a bot has few sets."""

    def fit(results: list[SetResult]) -> LadderRatings:
        r = LadderRatings()
        r.add_bots(range(8))
        for res in results:
            r.add_set(res)
        r.refit()
        return r

    results = random_sets(8, 40, 2)
    r = fit(results)
    jackknife, plain = r._jackknife_scores(), r._scores()
    for g in (0, 5, 17, 33):
        moved = r.theta - fit(results[:g] + results[g + 1 :]).theta
        t = np.asarray([r.index[b] for b in results[g].bots])
        miss = np.abs(moved - r.cov[:, t] @ jackknife[g]).max()
        assert miss < np.abs(moved - r.cov[:, t] @ plain[g]).max()
        assert miss < 0.1 * np.abs(moved).max()


def test_an_interval_has_the_degrees_of_freedom_of_the_bots_own_sets() -> None:
    """Student t with the bot's own sets less one, as ``arena standings``: a bot with three
    sets in a ladder of hundreds shows a far wider interval than ±1.96 robust sds (with the
    ladder's G - 1 degrees of freedom a large young ladder's intervals held 0.89)."""
    from scipy import stats

    r = LadderRatings()
    for result in random_sets(12, 200, seed=4):
        r.add_set(result)
    for result in random_sets(3, 3, seed=5):  # a new bot, 12, in three sets
        r.add_set(SetResult((12, *result.bots[1:]), result.places))
    w = r.centre()
    for bot in (12, 0):
        cols = np.asarray([r.index[bot]])
        _, robust, g = r._robust(cols, w)
        (line,) = r.standings([bot])
        assert line.low is not None and line.high is not None
        half = (line.high - line.low) / 2 / ELO_SCALE
        own = int(r.sets[cols[0]])
        assert half == pytest.approx(stats.t.ppf(0.975, own - 1) * math.sqrt(robust[0]))
        assert g > 100 and (own == 3) == (bot == 12)
