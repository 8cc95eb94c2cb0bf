"""Determinization (arena.worlds): what a seat cannot see, and states rebuilt from a guess.

The property that matters to a search bot: a state rebuilt from an observation and any guess
that fits it shows that seat *exactly* the observation it was built from, and the true hidden
cards are always one such guess (so the real game is among the worlds sampled).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_properties import RULES
from test_game import random_action

import arena.worlds
from arena.cards import InvalidCard, effective_suit
from arena.engine import deal_for
from arena.game import GameState
from arena.rules import Rules
from arena.worlds import sample_state, unseen


def truth(state: GameState, seat: int) -> tuple[dict[int, list[str]], list[str] | None]:
    """The real hidden cards of ``state`` as a guess for ``seat``."""
    obs = state.observation(seat)
    info = unseen(obs)
    hands = {s: state.hands[s][:] for s in info.holders}
    return hands, (state.dummy[:] if info.dummy else None)


def play_on(a: GameState, b: GameState, rng: random.Random) -> None:
    """Play both states to the end with the same random actions; they must agree throughout."""
    while not a.is_over():
        assert b.legal_actions() == a.legal_actions()
        action = random_action(a, rng)
        a.apply(action)
        b.apply(action)
    assert b.is_over() and b.tricks == a.tricks and b.points() == a.points()


def check_world(obs: dict[str, Any], world: GameState) -> None:
    """A rebuilt state fits the observation: same view, voids respected, cards conserved."""
    me = obs["seat"]
    assert world.observation(me) == obs
    info = unseen(obs)
    for seat, suits in info.voids.items():
        assert not {effective_suit(c, obs["trump"]) for c in world.hands[seat]} & suits
    assert world.deal.checked(world.rules) == world.deal


@settings(max_examples=40, deadline=None)
@given(rules=RULES, seed=st.integers(0, 2**32), alone_bias=st.sampled_from([0.0, 0.3]))
def test_the_truth_is_a_world_and_every_sample_fits(
    rules: Rules, seed: int, alone_bias: float
) -> None:
    rng = random.Random(seed)
    state = GameState(deal_for(seed, 1, rules), rules, seed % 3, [1, 0, 2], hand_number=1)
    while not state.is_over():
        me = state.turn
        assert me is not None
        obs = state.observation(me)
        info = unseen(obs)
        hands, dummy = truth(state, me)
        # What must be guessed is exactly what is hidden, and the counts are right.
        for seat, count in info.holders.items():
            known = info.known.get(seat, ())
            assert set(known) <= set(hands[seat]) and len(hands[seat]) == count + len(known)
            assert set(hands[seat]) - set(known) <= set(info.cards)
        assert info.dead >= rules.kitty_size - 1 and (
            dummy is None or set(dummy) <= set(info.cards)
        )
        # The real cards rebuild the real state (as far as anyone will ever play it).
        real = GameState.from_observation(obs, hands, dummy)
        check_world(obs, real)
        assert real.hands == state.hands and real.legal_actions() == state.legal_actions()
        play_on(state.copy(), real, random.Random(seed + 1))
        # A sampled world fits too, and plays to the end.
        world = sample_state(obs, rng)
        check_world(obs, world)
        while not world.is_over():
            world.apply(random_action(world, rng))
        state.apply(random_action(state, rng, alone_bias))


def test_the_greedy_fallback_fits_every_position(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no uniform draws at all, the void-respecting fill still finds a world every time."""
    monkeypatch.setattr(arena.worlds, "_TRIES", 0)
    rng = random.Random(3)
    for seed in range(25):
        state = GameState(deal_for(seed, 0), Rules(), seed % 3)
        while not state.is_over():
            obs = state.observation(state.turn)  # type: ignore[arg-type]
            check_world(obs, sample_state(obs, rng))
            state.apply(random_action(state, rng, 0.3))


def test_samples_are_uniform_over_the_hidden_places() -> None:
    """Before anyone plays, each unseen card is in each place as often as the place is big."""
    state = GameState(deal_for(4, 0), Rules(), 0)
    obs = state.observation(1)
    info = unseen(obs)
    assert info.holders == {0: 5, 2: 5} and info.dummy == 5 and info.dead == 3
    rng = random.Random(0)
    where: Counter[str] = Counter()
    card = info.cards[0]
    n = 1800
    for _ in range(n):
        world = sample_state(obs, rng)
        place = next((f"seat {s}" for s in (0, 2) if card in world.hands[s]), None)
        where[place or ("dummy" if card in world.dummy else "dead")] += 1
    for place, size in [("seat 0", 5), ("seat 2", 5), ("dummy", 5), ("dead", 3)]:
        assert abs(where[place] / n - size / 18) < 0.04, where


# --- guesses that do not fit --------------------------------------------------------------------


def _mid_play() -> tuple[GameState, dict[str, Any]]:
    """A position in the play where seat 2 has shown a void (seed chosen for it)."""
    for seed in range(200):
        rng = random.Random(seed)
        state = GameState(deal_for(seed, 0), Rules(), 0)
        while not state.is_over():
            if state.phase == "play" and state.turn is not None:
                obs = state.observation(state.turn)
                info = unseen(obs)
                if any(info.voids.values()) and info.dummy == 0:
                    return state, obs
            state.apply(random_action(state, rng, 0.0))
    raise AssertionError("no position with a void in 200 seeds")


def test_guesses_that_do_not_fit_are_refused() -> None:
    state, obs = _mid_play()
    me = obs["seat"]
    hands, _ = truth(state, me)
    info = unseen(obs)
    other = next(iter(hands))
    with pytest.raises(ValueError, match="holds"):
        GameState.from_observation(obs, {**hands, other: hands[other][:-1]})
    with pytest.raises(ValueError, match="seen or placed twice"):
        GameState.from_observation(obs, {**hands, other: [*hands[other][:-1], obs["hand"][0]]})
    with pytest.raises(ValueError, match="needs the hand"):
        GameState.from_observation(obs, {s: h for s, h in hands.items() if s != other})
    with pytest.raises(ValueError, match="sees every card"):
        GameState.from_observation(obs, {**hands, me: obs["hand"]})
    with pytest.raises(ValueError, match="no dummy"):
        GameState.from_observation(obs, hands, ["9C"] * 5)
    with pytest.raises(InvalidCard):
        GameState.from_observation(obs, {**hands, other: ["XX", *hands[other][1:]]})
    # A card of a suit its holder has shown void in: the replay of that trick fails.
    void_seat, suits = next((s, v) for s, v in info.voids.items() if v)
    lacking = [c for c in info.cards if effective_suit(c, obs["trump"]) in suits]
    spare = [c for c in info.cards if c not in lacking and c not in hands[void_seat]]
    if lacking and hands[void_seat]:
        bad = {**hands, void_seat: [lacking[0], *hands[void_seat][1:]]}
        for seat in bad:
            if seat != void_seat and lacking[0] in bad[seat]:
                bad[seat] = [hands[void_seat][0] if c == lacking[0] else c for c in bad[seat]]
        with pytest.raises(ValueError, match="does not fit|void"):
            GameState.from_observation(obs, bad)
    assert spare is not None


def test_the_dummy_is_needed_while_it_is_to_be_taken() -> None:
    state = GameState(deal_for(4, 0), Rules(), 0)
    obs = state.observation(1)
    hands, dummy = truth(state, 1)
    assert dummy is not None
    with pytest.raises(ValueError, match="needs the dummy"):
        GameState.from_observation(obs, hands)
    with pytest.raises(ValueError, match="dummy must be 5 unseen"):
        GameState.from_observation(obs, hands, [*dummy[:4], obs["hand"][0]])
    assert GameState.from_observation(obs, hands, dummy).dummy == state.dummy


def test_a_blind_joker_dealer_guesses_its_own_hand() -> None:
    rules = Rules(deck=25)
    seed = next(s for s in range(5000) if deal_for(s, 0, rules).upcard == "JK")
    state = GameState(deal_for(seed, 0, rules), rules, 2)
    obs = state.observation(2)
    assert obs["phase"] == "joker_trump" and obs["hand"] == []
    info = unseen(obs)
    assert set(info.holders) == {0, 1, 2} and info.dummy == 5
    world = sample_state(obs, random.Random(1))
    assert world.observation(2) == obs and len(world.hands[2]) == 5
