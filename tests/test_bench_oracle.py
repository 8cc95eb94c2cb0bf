"""The cheating bot of ``bench/oracle.py``: it sees exactly what its mode says, and no more.

Its modes split the room above ``montecarlo`` by where the information is used (the card
play, the bidding, the players' hands without the dummy); a mode that saw more than it says
would overstate what an honest bot could gain there. An unknown mode is one error line
(tests/test_bench_strength.py).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.engine import deal_for, play_hand
from arena.game import GameState
from arena.rules import Rules
from arena.sandbox.botfile import load_bot_class

REPO = Path(__file__).resolve().parent.parent
ORACLE = REPO / "bench" / "oracle.py"


def oracle(monkeypatch: pytest.MonkeyPatch, sees: str) -> Any:
    """A fresh import of bench/oracle.py in mode ``sees``."""
    monkeypatch.setenv("ORACLE_SEES", sees)
    return sys.modules[load_bot_class(ORACLE).__module__]


def state_at(phase: str, seed: int = 11) -> GameState:
    """A real hand (default rules), played by a simple policy up to the first ``phase`` decision
    of a seat that is not the maker and does not sit out."""
    rules = Rules()
    for s in range(seed, seed + 200):
        state = GameState(deal_for(s, 0), rules, s % 3)
        while not state.is_over():
            if state.phase == phase and state.turn != state.maker:
                return state
            legal = state.legal_actions()
            # Order at once, take the dummy's best, play the first legal card.
            state.apply("order" if "order" in legal else legal[0])
    raise AssertionError(f"no {phase} decision found")


def worlds(module: Any, state: GameState, n: int = 8) -> tuple[list[Any], list[Any]]:
    module._TRUTH["state"] = state
    sampler = module._Truth(state.observation(state.turn), random.Random(5))
    if state.phase == "play":
        return sampler.play_worlds(n), []
    deals = sampler.deal_worlds(n)
    return [w.hands for w in deals], [w.dummy for w in deals]


@pytest.mark.parametrize("sees", ["all", "play", "bidding", "hands"])
def test_each_mode_sees_the_true_hands_only_where_it_says(
    monkeypatch: pytest.MonkeyPatch, sees: str
) -> None:
    module = oracle(monkeypatch, sees)
    for phase in ("bid1", "play"):
        state = state_at(phase)
        hands, dummies = worlds(module, state)
        me = state.turn
        truth = [sorted(h) for s, h in enumerate(state.hands) if s not in (me, state.sitting_out)]
        guessed = [[sorted(h) for s, h in enumerate(w) if s not in (me, state.sitting_out)]
                   for w in hands]  # fmt: skip
        should_see = module.sees_truth(phase)
        assert all(g == truth for g in guessed) == should_see, (phase, sees)
        if phase == "bid1":
            true_dummy = sorted(state.dummy)
            same = [sorted(d) == true_dummy for d in dummies]
            if sees in ("all", "bidding"):
                assert all(same)
            else:  # the dummy is a guess (8 guesses all right by chance: about 1e-15)
                assert not all(same)
            if sees == "hands":  # guessed among the cards outside the players' hands
                pool = set(state.dummy) | set(state.deal.kitty[1:])
                assert all(set(d) <= pool and len(d) == len(state.dummy) for d in dummies)


@pytest.mark.parametrize("sees", ["all", "play", "bidding", "hands"])
def test_each_mode_plays_a_legal_hand_in_process(
    monkeypatch: pytest.MonkeyPatch, sees: str
) -> None:
    module = oracle(monkeypatch, sees)
    heuristic = load_bot_class(REPO / "bots" / "heuristic.py")
    result = play_hand([module.Bot(1), heuristic(), heuristic()], deal_for(3, 0), dealer=2)
    assert sum(result.tricks_won) in (0, 5)  # a hand thrown in, or five tricks played
