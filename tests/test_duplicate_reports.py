"""Duplicate-play reports: duplicate score, seat and dealer bias, cycles; hand-computed cases."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from compare_support import store_small_tournament
from hypothesis import given, settings
from hypothesis import strategies as st
from site_support import store_tournament

from arena.engine import first_dealer
from arena.stats.duplicate import (
    SeatRecord,
    cluster_mean,
    cycles,
    duplicate_scores,
    seat_bias,
    seat_records,
)
from arena.stats.vocabulary import Interval
from arena.store import Store
from arena.views.reports import Reports

T1 = 12.706204736174698  # Student's t quantile 0.975 with 1 degree of freedom (tables)


def match(
    mid: str, deal: str, bots: tuple[int, int, int], points: tuple[int, int, int],
    places: tuple[int, int, int] = (1, 2, 3), first_dealer: int | None = 0,
) -> list[SeatRecord]:  # fmt: skip
    return [SeatRecord(mid, deal, s, bots[s], points[s], places[s], first_dealer) for s in range(3)]


# Two deals, two seatings each (bot 3 keeps seat 2, so its cells have no par).
SMALL = [
    *match("x1", "x", (1, 2, 3), (10, 4, 6)),
    *match("x2", "x", (2, 1, 3), (7, 3, 10)),
    *match("y1", "y", (1, 2, 3), (2, 10, 5)),
    *match("y2", "y", (2, 1, 3), (10, 6, 1)),
]


def test_duplicate_score_by_hand() -> None:
    # Cell (x, seat 0): bot 1 scored 10, bot 2 7 -> par 8.5: bot 1 +1.5, bot 2 -1.5.
    # (x, 1): bot 2 4, bot 1 3 -> par 3.5: bot 2 +0.5, bot 1 -0.5.
    # (y, 0): bot 1 2, bot 2 10 -> par 6: -4, +4.   (y, 1): bot 2 10, bot 1 6 -> par 8: +2, -2.
    # Bot 1: deal sums x = +1, y = -6 over 2 seats each: mean -5/4. Residuals +3.5, -3.5:
    # variance 2/1 * (3.5^2 + 3.5^2) / 4^2 = 3.0625, standard error 1.75.
    scores = {d.bot: d for d in duplicate_scores(SMALL)}
    assert set(scores) == {1, 2}  # bot 3 alone in seat 2: no par
    one = scores[1]
    assert one.matches == 4
    assert one.score.value == pytest.approx(-1.25)
    assert one.score.variance == pytest.approx(3.0625)
    assert one.score.low == pytest.approx(-1.25 - T1 * 1.75)
    assert one.score.high == pytest.approx(-1.25 + T1 * 1.75)
    # Raw points of bot 1: x 10 + 3 = 13, y 2 + 6 = 8; mean 21/4; residuals +2.5, -2.5.
    assert one.points.value == pytest.approx(5.25)
    assert one.points.variance == pytest.approx(2 * 12.5 / 16)
    # Luck share: bot 1's points (10, 3, 2, 6) against the other bot's on the same cards
    # (7, 4, 10, 10): co-moment -0.75, second moment 38.75 (by hand).
    assert one.luck == pytest.approx((-0.75, 38.75))
    assert one.luck_share == pytest.approx(-0.75 / 38.75)
    assert scores[2].score.value == pytest.approx(1.25)
    assert [d.bot for d in duplicate_scores(SMALL)] == [2, 1]  # best first


SEATINGS = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 10), min_size=3, max_size=3), min_size=2, max_size=6),
    st.lists(st.integers(-3, 3), min_size=3, max_size=3),
)
def test_card_luck_cancels_exactly(luck: list[list[int]], skill: list[int]) -> None:
    # Points = the luck of the seat's cards in that deal + the bot's skill: complete duplicate
    # sets recover each bot's skill minus the set's mean skill, whatever the luck.
    records = []
    for d, seat_luck in enumerate(luck):
        for k, perm in enumerate(SEATINGS):
            bots = (perm[0], perm[1], perm[2])
            pts = tuple(seat_luck[s] + skill[bots[s]] for s in range(3))
            records += match(f"{d}/{k}", f"deal{d}", bots, pts)
    mean_skill = sum(skill) / 3
    for score in duplicate_scores(records):
        assert score.score.value == pytest.approx(skill[score.bot] - mean_skill)
        assert score.score.variance == pytest.approx(0, abs=1e-12)
        assert score.matches == 6 * len(luck)


def luck_tournament(
    luck: float, deals: int = 600, seed: int = 28, zero_sum: bool = False
) -> list[SeatRecord]:
    """Complete duplicate sets of three bots: points = skill + the luck of the seat's cards
    in that deal (standard deviation ``luck``) + the match's own noise (standard deviation 1;
    with ``zero_sum``, each seat's minus the match's mean: what one seat gains another loses,
    variance 2/3)."""
    rng = random.Random(seed)
    records = []
    for d in range(deals):
        cards = [rng.gauss(0, luck) for _ in range(3)]
        for k, perm in enumerate(SEATINGS):
            noise = [rng.gauss(0, 1) for _ in range(3)]
            if zero_sum:
                noise = [e - sum(noise) / 3 for e in noise]
            pts = tuple(cards[s] + perm[s] + noise[s] for s in range(3))
            records += match(f"{d}/{k}", f"deal{d}", perm, pts)  # type: ignore[arg-type]
    return records


def pooled_share(records: list[SeatRecord]) -> float:
    scores = duplicate_scores(records)
    reports = Reports({}, tuple(scores), seat_bias([]), ())
    share = reports.luck_share
    assert share is not None
    return share


@pytest.mark.parametrize("zero_sum", [False, True])
def test_the_luck_share_is_zero_without_luck_and_the_cards_share_with_it(zero_sum: bool) -> None:
    # No luck: the par removes nothing, read as 0, in a zero-sum game too (the variance ratio
    # this replaced read 0.667 there).
    noise = 2 / 3 if zero_sum else 1.0
    assert pooled_share(luck_tournament(0, zero_sum=zero_sum)) == pytest.approx(0, abs=0.04)
    # Seat luck of variance L^2 beside the noise: the cards' share is L^2 / (L^2 + noise).
    for luck in (0.5, 1.0):
        expected = luck**2 / (luck**2 + noise)
        got = pooled_share(luck_tournament(luck, zero_sum=zero_sum))
        assert got == pytest.approx(expected, abs=0.04)


def test_cluster_mean_needs_two_deals() -> None:
    one = cluster_mean([7.0], [2.0])
    assert one.value == 3.5 and one.interval is None and one.low is None and one.units == 1
    with pytest.raises(ValueError):
        cluster_mean([], [])


# --- seat and dealer bias ---------------------------------------------------------------------


def test_seat_bias_by_hand() -> None:
    records = [
        # Deal x, first dealer seat 0: positions = seats.
        *match("x1", "x", (1, 2, 3), (10, 5, 0), places=(1, 2, 3), first_dealer=0),
        *match("x2", "x", (2, 1, 3), (6, 10, 2), places=(2, 1, 3), first_dealer=0),
        # Deal y, first dealer seat 2: seat 2 is position 0, seat 0 position 1, seat 1 position 2.
        *match("y1", "y", (1, 2, 3), (3, 10, 8), places=(3, 1, 2), first_dealer=2),
        *match("y2", "y", (2, 1, 3), (10, 1, 4), places=(1, 3, 2), first_dealer=2),
    ]
    bias = seat_bias(records)
    by = {p.position: p for p in bias.positions}
    # Places by position: 0 -> x: 1, 2; y: 2, 2 = 7/4. 1 -> x: 2, 1; y: 3, 1 = 7/4.
    # 2 -> x: 3, 3; y: 1, 3 = 10/4. Every match's mean place is 2.
    assert by[0].place.value == pytest.approx(1.75)
    assert by[1].place.value == pytest.approx(1.75)
    assert by[2].place.value == pytest.approx(2.5)
    assert by[2].edge.value == pytest.approx(0.5)
    # Edge of position 2 per deal: x (1 + 1) = 2, y (-1 + 1) = 0 over 2 seats: residuals +1,
    # -1, variance 2 * 2 / 16 = 0.25, standard error 0.5.
    assert by[2].edge.variance == pytest.approx(0.25)
    assert by[2].edge.low == pytest.approx(0.5 - T1 * 0.5)
    # Points by position: 0 -> 10, 6, 8, 4 = 7; 1 -> 5, 10, 3, 10 = 7; 2 -> 0, 2, 10, 1.
    assert by[0].points.value == pytest.approx(7)
    assert by[2].points.value == pytest.approx(13 / 4)
    assert bias.favoured == () and bias.disfavoured == ()
    assert bias.verdict.startswith("no seat position is favoured")
    assert [p.name for p in bias.positions] == ["dealer", "dealer's left", "dealer's right"]


def test_a_real_seat_advantage_is_called() -> None:
    records = []
    for d in range(30):
        dealer = d % 3
        for k, perm in enumerate(SEATINGS):
            # The dealer's left wins most matches, the dealer's right comes last most often,
            # the dealer averages second.
            patterns = ((1, 2, 3), (3, 2, 1), (2, 1, 3), (2, 1, 3), (2, 1, 3))
            by_position = patterns[(d + k) % 5]
            places = (
                by_position[-dealer % 3],
                by_position[(1 - dealer) % 3],
                by_position[(2 - dealer) % 3],
            )
            records += match(f"{d}/{k}", f"d{d}", perm, (0, 0, 0), places, dealer)
    bias = seat_bias(records)
    assert bias.favoured == (1,)
    assert bias.disfavoured == (2,)
    assert "favours the dealer's left" in bias.verdict
    assert "is hard on the dealer's right" in bias.verdict
    assert bias.to_dict()["favoured"] == ["dealer's left"]


def test_unknown_first_dealer_is_left_out() -> None:
    records = match("m", "d", (1, 2, 3), (1, 2, 3), first_dealer=None)
    assert seat_bias(records).positions == ()
    assert seat_bias(records).verdict == "no matches with a known first dealer"


# --- cycles -----------------------------------------------------------------------------------


def _table(pairs: dict) -> dict:
    """A pairwise table of intervals from ``(low, high)`` pairs (None: no interval)."""
    return {k: None if v is None else Interval(*v) for k, v in pairs.items()}


def test_a_significant_triangle_is_found_once() -> None:
    table = _table(
        {
            ("A", "B"): (0.55, 0.65),
            ("B", "C"): (0.52, 0.60),
            ("C", "A"): (0.51, 0.70),
            ("B", "A"): (0.35, 0.45),  # the same edge from the other side
            ("A", "D"): (0.6, 0.7),
        }
    )
    (cycle,) = cycles(table)
    assert cycle.bots == ("A", "B", "C")
    assert cycle.intervals == (Interval(0.55, 0.65), Interval(0.52, 0.60), Interval(0.51, 0.70))
    assert cycle.to_dict()["intervals"] == [[0.55, 0.65], [0.52, 0.6], [0.51, 0.7]]


@pytest.mark.parametrize(
    "c_over_a",
    [(0.45, 0.70), (float("nan"), float("nan")), None, (0.2, 0.4)],
    ids=["not-significant", "nan", "none", "a-beats-c"],
)
def test_no_cycle_without_every_edge_significant(c_over_a: tuple | None) -> None:
    table = _table({("A", "B"): (0.55, 0.65), ("B", "C"): (0.52, 0.60), ("C", "A"): c_over_a})
    assert cycles(table) == []


def test_edges_read_from_either_direction_and_longer_cycles() -> None:
    # 1 > 2 > 3 > 4 > 1, given only as the loser's view of two edges; 1 vs 3 undecided.
    table = _table(
        {
            (1, 2): (0.6, 0.7),
            (3, 2): (0.3, 0.4),
            (3, 4): (0.6, 0.7),
            (1, 4): (0.2, 0.45),
            (1, 3): (0.45, 0.55),
        }
    )
    assert cycles(table) == []
    (four,) = cycles(table, max_length=4)
    assert four.bots == (1, 2, 3, 4)
    two_three = four.intervals[1]  # 2 over 3 = 1 - (3 over 2)
    assert (two_three.low, two_three.high) == pytest.approx((0.6, 0.7))
    assert (four.intervals[3].low, four.intervals[3].high) == pytest.approx((0.55, 0.8))


# --- from a real database ---------------------------------------------------------------------


def test_reports_from_a_small_database(tmp_path: Path) -> None:
    store_small_tournament(tmp_path / "arena.db")
    store = Store(tmp_path / "arena.db")
    records = seat_records(store.duplicate_seats("t1"))
    assert len(records) == 12
    assert {r.unit for r in records} == {"1,2,3/0", "1,2,3/1"}
    assert {(r.match_id, r.first_dealer) for r in records} == {
        ("x1", 0), ("x2", 0), ("y1", 2), ("y2", 2),
    }  # fmt: skip
    # The same matches as SMALL: the same hand-computed duplicate scores.
    scores = {d.bot: d for d in duplicate_scores(records)}
    assert scores[1].score.value == pytest.approx(-1.25)
    assert scores[1].score.variance == pytest.approx(3.0625)
    bias = seat_bias(records)
    assert sum(p.matches for p in bias.positions) == 12
    assert all(not math.isnan(p.place.value) for p in bias.positions)
    store.close()


def test_reports_from_a_played_tournament(tmp_path: Path) -> None:
    # Real engine matches of four bots, two rounds, stored through the Store.
    db = tmp_path / "arena.db"
    tid = store_tournament(db, [("a", None), ("b", None), ("c", None), ("d", None)], rounds=2)
    with Store(db) as store:
        records = seat_records(store.duplicate_seats(tid))
        seeds = {m.id: m.seed for m in store.match_rows()}
    assert len(records) == 3 * 4 * 2 * 6
    assert len({r.unit for r in records}) == 8
    # The first dealer is the engine's, drawn from the match seed alone.
    assert all(r.first_dealer == first_dealer(seeds[r.match_id]) for r in records)
    scores = duplicate_scores(records)
    assert len(scores) == 4 and all(s.matches == 3 * 2 * 6 for s in scores)
    # Each (deal, seat) is held twice by each of its three bots: the pars cancel out.
    assert sum(s.score.value for s in scores) == pytest.approx(0, abs=1e-9)
    assert all(s.score.low is not None and s.score.low <= s.score.value for s in scores)
    bias = seat_bias(records)
    assert [p.matches for p in bias.positions] == [48, 48, 48]  # one seat of each match
    assert sum(p.edge.value for p in bias.positions) == pytest.approx(0, abs=1e-9)
