"""The cases a real ladder meets every day, on small synthetic tournaments: a bot that always
loses, always faults or always wins; a registered bot without a match; a bot seen in one
duplicate unit; ties everywhere; three bots; a single match. None of them may move the other
bots' numbers beyond their own uncertainty, and none may print a zero-width interval."""

from __future__ import annotations

import dataclasses

import pytest
from ratings_support import Behaviour, tournament

from arena.stats import BotStanding, SeatResult, compute, rating_text, to_json

BASE_BOTS = {1: 3.0, 2: 2.0, 3: 1.0, 4: 0.6}
NAMES = {1: "a", 2: "b", 3: "c", 4: "d", 5: "e", 6: "f"}


def standings(seats: list[SeatResult], bots: set[int]) -> dict[int, BotStanding]:
    return {s.bot: s for s in compute(seats, {b: NAMES[b] for b in bots})}


def assert_within_own_intervals(
    before: dict[int, BotStanding], after: dict[int, BotStanding], bots: set[int]
) -> None:
    """Each bot's new rating lies inside its old interval (its own matches in the new
    tournament are more, so it may move, but only as far as its uncertainty); and the
    centre of the scale is made of the same bots: nobody else entered it."""
    for b in bots:
        x, y = before[b], after[b]
        assert x.rating_low is not None and y.rating_low is not None
        assert x.rating_low <= y.rating <= x.rating_high, (b, x, y)
    for table in (before, after):
        centre = [s for s in table.values() if s.weight > 0]
        assert {s.bot for s in centre} == bots
        assert sum(s.weight * (s.rating - 1500) for s in centre) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("behaviour", ["lose", "fault"])
def test_a_bot_that_always_loses_or_faults_moves_nobody(behaviour: Behaviour) -> None:
    base = set(BASE_BOTS)
    alone = standings(tournament(BASE_BOTS, rounds=12, seed=1), base)
    seats = tournament(BASE_BOTS, rounds=12, seed=1, special={5: behaviour})
    table = standings(seats, base | {5})
    assert_within_own_intervals(alone, table, base)
    broken = table[5]
    # No number that merely reflects a prior: a bound, marked, and the last rank.
    assert broken.rating is None and broken.bound == "upper" and broken.rating_low is None
    assert broken.rating_high is not None
    assert broken.rating_high < min(s.rating_low for s in table.values() if s.bot in base)
    assert broken.rank == 5 and broken.weight == 0.0
    assert rating_text(None, None, broken.rating_high, "upper").startswith("<= ")
    assert broken.faults == (broken.matches if behaviour == "fault" else 0)
    for b in base:  # everybody placed above it every time, and the interval says so
        p = table[b].above[5]
        assert p.rate == 1.0 and p.high == 1.0 and p.low is not None and p.low < 1.0


def test_more_losses_tighten_the_bound_and_move_nobody() -> None:
    """The bound falls as losses pile up (more evidence), the others stay put."""
    short, long = (
        standings(tournament(BASE_BOTS, rounds=r, seed=7, special={5: "lose"}), {1, 2, 3, 4, 5})
        for r in (10, 40)
    )
    assert long[5].rating_high < short[5].rating_high
    assert_within_own_intervals(short, long, set(BASE_BOTS))


def test_a_bot_that_always_wins_gets_a_lower_bound_and_moves_nobody() -> None:
    base = set(BASE_BOTS)
    alone = standings(tournament(BASE_BOTS, rounds=12, seed=2), base)
    table = standings(tournament(BASE_BOTS, rounds=12, seed=2, special={5: "win"}), base | {5})
    assert_within_own_intervals(alone, table, base)
    champ = table[5]
    assert champ.rating is None and champ.bound == "lower" and champ.rank == 1
    assert champ.rating_low is not None and champ.rating_high is None
    assert champ.rating_low > max(s.rating_high for s in table.values() if s.bot in base)


def test_a_bot_without_a_match_has_no_rating_and_changes_nothing() -> None:
    seats = tournament(BASE_BOTS, rounds=5, seed=3)
    alone = compute(seats, {b: NAMES[b] for b in BASE_BOTS})
    table = compute(seats, {b: NAMES[b] for b in (*BASE_BOTS, 6)})
    new = table[-1]
    assert (new.bot, new.matches, new.rank, new.rating, new.rating_low, new.rating_high) == (
        6,
        0,
        None,
        None,
        None,
        None,
    )
    assert new.mean_place is None and new.above == {}
    assert to_json(table[:-1], {}) == to_json(alone, {})  # not one digit moved
    assert "-" == rating_text(new.rating, new.rating_low, new.rating_high, new.bound)


def test_a_bot_seen_in_one_unit_has_no_interval_and_moves_nobody() -> None:
    base = set(BASE_BOTS)
    seats = tournament(BASE_BOTS, rounds=12, seed=4)
    alone = standings(seats, base)
    # Bot 5 plays one set (with bots 1 and 4) in one round: six matches.
    extra = [s for s in tournament({1: 3.0, 4: 0.6, 5: 1.5}, rounds=1, seed=4)]
    table = standings(seats + extra, base | {5})
    once = table[5]
    assert once.units == 1 and once.matches == 6
    assert once.rating_low is None and once.rating_high is None
    assert once.weight == 0.0  # not part of the centre
    assert_within_own_intervals(alone, table, base)
    assert all(p.low is None for p in once.above.values())  # one unit per pair too


def test_ties_everywhere_rate_everyone_equal_and_no_zero_width_interval() -> None:
    # Shared places are evidence of equality: every bot is rated the same, with a two-sided
    # interval (zero spread over units is chance, not certainty: never of zero width).
    seats = tournament({1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}, rounds=5, seed=5, ties=True)
    table = compute(seats, {b: NAMES[b] for b in range(1, 5)})
    for s in table:
        assert (s.rating, s.bound, s.rank) == (pytest.approx(1500.0), None, 1)
        assert s.rating_low is not None and s.rating_high is not None
        assert s.rating_low < 1500.0 < s.rating_high
        for p in s.above.values():
            assert p.rate == 0.5 and p.low is not None and p.high is not None
            assert p.low < 0.5 < p.high


def test_exactly_three_bots() -> None:
    table = compute(tournament({1: 2.0, 2: 1.0, 3: 0.5}, rounds=10, seed=6), NAMES)
    rated = [s for s in table if s.matches]
    assert [s.bot for s in rated] == [1, 2, 3] and [s.rank for s in rated] == [1, 2, 3]
    for s in rated:
        assert s.rating_low < s.rating < s.rating_high and s.units == 10
        for p in s.above.values():
            assert p.units == 10 and p.low < p.rate < p.high
    assert [s.rank for s in table if not s.matches] == [None, None, None]


def test_one_match_ranks_by_place_without_any_interval() -> None:
    seats = [
        SeatResult("m", "u", 1, 2, False),
        SeatResult("m", "u", 2, 1, False),
        SeatResult("m", "u", 3, 3, False),
    ]
    table = compute(seats, {1: "a", 2: "b", 3: "c"})
    # One strict order: every strength is unbounded against the others, so no rating;
    # the order of the match is the order of the table.
    assert [(s.name, s.rank, s.rating) for s in table] == [
        ("b", 1, None),
        ("a", 2, None),
        ("c", 3, None),
    ]
    for s in table:
        assert s.rating_low is None and s.rating_high is None
        assert all(p.low is None and p.high is None for p in s.above.values())


def test_a_tournament_without_matches_rates_and_ranks_nobody() -> None:
    table = compute([], {1: "a", 2: "b", 3: "c"})
    assert [(s.name, s.rank, s.rating, s.matches, s.above) for s in table] == [
        ("a", None, None, 0, {}),
        ("b", None, None, 0, {}),
        ("c", None, None, 0, {}),
    ]


def test_bots_with_only_an_upper_bound_are_ordered_by_their_results_against_each_other() -> None:
    # Bots 5 and 6 never place above a rated bot; 5 always places above 6. Their bounds'
    # values are no estimates (6's came out a point higher): the ranks follow 5's significant
    # win over 6, and two bots that always share last place share a rank.
    seats = tournament(BASE_BOTS, rounds=6, seed=3, special={5: "lose", 6: "lose"})
    ordered = [
        dataclasses.replace(s, place=3)
        if s.bot == 6 and {5, 6} <= {r.bot for r in seats if r.match_id == s.match_id}
        else s
        for s in seats
    ]
    table = standings(ordered, {1, 2, 3, 4, 5, 6})
    assert table[5].bound == table[6].bound == "upper"
    pair = table[5].above[6].interval
    assert pair is not None and pair.above(0.5)
    assert table[5].rank == 5 and table[6].rank == 6
    shared = standings(seats, {1, 2, 3, 4, 5, 6})  # 5 and 6 share last place every time
    assert shared[5].rank == shared[6].rank == 5
