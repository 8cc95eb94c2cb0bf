"""The steppable game state (arena.game) and the rules as values (arena.rules).

The referee (``play_hand``/``play_match``) is a loop over :class:`GameState`, so the golden,
worked-example and property tests of the engine exercise the state too; these tests hold the
state's own API: stepping, copies, errors, every seat's view, and the rule functions.
"""

from __future__ import annotations

import doctest
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scripted import WORKED_DEAL, check_contract
from test_engine_properties import RULES

import arena.game
import arena.keeps
import arena.rules
import arena.worlds
from arena.cards import deck
from arena.engine import Match, deal_for, play_match
from arena.game import OVER, GameState, IllegalAction, MalformedAction, is_legal
from arena.rules import (
    DEFAULT_RULES,
    PHASES,
    Deal,
    InvalidDeal,
    Rules,
    bidding_order,
    hand_points,
    match_winners,
    next_seat,
    opening_leader,
)


@pytest.mark.parametrize("module", [arena.rules, arena.game, arena.worlds, arena.keeps])
def test_module_examples(module: Any) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def random_action(state: GameState, rng: random.Random, alone_bias: float = 0.25) -> Any:
    """Uniform over the legal actions; lone hands made common; keeps in a shuffled order."""
    legal = state.legal_actions()
    if state.phase == "alone" and rng.random() < alone_bias:
        return "alone"
    action = legal[rng.randrange(len(legal))]
    if state.phase == "keep":
        action = rng.sample(action, 5)  # any order is the same keep
    return action


class Replay:
    """A bot that answers from a list of actions (the log of a hand played before)."""

    def __init__(self, actions: list[Any]) -> None:
        self.actions = iter(actions)

    def act(self, obs: dict[str, Any]) -> Any:
        return next(self.actions)


# --- stepping by hand -------------------------------------------------------------------------


def test_worked_example_step_by_step() -> None:
    """docs/rules.md section 11, one apply at a time."""
    state = GameState(WORKED_DEAL)
    steps = [
        ("bid1", 1, ["pass", "order"], "order"),
        ("pickup", 0, ["pickup", "decline"], "pickup"),
        ("discard", 0, ["9C", "TC", "JD", "QS", "KS"], "9C"),
        ("alone", 1, ["alone", "pass"], "pass"),
        ("alone", 2, ["alone", "pass"], "pass"),
        ("alone", 0, ["alone", "pass"], "pass"),
    ]
    for phase, turn, legal, action in steps:
        assert (state.phase, state.turn, state.legal_actions()) == (phase, turn, legal)
        state.apply(action)
    assert (state.phase, state.turn, state.trump, state.maker) == ("keep", 1, "H", 1)
    keeps = state.legal_actions()
    assert len(keeps) == 252 and ("AH", "TH", "QH", "JH", "AC") not in keeps  # canonical order
    assert ("AC", "TH", "JH", "QH", "AH") in keeps and state.observation(1)["legal"][0] == list(
        keeps[0]
    )
    state.apply(["AC", "QH", "TH", "AH", "JH"])
    tricks = [["JH", "KH", "9H"], ["AH", "TS", "JD"], ["KS", "TH", "QD"], ["AC", "KD", "TC"]]
    tricks.append(["QH", "AD", "QS"])
    for cards in tricks:
        for card in cards:
            assert state.phase == "play" and card in state.legal_actions()
            state.apply(card)
    assert state.is_over() and state.phase == OVER and state.turn is None
    assert state.tricks_won == [1, 4, 0] and state.points() == [0, 1, 0]
    assert state.legal_actions() == []
    result = state.result()
    assert result.points == [0, 1, 0] and [t["winner"] for t in result.tricks] == [1, 0, 1, 1, 1]


def test_the_referee_is_the_state() -> None:
    """Replaying a match's logs through GameState gives back every hand record exactly."""
    for seed, rules in [
        (3, Rules()),
        (4, Rules(deck=25, stick_the_dealer=True)),
        (5, Rules(deck=32)),
    ]:
        rng = random.Random(seed)

        class Uniform:
            def act(self, obs: dict[str, Any], rng: random.Random = rng) -> Any:
                return obs["legal"][rng.randrange(len(obs["legal"]))]

        m = play_match([Uniform()] * 3, seed=seed, rules=rules)
        for h in m.hands:
            state = GameState(h.deal, rules, h.dealer, h.scores_before, hand_number=h.hand_number)
            for seat, phase, action in h.log:
                assert (state.turn, state.phase) == (seat, phase)
                state.apply(action)
            assert state.result().to_dict() == h.to_dict()


def test_match_steps_like_play_match() -> None:
    rules = Rules(target=6)
    rng = random.Random(1)
    match = Match(11, rules)
    while (state := match.next_hand()) is not None:
        while not state.is_over():
            state.apply(random_action(state, rng, 0.0))
        match.record(state.result())
    stepped = match.result()
    logs = [a for h in stepped.hands for _, _, a in h.log]
    again = play_match([Replay(logs)] * 3, seed=11, rules=rules)
    assert again.to_dict() == stepped.to_dict()
    assert stepped.winners == match_winners(stepped.scores, rules) != []


# --- copies, errors, the finished state --------------------------------------------------------


def _snapshot(state: GameState) -> str:
    return json.dumps(
        [state.phase, state.turn, state.hands, state.bids, state.tricks, state.trick, state.log]
    )


def test_copy_is_independent() -> None:
    rng = random.Random(2)
    state = GameState(deal_for(2, 0))
    while not state.is_over():
        before = _snapshot(state)
        other = state.copy()
        assert _snapshot(other) == before and other.legal_actions() == state.legal_actions()
        while not other.is_over():
            other.apply(random_action(other, rng))
        assert _snapshot(state) == before
        state.apply(random_action(state, rng))


MALFORMED = {
    "bid1": ["orders", None, 1, ["order"]],
    "pickup": ["yes", "order"],
    "bid2": ["hearts", "order", "JK"],
    "discard": ["XX", "jh", 7],
    "alone": ["solo", True, "order"],
    "keep": [["JH"], "JH AH QH TH AC", ["JH", "AH", "QH", "TH", "ZZ"], 5],
    "play": ["10H", ("JH",), None],
}
# Well-formed, but not allowed here ("pickup", "alone" and "bid1" allow both of their words).
ILLEGAL = {
    "bid2": ["H"],  # the turned-down suit
    "discard": ["9H", "AS"],  # the up-card may not be discarded; AS is not in the hand
    "keep": [["JH", "JH", "QH", "TH", "AC"], ["JH", "AH", "QH", "TH", "KS"]],
    "play": ["AS", "9C"],
}


def _position(phase: str) -> GameState:
    """The worked example at its first decision of ``phase``."""
    answers = {"bid1": "pass" if phase == "bid2" else "order"}
    answers.update(pickup="pickup", discard="9C", alone="pass")
    state = GameState(WORKED_DEAL)
    while state.phase != phase:
        if state.phase == "keep":
            state.apply(["AC", "QH", "TH", "AH", "JH"])
        else:
            state.apply(answers[state.phase])
    if phase == "play":
        state.apply("JH")  # hearts led: seat 2 must follow with KH
    return state


@pytest.mark.parametrize("phase", sorted(set(MALFORMED) | set(ILLEGAL)))
def test_malformed_and_illegal_are_told_apart(phase: str) -> None:
    state = _position(phase)
    before = _snapshot(state)
    for action in MALFORMED.get(phase, []):
        with pytest.raises(MalformedAction):
            state.apply(action)
    for action in ILLEGAL.get(phase, []):
        with pytest.raises(IllegalAction) as e:
            state.apply(action)
        assert type(e.value) is IllegalAction and e.value.phase == phase
        assert e.value.seat == state.turn and e.value.action == action
    assert _snapshot(state) == before  # nothing refused was played


def test_a_refused_answer_names_the_legal_ones() -> None:
    state = _position("play")
    with pytest.raises(
        IllegalAction, match=r"seat 2 answered 'AD' in phase 'play'; legal: \['KH'\]"
    ):
        state.apply("AD")
    assert issubclass(MalformedAction, IllegalAction) and issubclass(IllegalAction, ValueError)


def test_a_str_subclass_is_recorded_as_the_state_own_string() -> None:
    class Loud(str):
        pass

    state = GameState(WORKED_DEAL)
    state.apply(Loud("order"))
    assert type(state.log[-1][2]) is str and type(state.bids[-1]["action"]) is str


def test_finished_state_refuses_to_go_on() -> None:
    state = GameState(deal_for(1, 0))
    for _ in range(6):
        state.apply("pass")
    assert state.is_over() and state.maker is None and state.points() == [0, 0, 0]
    with pytest.raises(ValueError, match="over"):
        state.apply("pass")
    with pytest.raises(ValueError, match="over"):
        state.observation(0)
    assert state.result().passed_out


def test_unfinished_state_has_no_result() -> None:
    with pytest.raises(ValueError, match="not over"):
        GameState(WORKED_DEAL).result()


def test_constructor_checks_its_arguments() -> None:
    with pytest.raises(InvalidDeal):
        GameState(Deal(WORKED_DEAL.hands, WORKED_DEAL.dummy, ["9H", "TD", "JC", "JC"]))
    with pytest.raises(ValueError, match="dealer"):
        GameState(WORKED_DEAL, dealer=3)
    with pytest.raises(ValueError, match="scores"):
        GameState(WORKED_DEAL, scores=[1, -1, 0])
    loose = Deal(
        [[c.lower() for c in h] for h in WORKED_DEAL.hands], WORKED_DEAL.dummy, WORKED_DEAL.kitty
    )
    assert GameState(loose).hands[0] == ["9C", "TC", "JD", "QS", "KS"]


# --- every seat's view ------------------------------------------------------------------------


def _private_to_others(state: GameState, seat: int) -> set[str]:
    """Cards ``seat`` must not see now (docs/rules.md section 10)."""
    deal = state.deal
    hidden = set(deal.kitty[1:]) | set(deal.dummy)
    for other in (0, 1, 2):
        if other != seat:
            hidden |= set(deal.hands[other]) | set(state.discards[other])
    if state.phase == "keep" and state.turn == seat:
        hidden -= set(deal.dummy)
    hidden -= set(state.hands[seat]) | set(state.discards[seat])
    played = {c for _, cs, _ in state.tricks for _, c in cs} | {c for _, c in state.trick}
    return hidden - played - {deal.upcard}


def _cards_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(set(), *(_cards_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(set(), *(_cards_in(v) for v in value))
    return set()


@settings(max_examples=60, deadline=None)
@given(rules=RULES, seed=st.integers(0, 2**32))
def test_every_seat_sees_only_its_own(rules: Rules, seed: int) -> None:
    """At every step, each seat's observation holds nothing private to another seat; only the
    seat to act has legal actions (and the maker choosing the keep, the dummy)."""
    rng = random.Random(seed)
    state = GameState(deal_for(seed, 0, rules), rules, seed % 3)
    while not state.is_over():
        for seat in (0, 1, 2):
            obs = state.observation(seat)
            if seat == state.turn:
                check_contract(obs)
            assert json.loads(json.dumps(obs)) == obs
            assert not _cards_in({k: v for k, v in obs.items() if k != "legal"}) & (
                _private_to_others(state, seat)
            )
            if seat == state.turn:
                assert obs["legal"] == [
                    list(a) if state.phase == "keep" else a for a in state.legal_actions()
                ]
            else:
                assert obs["legal"] == [] and "dummy" not in obs
        state.apply(random_action(state, rng))


def test_observations_share_nothing_with_the_state() -> None:
    state = _position("play")
    before, seen = _snapshot(state), state.observation(2)
    obs = state.observation(2)
    for value in obs.values():
        if isinstance(value, list | dict):
            value.clear()
    assert _snapshot(state) == before and state.observation(2) == seen
    assert state.legal_actions() == ["KH"] and state.trick == [(1, "JH")]


def test_is_legal_agrees_with_the_state() -> None:
    rng = random.Random(5)
    for seed in range(5):
        state = GameState(deal_for(seed, 0))
        while not state.is_over():
            obs = state.observation(state.turn)  # type: ignore[arg-type]
            action = random_action(state, rng)
            assert is_legal(obs, action)
            assert not is_legal(obs, "banana")
            state.apply(action)


# --- the rules as values ---------------------------------------------------------------------

# (rules, maker, alone, tricks_won, points): docs/rules.md section 7, row by row.
SCORING = [
    ("made-3", Rules(), 1, [], [1, 3, 1], [0, 1, 0]),
    ("made-4", Rules(), 1, [], [0, 4, 1], [0, 1, 0]),
    ("march", Rules(), 1, [], [0, 5, 0], [0, 3, 0]),
    ("lone-march", Rules(), 1, [1], [0, 5, 0], [0, 3, 0]),
    ("lone-march-4", Rules(lone_maker_march=4), 1, [1], [0, 5, 0], [0, 4, 0]),
    ("march-4-not-alone", Rules(lone_maker_march=4), 1, [], [0, 5, 0], [0, 3, 0]),
    ("euchred", Rules(), 1, [], [2, 2, 1], [2, 0, 2]),
    ("lone-defender-3", Rules(), 1, [2], [0, 2, 3], [2, 0, 2]),
    ("lone-defender-5", Rules(), 1, [2], [0, 0, 5], [4, 0, 4]),
    ("lone-only-5", Rules(lone_defender_scoring="lone_only"), 1, [2], [0, 0, 5], [0, 0, 4]),
    ("lone-only-3", Rules(lone_defender_scoring="lone_only"), 1, [2], [0, 2, 3], [0, 0, 2]),
    ("both-alone-made", Rules(), 0, [0, 2], [3, 0, 2], [1, 0, 0]),
]


@pytest.mark.parametrize(
    ("rules", "maker", "alone", "won", "points"),
    [c[1:] for c in SCORING],
    ids=[c[0] for c in SCORING],
)
def test_hand_points_follow_the_table(
    rules: Rules, maker: int, alone: list[int], won: list[int], points: list[int]
) -> None:
    assert hand_points(rules, maker, alone, won) == points


# (rules, dealer, maker, alone, sitting_out, leader): docs/rules.md section 6.1.
LEADS = [
    ("nobody-alone", Rules(), 0, 1, [], None, 1),
    ("nobody-alone-dealer-2", Rules(), 2, 1, [], None, 0),
    ("maker-alone", Rules(), 0, 2, [2], None, 0),
    ("defender-alone", Rules(), 0, 1, [2], 0, 1),  # left of 2 is 0, who sits out: skip to 1
    ("defender-alone-left", Rules(), 1, 0, [1], 2, 0),
    ("both-alone", Rules(), 0, 1, [1, 2], 0, 2),
    ("both-alone-maker-leads", Rules(both_alone_lead="maker"), 0, 1, [1, 2], 0, 1),
]


@pytest.mark.parametrize(
    ("rules", "dealer", "maker", "alone", "sitting", "leader"),
    [c[1:] for c in LEADS],
    ids=[c[0] for c in LEADS],
)
def test_opening_leader_follows_the_table(
    rules: Rules, dealer: int, maker: int, alone: list[int], sitting: int | None, leader: int
) -> None:
    assert opening_leader(rules, dealer, maker, alone, sitting) == leader


def test_order_of_play_and_bidding() -> None:
    assert [next_seat(s) for s in (0, 1, 2)] == [1, 2, 0]
    assert [next_seat(s, sitting_out=1) for s in (0, 2)] == [2, 0]
    assert [bidding_order(d) for d in (0, 1, 2)] == [(1, 2, 0), (2, 0, 1), (0, 1, 2)]


ENDS = [
    ("under-target", Rules(), [9, 8, 0], []),
    ("one-leader", Rules(), [10, 8, 0], [0]),
    ("tie-plays-on", Rules(), [11, 11, 3], []),
    ("tie-shared", Rules(tie_policy="shared_win"), [11, 11, 3], [0, 1]),
    ("tie-below-leader", Rules(), [12, 10, 10], [0]),
    ("low-target", Rules(target=3), [3, 0, 1], [0]),
]


@pytest.mark.parametrize(
    ("rules", "scores", "winners"), [c[1:] for c in ENDS], ids=[c[0] for c in ENDS]
)
def test_match_winners_follow_section_8(
    rules: Rules, scores: list[int], winners: list[int]
) -> None:
    assert match_winners(scores, rules) == winners


def test_phases_and_defaults() -> None:
    assert set(PHASES) == {
        "bid1",
        "pickup",
        "discard",
        "bid2",
        "alone",
        "keep",
        "play",
        "joker_trump",
    }
    assert DEFAULT_RULES == Rules() and OVER not in PHASES
    assert len(deck(24)) == 24


def test_deal_checked_and_its_old_name() -> None:
    loose = Deal(
        [[c.lower() for c in h] for h in WORKED_DEAL.hands], WORKED_DEAL.dummy, WORKED_DEAL.kitty
    )
    assert loose.checked() == WORKED_DEAL == loose.validate()
    dealt = deal_for(9, 2, Rules(deck=32))
    assert dealt.checked(Rules(deck=32)) is dealt  # dealt correct by construction
    with pytest.raises(InvalidDeal):
        dealt.checked(Rules())  # not a 24-card deal
