"""Ratings: Plackett-Luce top-1 choices, the fit, bootstrap over duplicate sets, pairwise."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.engine import placements
from arena.ratings import BASE, SeatResult, compute, to_json, top1_choices


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


def plackett_luce_tournament(
    strength: dict[int, float], rounds: int, seed: int, correlated: bool = False
) -> list[SeatResult]:
    """Matches sampled from a Plackett-Luce model, six seatings per set and round.

    With ``correlated`` the six seatings of a unit copy one sampled placing (the extreme case
    of duplicate deals: luck shared by the whole set).
    """
    rng = random.Random(seed)
    out = []

    def sample(members: tuple[int, ...]) -> list[int]:
        left, order = list(members), []
        while left:
            pick = rng.choices(left, [strength[b] for b in left])[0]
            order.append(pick)
            left.remove(pick)
        return order

    for rnd in range(rounds):
        for members in itertools.combinations(sorted(strength), 3):
            shared = sample(members)
            for k, perm in enumerate(itertools.permutations(members)):
                order = shared if correlated else sample(members)
                for b in perm:
                    out.append(
                        SeatResult(
                            f"{members}/{rnd}/{k}", f"{members}/{rnd}", b, order.index(b) + 1, False
                        )
                    )
    return out


def test_the_fit_ranks_bots_by_strength_and_scales_like_elo() -> None:
    strength = {1: 4.0, 2: 2.0, 3: 1.0, 4: 0.5}
    seats = plackett_luce_tournament(strength, rounds=30, seed=1)
    table = compute(seats, {b: f"b{b}" for b in strength}, bootstrap=100)
    assert [s.bot for s in table] == [1, 2, 3, 4]
    assert [s.rank for s in table] == [1, 2, 3, 4]
    # Each step halves the strength: 400*log10(2) = 120 rating points apart.
    gaps = [a.rating - b.rating for a, b in itertools.pairwise(table)]
    assert all(80 < g < 160 for g in gaps), gaps
    assert sum(s.rating for s in table) / 4 == pytest.approx(BASE)
    for s in table:
        assert s.rating_low < s.rating < s.rating_high
        assert s.matches == 30 * 3 * 6  # each bot is in 3 of the 4 sets


def test_the_bootstrap_resamples_whole_duplicate_sets() -> None:
    # The same placings, once grouped into (set, round) units and once with each match its
    # own unit. Within a unit the six seatings are perfect copies, so the honest interval
    # is much wider than one that pretends the 6x as many matches were independent.
    strength = {1: 2.0, 2: 1.0, 3: 1.0, 4: 0.5}
    seats = plackett_luce_tournament(strength, rounds=8, seed=3, correlated=True)
    names = {b: str(b) for b in strength}
    grouped = {s.name: s.rating_high - s.rating_low for s in compute(seats, names, bootstrap=100)}
    loose = [SeatResult(s.match_id, s.match_id, s.bot, s.place, s.faulted) for s in seats]
    naive = {s.name: s.rating_high - s.rating_low for s in compute(loose, names, bootstrap=100)}
    for name in names.values():
        assert grouped[name] > 1.8 * naive[name], (grouped, naive)


def test_standings_are_reproducible() -> None:
    seats = plackett_luce_tournament({1: 1.0, 2: 1.0, 3: 1.0}, rounds=4, seed=5)
    one = compute(seats, {1: "a", 2: "b", 3: "c"})
    two = compute(list(reversed(seats)), {1: "a", 2: "b", 3: "c"})
    assert [(s.name, s.rating, s.rating_low, s.rating_high) for s in one] == [
        (s.name, s.rating, s.rating_low, s.rating_high) for s in two
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
    assert (a.matches, a.wins, a.mean_place, a.faults) == (2, 1, 1.5, 0)
    assert (c.matches, c.wins, c.mean_place, c.faults) == (2, 1, 2.0, 1)
    assert a.above[2]["rate"] == pytest.approx(0.75)  # above b once, tied once (half)
    assert a.above[2]["matches"] == 2
    assert a.above[3]["rate"] == pytest.approx(0.5)
    assert table["b"].above[1]["rate"] == pytest.approx(0.25)
    for s in table.values():
        for p in s.above.values():
            assert 0.0 <= p["low"] <= p["rate"] <= p["high"] <= 1.0


def test_a_bot_without_matches_keeps_the_base_rating() -> None:
    seats = plackett_luce_tournament({1: 2.0, 2: 1.0, 3: 1.0}, rounds=2, seed=1)
    table = {s.name: s for s in compute(seats, {1: "a", 2: "b", 3: "c", 4: "new"})}
    new = table["new"]
    assert (new.matches, new.mean_place, new.above) == (0, None, {})
    assert new.rating_low == new.rating == new.rating_high


def test_json_has_the_contract_keys() -> None:
    seats = plackett_luce_tournament({1: 2.0, 2: 1.0, 3: 1.0}, rounds=2, seed=1)
    rows = to_json(compute(seats, {1: "a", 2: "b", 3: "c"}), {1: {"version": 1}})
    assert [r["rank"] for r in rows] == [1, 2, 3]
    for r in rows:
        assert {"name", "matches", "wins", "mean_place", "faults", "rating"} <= set(r)
        assert set(r["placed_above"]) == {"a", "b", "c"} - {r["name"]}


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
