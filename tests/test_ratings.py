"""Ratings: Plackett-Luce choices counted per duplicate unit, the fit (checked against choix),
cluster-robust intervals, pairwise rates, the JSON and the stored rows."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from pathlib import Path

import choix
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ratings_support import tournament

from arena.engine import placements
from arena.stats import (
    BASE,
    Outcomes,
    SeatResult,
    compute,
    from_rows,
    order_choices,
    to_json,
    to_rows,
    top1_choices,
)
from arena.stats.outcomes import tally
from arena.stats.vocabulary import effective_matches, rate_interval, wilson
from arena.store import Store


@pytest.mark.parametrize(
    ("places", "choices"),
    [
        pytest.param([(0, 1), (1, 2), (2, 3)], [(0, (1, 2)), (1, (2,))], id="strict"),
        pytest.param([(5, 3), (6, 1), (7, 2)], [(6, (7, 5)), (7, (5,))], id="any-order"),
        pytest.param([(0, 1), (1, 2), (2, 2)], [(0, (1, 2))], id="tie-for-second"),
        pytest.param([(0, 1), (1, 1), (2, 3)], [], id="shared-first"),
        pytest.param([(0, 1), (1, 1), (2, 1)], [], id="all-tied"),
    ],
)
def test_top1_choices(places: list[tuple[int, int]], choices: list) -> None:
    got = top1_choices(places)
    assert [(w, sorted(rest)) for w, rest in got] == [(w, sorted(rest)) for w, rest in choices]


@given(st.lists(st.integers(0, 12), min_size=3, max_size=3))
def test_top1_choices_follow_the_placing(scores: list[int]) -> None:
    places = list(enumerate(placements(scores)))
    choices = top1_choices(places)
    place = dict(places)
    for chosen, rest in choices:
        # Each choice picks one seat over seats placed strictly behind it.
        assert rest and all(place[chosen] < place[o] for o in rest)
    # Strict: first of three, then second of two. A shared first place carries no choice at
    # all; a shared second place only the first.
    top_tied = scores.count(max(scores)) > 1
    expected = {3: 2, 2: 0 if top_tied else 1, 1: 0}[len(set(scores))]
    assert len(choices) == expected


@pytest.mark.parametrize(
    ("places", "choices"),
    [
        pytest.param([(0, 1), (1, 2), (2, 3)], [(0, (1, 2), 1.0), (1, (2,), 1.0)], id="strict"),
        pytest.param(
            [(0, 1), (1, 1), (2, 3)],
            [(0, (1, 2), 0.5), (1, (2,), 0.5), (1, (0, 2), 0.5), (0, (2,), 0.5)],
            id="shared-first",
        ),
        pytest.param(
            [(0, 1), (1, 2), (2, 2)],
            [(0, (1, 2), 1.0), (1, (2,), 0.5), (2, (1,), 0.5)],
            id="shared-second",
        ),
        pytest.param(
            [(0, 1), (1, 1), (2, 1)],
            [(w, tuple(r), 1 / 3) for w, r in ((0, (1, 2)), (1, (0, 2)), (2, (0, 1)))]
            + [(w, (r,), 1 / 6) for w, r in itertools.permutations(range(3), 2)],
            id="all-tied",
        ),
    ],
)
def test_a_shared_place_counts_an_equal_share_of_each_order(
    places: list[tuple[int, int]], choices: list
) -> None:
    got = Counter()
    for w, rest, share in order_choices(places):
        got[(w, tuple(sorted(rest)))] += share
    want = Counter()
    for w, rest, share in choices:
        want[(w, tuple(sorted(rest)))] += share
    assert set(got) == set(want)
    assert all(got[k] == pytest.approx(want[k]) for k in want)
    # Each match counts once: its first-of-three choices weigh 1 in all.
    assert sum(s for _, rest, s in order_choices(places) if len(rest) == 2) == pytest.approx(1)


@given(
    st.lists(
        st.tuples(st.permutations([0, 1, 2, 3]))
        .map(lambda t: t[0][:3])
        .flatmap(
            lambda bots: st.tuples(
                st.just(bots), st.lists(st.integers(0, 10), min_size=3, max_size=3)
            )
        ),
        min_size=1,
        max_size=30,
    )
)
def test_counted_choices_are_the_listed_ones(matches: list) -> None:
    """The vectorised tally counts exactly the choices order_choices lists, match by match
    (top1_choices' strict ones when nothing is shared)."""
    rows = [(f"u{k % 4}", *bots, *placements(scores)) for k, (bots, scores) in enumerate(matches)]
    t = tally(Outcomes.build(range(4), rows, {}))
    counted = Counter()
    for members, n in zip(t.members, t.choice_totals(), strict=True):
        counted[(int(members[0]), tuple(sorted(int(m) for m in members[1:] if m >= 0)))] += n
    listed: Counter = Counter()
    for _, b0, b1, b2, p0, p1, p2 in rows:
        seats = [(b0, p0), (b1, p1), (b2, p2)]
        if len({p0, p1, p2}) == 3:
            assert [(w, r, 1.0) for w, r in top1_choices(seats)] == order_choices(seats)
        for w, rest, share in order_choices(seats):
            listed[(w, tuple(sorted(rest)))] += share
    assert set(+counted) == set(listed)
    assert all(counted[k] == pytest.approx(v) for k, v in listed.items())


def test_the_fit_is_choix_maximum_likelihood() -> None:
    seats = tournament({1: 4.0, 2: 2.0, 3: 1.0, 4: 0.5, 5: 0.7}, rounds=6, seed=2)
    table = compute(seats, {b: f"b{b}" for b in range(1, 6)})
    by_match: dict[str, list[SeatResult]] = {}
    for s in seats:
        by_match.setdefault(s.match_id, []).append(s)
    data = [
        c
        for three in by_match.values()
        for c in top1_choices([(s.bot - 1, s.place) for s in three])
    ]
    ref = np.asarray(choix.ilsr_top1(5, data, alpha=0.0, tol=1e-12, max_iter=1000))
    ours = np.asarray([next(s.rating for s in table if s.bot == b) for b in range(1, 6)])
    # Same differences: the scale is 400·log10(e) rating points per unit of log-strength.
    scale = 400 / math.log(10)
    assert np.allclose(ours - ours.mean(), scale * (ref - ref.mean()), atol=1e-5)


def test_the_fit_ranks_bots_by_strength_and_scales_like_elo() -> None:
    strength = {1: 4.0, 2: 2.0, 3: 1.0, 4: 0.5}
    table = compute(tournament(strength, rounds=30, seed=1), {b: f"b{b}" for b in strength})
    assert [s.bot for s in table] == [1, 2, 3, 4]
    assert [s.rank for s in table] == [1, 2, 3, 4]
    # Each step halves the strength: 400*log10(2) = 120 rating points apart.
    gaps = [a.rating - b.rating for a, b in itertools.pairwise(table)]
    assert all(80 < g < 160 for g in gaps), gaps
    # The centre: the rated bots' plain mean is 1500, each with an equal weight.
    assert sum(s.weight for s in table) == pytest.approx(1.0)
    assert all(s.weight == pytest.approx(1 / len(table)) for s in table)
    assert sum(s.rating for s in table) / len(table) == pytest.approx(BASE, abs=1e-9)
    for s in table:
        assert s.rating_low < s.rating < s.rating_high
        assert s.matches == 30 * 3 * 6 and s.units == 30 * 3  # in 3 of the 4 sets


def test_intervals_count_a_duplicate_unit_once() -> None:
    # The same placings, once grouped into (set, round) units and once with each match its
    # own unit. Within a unit the six seatings are perfect copies, so the honest interval
    # is much wider than one that pretends the 6x as many matches were independent.
    strength = {1: 2.0, 2: 1.0, 3: 1.0, 4: 0.5}
    seats = tournament(strength, rounds=8, seed=3, correlated=True)
    names = {b: str(b) for b in strength}
    grouped = {s.name: s.rating_high - s.rating_low for s in compute(seats, names)}
    loose = [SeatResult(s.match_id, s.match_id, s.bot, s.place, s.faulted) for s in seats]
    naive = {s.name: s.rating_high - s.rating_low for s in compute(loose, names)}
    for name in names.values():
        assert grouped[name] > 1.8 * naive[name], (grouped, naive)


def test_standings_do_not_depend_on_the_order_of_the_seats() -> None:
    seats = tournament({1: 1.0, 2: 1.0, 3: 1.0}, rounds=4, seed=5)
    one = compute(seats, {1: "a", 2: "b", 3: "c"})
    two = compute(list(reversed(seats)), {1: "a", 2: "b", 3: "c"})
    assert [s.name for s in one] == [s.name for s in two]
    assert [(s.rating, s.rating_low, s.rating_high) for s in one] == [
        pytest.approx((s.rating, s.rating_low, s.rating_high)) for s in two
    ]


def test_counts_and_pairwise_rates_with_ties_and_faults() -> None:
    seats = [
        # m1: a first, b second, c faulted (last)
        SeatResult("m1", "u1", 1, 1, False),
        SeatResult("m1", "u1", 2, 2, False),
        SeatResult("m1", "u1", 3, 3, True),
        # m2: c first, a and b share second
        SeatResult("m2", "u2", 1, 2, False),
        SeatResult("m2", "u2", 2, 2, False),
        SeatResult("m2", "u2", 3, 1, False),
    ]
    table = {s.name: s for s in compute(seats, {1: "a", 2: "b", 3: "c"})}
    a, c = table["a"], table["c"]
    assert (a.matches, a.wins, a.mean_place, a.faults, a.units) == (2, 1, 1.5, 0, 2)
    assert (c.matches, c.wins, c.mean_place, c.faults) == (2, 1, 2.0, 1)
    assert a.above[2].rate == pytest.approx(0.75)  # above b once, tied once (half)
    assert a.above[2].matches == 2 and a.above[2].units == 2
    assert a.above[3].rate == pytest.approx(0.5)
    assert table["b"].above[1].rate == pytest.approx(0.25)
    for s in table.values():
        for p in s.above.values():
            assert p.low is not None and p.high is not None
            assert 0.0 <= p.low < p.rate < p.high <= 1.0


@pytest.mark.parametrize(
    ("x", "n", "low", "high"),
    [
        # Published values (Wilson 1927; e.g. Newcombe 1998, table I).
        pytest.param(0, 10, 0.0, 0.2775, id="none-of-10"),
        pytest.param(10, 10, 0.7225, 1.0, id="all-of-10"),
        pytest.param(81, 263, 0.2553, 0.3662, id="81-of-263"),
        pytest.param(15, 148, 0.0624, 0.1605, id="15-of-148"),
    ],
)
def test_wilson_interval_matches_published_values(x: int, n: int, low: float, high: float) -> None:
    got = wilson(x / n, n, 1.959964)
    assert got == pytest.approx((low, high), abs=1e-4)


@pytest.mark.parametrize("rate", [0.0, 0.5, 1.0])
def test_a_rate_interval_never_has_zero_width(rate: float) -> None:
    # Every unit scored the same (always above, all ties, never above): no spread at all.
    interval = rate_interval(rate, 0.0, units=10, matches=60, pooled_deff=1.0)
    assert interval is not None
    assert interval.low < interval.high and interval.contains(rate) and interval.level == 0.95
    assert math.isfinite(effective_matches(rate, 0.0, units=10, matches=60, pooled_deff=1.0))
    # One unit says nothing about its own spread: no interval.
    assert rate_interval(rate, 0.0, units=1, matches=6, pooled_deff=1.0) is None


def test_json_has_the_documented_keys() -> None:
    seats = tournament({1: 2.0, 2: 1.0, 3: 1.0}, rounds=2, seed=1)
    rows = to_json(compute(seats, {1: "a", 2: "b", 3: "c"}), {1: (1, "ab12")})
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert {r["bot_version_id"]: (r["version"], r["sha256"]) for r in rows} == {
        1: (1, "ab12"),
        2: (None, None),
        3: (None, None),
    }
    for r in rows:
        assert {"name", "matches", "wins", "mean_place", "faults", "rating"} <= set(r)
        assert {"low", "high", "bound", "units", "rank"} <= set(r)
        assert set(r["placed_above"]) == {"a", "b", "c"} - {r["name"]}
        for p in r["placed_above"].values():
            assert set(p) == {"matches", "rate", "low", "high", "units"}


def test_stored_standings_read_back_the_same(tmp_path: Path) -> None:
    seats = tournament({1: 3.0, 2: 1.0, 3: 1.0, 4: 0.5}, rounds=3, seed=4, special={5: "lose"})
    names = {1: "a", 2: "b", 3: "c", 4: "d", 5: "loser", 6: "unplayed"}
    table = compute(seats, names)
    with Store(tmp_path / "s.db") as store:
        store.write_standings("t1", *to_rows("t1", table, "2026-11-30T09:00:00Z"))
        back = from_rows(*store.read_standings("t1"))
    assert to_json(back, {}) == to_json(table, {})
