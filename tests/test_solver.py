"""The open-hand solver (arena.solver) against the game state's own rules.

The reference is brute-force minimax over :class:`arena.game.GameState` (``copy``,
``legal_actions``, ``apply``): every line of play, the maker maximising its tricks and the
defenders minimising them. It shares no code with the solver but the card tables, so an
error in the solver's bit layout, follow-suit masks, trick winner, equivalent-card pruning,
alpha-beta windows or transposition table shows up as a different number.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_properties import RULES
from test_game import random_action

from arena.cards import SUITS, deck, effective_suit, trick_winner
from arena.engine import deal_for
from arena.game import GameState
from arena.rules import Rules
from arena.solver import Layout, Solver, layout


def brute_force(state: GameState, maker: int) -> int:
    """The maker's final tricks under perfect play by every seat, by trying every line."""
    if state.is_over():
        return state.tricks_won[maker]
    values = []
    for card in state.legal_actions():
        after = state.copy()
        after.apply(card)
        values.append(brute_force(after, maker))
    return max(values) if state.turn == maker else min(values)


def play_position(seed: int, rules: Rules, plays: int, alone_bias: float = 0.25) -> GameState:
    """A state in the play phase, ``plays`` random cards into the hand (bids at random)."""
    rng = random.Random(seed)
    for hand in range(50):
        state = GameState(deal_for(seed, hand, rules), rules, dealer=(seed + hand) % 3)
        while state.phase != "play" and not state.is_over():
            state.apply(random_action(state, rng, alone_bias))
        if state.is_over():
            continue  # thrown in
        for _ in range(plays):
            players = 3 if state.sitting_out is None else 2
            if len(state.tricks) == 4 and len(state.trick) == players - 1:
                break  # keep at least one decision
            state.apply(random_action(state, rng))
        return state
    raise AssertionError("fifty hands thrown in")


def cards_left(state: GameState) -> int:
    return sum(len(h) for s, h in enumerate(state.hands) if s != state.sitting_out)


# ----- the tables come from arena.cards -----


@pytest.mark.parametrize("size", [24, 25, 32])
@pytest.mark.parametrize("trump", SUITS)
def test_layout_follows_suit_and_wins_tricks_as_arena_cards_says(size: int, trump: str) -> None:
    lay = layout(size, trump)
    assert sorted(lay.cards) == sorted(deck(size)) and layout(size, trump) is lay
    for card in deck(size):
        suit = effective_suit(card, trump)
        assert lay.bit[card] & lay.suit_mask[suit]
        assert lay.block[lay.bit[card]] == lay.suit_mask[suit]
    assert lay.trump_mask == lay.suit_mask[trump] and lay.trump_mask > max(
        m for s, m in lay.suit_mask.items() if s != trump
    )
    # The solver's rule (in the led or trump block, and a higher bit) is the trick winner.
    every = deck(size)
    for first in every:
        led = lay.block[lay.bit[first]]
        for second in every:
            if second == first:
                continue
            b = lay.bit[second]
            solver_says = 1 if b & (led | lay.trump_mask) and b > lay.bit[first] else 0
            assert solver_says == trick_winner([(0, first), (1, second)], trump)


def test_layout_masks_round_trip() -> None:
    lay = Layout(32, "D")
    hand = ["JH", "7D", "AS", "JD"]
    assert sorted(lay.unmask(lay.mask(hand))) == sorted(hand)
    assert lay.unmask(lay.mask(hand))[-2:] == ["JH", "JD"]  # the bowers: the top trumps


# ----- exact values against brute force -----


@settings(max_examples=60, deadline=None)
@given(
    rules=RULES,
    seed=st.integers(0, 2**31),
    plays=st.integers(5, 13),
    alone_bias=st.sampled_from([0.0, 0.5]),
)
def test_solver_equals_brute_force(rules: Rules, seed: int, plays: int, alone_bias: float) -> None:
    state = play_position(seed, rules, plays, alone_bias)
    maker: int = state.maker  # type: ignore[assignment]
    solver = Solver.for_state(state)
    assert solver.solve_state(state) == brute_force(state, maker)
    values = solver.state_values(state)
    assert sorted(values) == sorted(state.legal_actions())
    for card, value in values.items():
        after = state.copy()
        after.apply(card)
        assert value == brute_force(after, maker), card


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_solver_equals_brute_force_from_the_first_lead_of_two_handed_play(seed: int) -> None:
    # A lone defender against the maker: 10 cards, every line of play is cheap enough.
    for k in range(200):
        state = play_position(seed * 1000 + k, Rules(deck=(24, 25, 32)[seed % 3]), 0, 1.0)
        if state.sitting_out is not None:
            break
    assert state.sitting_out is not None and cards_left(state) == 10
    assert Solver.for_state(state).solve_state(state) == brute_force(state, state.maker or 0)


def test_solver_equals_brute_force_on_many_small_positions() -> None:
    # Many positions of up to three tricks: every deck, lone hands, mid-trick.
    rng = random.Random(5)
    checked = 0
    for seed in range(400):
        rules = Rules(deck=(24, 25, 32)[seed % 3])
        state = play_position(seed, rules, rng.randint(6, 14), alone_bias=0.3)
        solver = Solver.for_state(state)
        assert solver.solve_state(state) == brute_force(state, state.maker)  # type: ignore[arg-type]
        checked += 1
    assert checked == 400


# ----- legality, windows, memory -----


def _walk(state: GameState, solver: Solver, rng: random.Random, budget: list[int]) -> None:
    """At every node of (part of) the tree, the solver's legal cards are the state's."""
    if state.is_over() or budget[0] <= 0:
        return
    budget[0] -= 1
    leader = state.trick[0][0] if state.trick else state.turn
    assert solver.legal_cards(state.hands, leader, state.trick) == sorted(
        state.legal_actions(), key=solver.layout.bit.__getitem__
    )
    options = state.legal_actions()
    for card in rng.sample(options, min(2, len(options))):
        after = state.copy()
        after.apply(card)
        _walk(after, solver, rng, budget)


@settings(max_examples=25, deadline=None)
@given(rules=RULES, seed=st.integers(0, 2**31), alone_bias=st.sampled_from([0.0, 0.5]))
def test_legal_cards_equal_the_states_at_every_node(
    rules: Rules, seed: int, alone_bias: float
) -> None:
    state = play_position(seed, rules, 0, alone_bias)
    _walk(state, Solver.for_state(state), random.Random(seed), [300])


@settings(max_examples=30, deadline=None)
@given(rules=RULES, seed=st.integers(0, 2**31), plays=st.integers(0, 12))
def test_windows_give_bounds_on_the_right_side(rules: Rules, seed: int, plays: int) -> None:
    state = play_position(seed, rules, plays)
    leader = state.trick[0][0] if state.trick else state.turn
    exact = Solver.for_state(state).solve(state.hands, leader, state.trick)
    for lo in range(0, 5):
        # A fresh solver for each window, and one shared by all: the table keeps bounds.
        for solver in (Solver.for_state(state), None):
            solver = solver or _shared(state)
            got = solver.solve(state.hands, leader, state.trick, lo, lo + 1)
            if exact <= lo:
                assert got <= lo and got >= exact
            else:
                assert got >= lo + 1 and got <= exact


_SHARED: dict[Any, Solver] = {}


def _shared(state: GameState) -> Solver:
    key = (state.rules.deck, state.trump, state.maker, state.sitting_out)
    if key not in _SHARED:
        _SHARED.clear()
        _SHARED[key] = Solver.for_state(state)
    return _SHARED[key]


def test_a_solver_remembers_positions_of_its_hand() -> None:
    state = play_position(11, Rules(), 0, alone_bias=0.0)
    solver = Solver.for_state(state)
    first = solver.solve_state(state)
    cost = solver.nodes
    assert cost > 0 and solver.table
    assert solver.solve_state(state) == first and solver.nodes == cost  # straight from memory
    after = state.copy()
    after.apply(state.legal_actions()[0])
    solver.solve_state(after)  # a later position of the same hand: partly remembered
    assert solver.nodes - cost < cost


def test_the_worked_example_hand() -> None:
    # docs/rules.md section 11 after the keep: the dealer's 9H guards its left bower, so the
    # maker takes 4 at best (as in the example), and leading off-trump first costs one more.
    hands = [
        ["JD", "TC", "KS", "QS", "9H"],
        ["JH", "AH", "QH", "TH", "AC"],
        ["KH", "AD", "KD", "QD", "TS"],
    ]
    solver = Solver("H", maker=1)
    assert solver.solve(hands, leader=1) == 4
    values = solver.card_values(hands, leader=1)
    assert values["JH"] == 4 and values["AC"] == 3


def test_bad_positions_are_refused() -> None:
    solver = Solver("S", maker=0)
    with pytest.raises(ValueError, match="no card in two"):
        solver.solve([["AS"], ["AS"], ["KS"]], leader=0)
    with pytest.raises(ValueError, match="led by seat 0"):
        solver.solve([["AS"], ["KS"], ["QS"]], leader=0, trick=[(1, "9S")])
    with pytest.raises(ValueError, match="not in turn"):
        solver.solve([["AS"], ["KS"], ["QS"]], leader=0, trick=[(0, "9S"), (2, "TS")])
    with pytest.raises(ValueError, match="active seat"):
        Solver("S", maker=1, sitting_out=1)
    with pytest.raises(ValueError, match="phase"):
        Solver.for_state(GameState(deal_for(0, 0)))


def test_a_sitters_cards_are_out_of_play() -> None:
    solver = Solver("H", maker=0, sitting_out=2)
    hands = [["JH", "9C"], ["AH", "AC"], ["JD", "KH"]]
    # Seat 2 sits out: its left bower plays no part. The maker leads JH, then loses 9C to AC.
    assert solver.solve(hands, leader=0) == 1
    assert solver.card_values(hands, leader=0) == {"JH": 1, "9C": 1}


def test_the_module_examples_run_as_printed() -> None:
    import doctest

    import arena.solver

    result = doctest.testmod(arena.solver)
    assert result.attempted >= 2 and result.failed == 0


def test_the_guide_example_runs_as_printed() -> None:
    # docs/writing-a-bot.md shows the solver on one position; its comments state the answers.
    import re
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[1] / "docs" / "writing-a-bot.md").read_text("utf-8")
    section = guide.split("### The open-hand solver", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block is not None
    scope: dict[str, Any] = {}
    exec(block.group(1), scope)
    checked = 0
    for line in block.group(1).splitlines():
        code, sep, comment = line.partition("  # ")
        if sep and code.startswith("solver."):
            assert eval(code, scope) == int(comment.split(":")[0]), line
            checked += 1
    assert checked == 2
