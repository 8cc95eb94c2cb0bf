"""The engine's API (docs/writing-a-bot.md, "The engine in Python"): Rules, Deal, deals from
seeds, play_match options, results and their JSON forms, and the observation and actions
(docs/writing-a-bot.md, "The observation" and "Phases and actions")."""

from __future__ import annotations

import copy
import json
import random
from itertools import combinations
from typing import Any

import pytest
from scripted import CONTRACT_KEYS, EXTRA_KEYS, WORKED_DEAL, check_keep_options, last_legal

from arena.cards import deck, sort_cards
from arena.engine import (
    PHASES,
    Deal,
    HandResult,
    IllegalAction,
    InvalidDeal,
    MatchResult,
    Rules,
    deal_for,
    first_dealer,
    placements,
    play_hand,
    play_match,
)

WORKED = WORKED_DEAL


class RandomBot:
    """Uniform over legal with its own seeded generator (the bundled bot's policy)."""

    def __init__(self, seed: object) -> None:
        self.rng = random.Random(str(seed))

    def act(self, obs: dict[str, Any]) -> Any:
        return self.rng.choice(obs["legal"])


class First:
    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][0]


class Last:
    def act(self, obs: dict[str, Any]) -> Any:
        return last_legal(obs)


def random_bots(seed: object) -> list[RandomBot]:
    return [RandomBot(f"{seed}/{s}") for s in range(3)]


# --- Rules ----------------------------------------------------------------------------------

RULE_FIELDS = {
    "deck": 24,
    "target": 10,
    "dealer_pickup": "optional",
    "round2_allow_turned_down": False,
    "stick_the_dealer": False,
    "both_alone_lead": "lone_defender",
    "lone_maker_march": 3,
    "lone_defender_scoring": "both",
    "tie_policy": "play_on",
}


def test_rules_fields_and_defaults_are_rules_md_section_9() -> None:
    assert Rules().to_dict() == RULE_FIELDS
    r = Rules(deck=32, target=5, tie_policy="shared_win")
    assert Rules.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    assert (Rules().kitty_size, Rules(deck=25).kitty_size, Rules(deck=32).kitty_size) == (4, 5, 12)


BAD_RULES = [
    ("deck", 20),
    ("deck", "24"),
    ("deck", True),
    ("target", 0),
    ("target", -3),
    ("target", 1.5),
    ("target", True),
    ("dealer_pickup", "sometimes"),
    ("round2_allow_turned_down", 1),
    ("stick_the_dealer", "yes"),
    ("both_alone_lead", "defender"),
    ("lone_maker_march", 5),
    ("lone_maker_march", 4.0),
    ("lone_defender_scoring", "none"),
    ("tie_policy", "split"),
]


@pytest.mark.parametrize(("name", "value"), BAD_RULES, ids=[f"{n}={v!r}" for n, v in BAD_RULES])
def test_rules_reject_bad_values(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"Rules.{name}"):
        Rules(**{name: value})  # type: ignore[arg-type]


def test_rules_from_dict_rejects_unknown_fields() -> None:
    with pytest.raises(ValueError, match="unknown Rules fields"):
        Rules.from_dict({"deck": 24, "jokers": 2})


# --- Deal -----------------------------------------------------------------------------------


def _worked(**change: Any) -> Deal:
    d = WORKED.to_dict()
    d.update(change)
    return Deal.from_dict(d)


BAD_DEALS = [
    ("two-hands", _worked(hands=[list(h) for h in WORKED.hands[:2]]), Rules(), "three hands"),
    (
        "hand-of-4",
        _worked(hands=[list(WORKED.hands[0][:4]), *WORKED.hands[1:]]),
        Rules(),
        "5 cards",
    ),
    (
        "dummy-of-6",
        _worked(dummy=[*WORKED.dummy, "TD"], kitty=["9H", "JC", "JS"]),
        Rules(),
        "dummy of 5",
    ),
    ("kitty-of-3", _worked(kitty=["9H", "TD", "JC"]), Rules(), "kitty of 4"),
    ("kitty-for-25", WORKED, Rules(deck=25), "kitty of 5"),
    ("repeated-card", _worked(kitty=["9H", "TD", "JC", "JC"]), Rules(), "repeated or missing"),
    ("foreign-7H", _worked(kitty=["9H", "TD", "JC", "7H"]), Rules(), "foreign"),
    ("joker-in-24", _worked(kitty=["9H", "TD", "JC", "JK"]), Rules(), "foreign"),
    ("not-a-card", _worked(kitty=["9H", "TD", "JC", "XX"]), Rules(), "not a card"),
    ("int-card", _worked(kitty=["9H", "TD", "JC", 5]), Rules(), "not a card"),
    ("deck-32-with-24-cards", WORKED, Rules(deck=32), "kitty of 12"),
]


@pytest.mark.parametrize(
    ("deal", "rules", "message"), [b[1:] for b in BAD_DEALS], ids=[b[0] for b in BAD_DEALS]
)
def test_deal_checked_rejects(deal: Deal, rules: Rules, message: str) -> None:
    with pytest.raises(InvalidDeal, match=message):
        deal.checked(rules)
    # play_hand validates too, before asking anyone anything.
    with pytest.raises(InvalidDeal):
        play_hand([First()] * 3, deal=deal, rules=rules)
    assert issubclass(InvalidDeal, ValueError)


def test_deal_checked_canonicalises_and_round_trips() -> None:
    loose = Deal(
        hands=[[c.lower() for c in h] for h in WORKED.hands],
        dummy=WORKED.dummy,
        kitty=["9h", "10D", "jc", "JS"],
    )
    assert loose.checked() == WORKED
    assert Deal.from_dict(json.loads(json.dumps(WORKED.to_dict()))) == WORKED
    assert WORKED.upcard == "9H"


# --- deals and dealers from the seed ---------------------------------------------------------


@pytest.mark.parametrize("size", [24, 25, 32])
def test_deal_for_is_a_valid_pure_function_of_seed_and_hand(size: int) -> None:
    rules = Rules(deck=size)
    deals = [deal_for(seed, k, rules) for seed in (0, 1, "x") for k in range(20)]
    for d in deals:
        assert d.checked(rules) == d
        assert all(list(h) == sort_cards(h) for h in [*d.hands, d.dummy])
    assert deals == [deal_for(seed, k, rules) for seed in (0, 1, "x") for k in range(20)]
    assert len({d.to_dict().__repr__() for d in deals}) == len(deals)
    # Every card is the up-card now and then.
    ups = {deal_for(s, 0, rules).upcard for s in range(60 * size)}
    assert ups == set(deck(size))


def test_deal_for_pinned() -> None:
    """Same seed, same cards on any machine: the algorithm is SHA-512 driven, pinned here."""
    d = deal_for(7, 0)
    assert d.to_dict() == deal_for("7", 0).to_dict()
    assert d == PINNED_7_0
    assert [first_dealer(s) for s in range(10)] == PINNED_DEALERS


PINNED_7_0 = Deal(
    hands=[
        ["TC", "KC", "TD", "AH", "JS"],
        ["JC", "QC", "TH", "JH", "QS"],
        ["9C", "QD", "AD", "KS", "AS"],
    ],
    dummy=["9D", "KD", "9H", "KH", "TS"],
    kitty=["QH", "JD", "9S", "AC"],
)
PINNED_DEALERS = [0, 2, 1, 1, 1, 1, 2, 0, 2, 2]


def test_first_dealer_covers_every_seat() -> None:
    assert {first_dealer(s) for s in range(30)} == {0, 1, 2}
    assert first_dealer("abc") == first_dealer("abc")


def test_same_seed_same_deals_whatever_the_bots_do() -> None:
    seed = 42
    a = play_match(random_bots("a"), seed=seed)
    b = play_match([Last()] * 3, seed=seed)
    c = play_match(random_bots("c"), seed=seed, dealer=(a.first_dealer + 1) % 3)
    assert a.first_dealer == b.first_dealer == first_dealer(seed)
    for m in (a, b, c):
        for k, h in enumerate(m.hands):
            assert h.deal == deal_for(seed, k)
            assert h.hand_number == k
            assert h.dealer == (m.first_dealer + k) % 3
    # Different decisions, different matches: the deals alone are shared.
    assert [h.log for h in a.hands] != [h.log for h in b.hands]


def test_same_seed_same_decisions_same_match() -> None:
    for rules in (Rules(), Rules(deck=25, stick_the_dealer=True), Rules(deck=32)):
        one = play_match(random_bots(3), seed="s", rules=rules).to_dict()
        two = play_match(random_bots(3), seed="s", rules=rules).to_dict()
        assert one == two


# --- play_match options ------------------------------------------------------------------------


def test_play_match_scores_dealer_and_deals() -> None:
    m = play_match([Last()] * 3, seed=9, scores=[8, 9, 7], dealer=2, deals=[WORKED])
    assert m.first_dealer == 2
    assert m.hands[0].deal == WORKED and m.hands[0].dealer == 2
    assert m.hands[0].scores_before == [8, 9, 7]
    # Once the given deals run out, the deal of hand k comes from (seed, k) again.
    assert all(h.deal == deal_for(9, h.hand_number) for h in m.hands[1:])
    total = [[8, 9, 7][s] + sum(h.points[s] for h in m.hands) for s in range(3)]
    assert m.scores == total
    running = [8, 9, 7]
    for h in m.hands:
        assert h.scores_before == running
        running = [a + b for a, b in zip(running, h.points, strict=True)]


def test_play_match_validates_given_deals() -> None:
    bad = _worked(kitty=["9H", "TD", "JC", "JC"])
    with pytest.raises(InvalidDeal):
        play_match([Last()] * 3, seed=1, deals=[WORKED, bad])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scores": [1, 2]}, "scores"),
        ({"scores": [1, -2, 0]}, "scores"),
        ({"scores": [1, 2.5, 0]}, "scores"),
        ({"dealer": 3}, "dealer"),
        ({"dealer": True}, "dealer"),
    ],
    ids=["two-scores", "negative", "float", "dealer-3", "dealer-bool"],
)
def test_play_match_rejects_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        play_match([Last()] * 3, seed=1, **kwargs)


def test_play_hand_and_match_need_three_bots() -> None:
    with pytest.raises(ValueError, match="three bots"):
        play_match([Last()] * 2, seed=1)
    with pytest.raises(ValueError, match="three bots"):
        play_hand([Last()] * 4, deal=WORKED)
    with pytest.raises(ValueError, match="dealer"):
        play_hand([Last()] * 3, deal=WORKED, dealer=-1)
    with pytest.raises(ValueError, match="scores"):
        play_hand([Last()] * 3, deal=WORKED, scores=[0, 0])


def test_max_hands_truncates() -> None:
    """Bots that always answer legal[0] pass every bid: the match never ends by itself."""
    m = play_match([First()] * 3, seed=4, max_hands=7)
    assert m.truncated and len(m.hands) == 7
    assert all(h.passed_out for h in m.hands)
    assert (m.scores, m.winners, m.placements) == ([0, 0, 0], [], [1, 1, 1])
    assert play_match([First()] * 3, seed=4, max_hands=0).hands == []
    full = play_match([Last()] * 3, seed=4)
    assert not full.truncated and len(full.winners) == 1


PLACES = [
    ([10, 5, 5], [1, 2, 2]),
    ([11, 11, 3], [1, 1, 3]),
    ([3, 3, 3], [1, 1, 1]),
    ([1, 2, 3], [3, 2, 1]),
    ([4, 12, 4], [2, 1, 2]),
]


@pytest.mark.parametrize(("scores", "places"), PLACES, ids=[str(s) for s, _ in PLACES])
def test_placements_share_ties(scores: list[int], places: list[int]) -> None:
    assert placements(scores) == places


def test_match_placements_and_winner() -> None:
    for seed in range(20):
        m = play_match(random_bots(seed), seed=seed, rules=Rules(target=5))
        assert m.placements == placements(m.scores)
        assert [m.placements[w] for w in m.winners] == [1]


def test_results_json_round_trip() -> None:
    rules = Rules(deck=25, stick_the_dealer=True, tie_policy="shared_win")
    for seed in range(8):
        m = play_match(random_bots(seed), seed=seed, rules=rules)
        data = m.to_dict()
        assert json.loads(json.dumps(data)) == data
        assert MatchResult.from_dict(json.loads(json.dumps(data))) == m
        for h in m.hands:
            d = h.to_dict()
            assert json.loads(json.dumps(d)) == d
            assert HandResult.from_dict(json.loads(json.dumps(d))) == h
            assert {k: d[k] for k in h.summary()} == h.summary()


# --- the observation contract ----------------------------------------------------------------


class Recorder:
    """Plays ``inner`` and keeps a deep copy of every observation with its answer."""

    def __init__(self, inner: Any, log: list[tuple[dict[str, Any], Any]]) -> None:
        self.inner = inner
        self.log = log

    def act(self, obs: dict[str, Any]) -> Any:
        action = self.inner.act(obs)
        self.log.append((copy.deepcopy(obs), action))
        return action


def _joker_seed() -> int:
    """A seed whose first hand turns the Joker up."""
    return next(s for s in range(10_000) if deal_for(s, 0, Rules(deck=25)).upcard == "JK")


def _observations() -> list[tuple[dict[str, Any], Any]]:
    log: list[tuple[dict[str, Any], Any]] = []
    variants = [
        (Rules(), range(6)),
        (Rules(deck=25), [_joker_seed()]),
        (Rules(stick_the_dealer=True, deck=32), range(3)),
    ]
    for rules, seeds in variants:
        for seed in seeds:
            bots = [Recorder(b, log) for b in random_bots(seed)]
            play_match(bots, seed=seed, rules=rules)
    return log


OBSERVED = _observations()


def test_every_phase_is_observed() -> None:
    assert {o["phase"] for o, _ in OBSERVED} == set(PHASES)


def test_observation_keys_by_phase() -> None:
    for obs, _ in OBSERVED:
        extra = {"dummy"} if obs["phase"] == "keep" else set()
        assert set(obs) == CONTRACT_KEYS | EXTRA_KEYS | extra, obs["phase"]


def test_observation_value_shapes() -> None:
    for obs, action in OBSERVED:
        assert obs["phase"] in PHASES and obs["seat"] in (0, 1, 2) and obs["dealer"] in (0, 1, 2)
        assert len(obs["scores"]) == 3 and obs["rules"] == Rules.from_dict(obs["rules"]).to_dict()
        assert obs["hand"] == sort_cards(obs["hand"])
        assert obs["legal"] and (action in obs["legal"] or obs["phase"] == "keep")
        assert all(set(b) == {"seat", "round", "action"} for b in obs["bids"])
        assert obs["pickup"] in (None, True, False)
        assert all(set(t) == {"leader", "cards", "winner"} for t in obs["tricks"])
        assert all(len(p) == 2 for p in obs["trick"])
        assert len(obs["history"]) == obs["hand_number"]
        for h in obs["history"]:
            assert {"dealer", "trump", "maker", "alone", "tricks_won", "points"} <= set(h)


LEGAL_BY_PHASE = {
    "bid1": [["pass", "order"]],
    "pickup": [["pickup", "decline"]],
    "alone": [["alone", "pass"]],
    "joker_trump": [["C", "D", "H", "S"]],
}


def test_legal_sets_by_phase() -> None:
    for obs, _ in OBSERVED:
        phase, legal = obs["phase"], obs["legal"]
        if phase in LEGAL_BY_PHASE:
            assert legal in LEGAL_BY_PHASE[phase]
        elif phase == "bid2":
            up = obs["upcard"][1]
            named = [s for s in "CDHS" if s != up]
            stuck = obs["rules"]["stick_the_dealer"] and obs["seat"] == obs["dealer"]
            assert legal == (named if stuck else ["pass", *named])
        elif phase == "discard":
            assert obs["seat"] == obs["dealer"] and len(obs["hand"]) == 6
            assert legal == [c for c in obs["hand"] if c != obs["upcard"]]
        elif phase == "keep":
            pool = obs["hand"] + obs["dummy"]
            check_keep_options(legal, len(pool))
            assert sorted(map(tuple, legal)) == sorted(combinations(sort_cards(pool), 5))
            assert obs["seat"] == obs["maker"]
        else:
            assert phase == "play" and set(legal) <= set(obs["hand"])


def test_keep_order_does_not_matter() -> None:
    """A keep answered in any order (or as a tuple) is the same decision."""

    def run(shape: Any) -> HandResult:
        class Bot:
            def act(self, obs: dict[str, Any]) -> Any:
                if obs["phase"] == "keep":
                    return shape(["AC", "TH", "QH", "AH", "JH"])
                if obs["phase"] == "bid1":
                    return "order"
                return obs["legal"][-1] if obs["phase"] != "play" else obs["legal"][0]

        return play_hand([Bot()] * 3, deal=WORKED, dealer=0)

    base = run(sort_cards)
    for shape in (list, lambda c: list(reversed(c)), tuple):
        r = run(shape)
        assert r.to_dict() == base.to_dict()
    assert base.log[[p for _, p, _ in base.log].index("keep")][2] == ["AC", "TH", "JH", "QH", "AH"]


class Vandal:
    """Answers like ``inner``, then wrecks every list and dict of its observation."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def act(self, obs: dict[str, Any]) -> Any:
        action = self.inner.act(obs)
        if isinstance(action, list):
            action = list(action)
        self._wreck(obs)
        return action

    def _wreck(self, value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                self._wreck(v)
            value.clear()
            value["junk"] = 1
        elif isinstance(value, list):
            for v in value:
                self._wreck(v)
            value[:] = ["AS"]


def test_a_bot_editing_its_observation_changes_nothing() -> None:
    for seed, rules in [(1, Rules()), (2, Rules(deck=25)), (3, Rules(deck=32))]:
        clean = play_match(random_bots(seed), seed=seed, rules=rules)
        wrecked = play_match([Vandal(b) for b in random_bots(seed)], seed=seed, rules=rules)
        assert wrecked.to_dict() == clean.to_dict()


def test_illegal_action_is_a_value_error_with_details() -> None:
    class Bad:
        def act(self, obs: dict[str, Any]) -> Any:
            return "banana"

    with pytest.raises(IllegalAction) as e:
        play_match([Bad()] * 3, seed=1)
    assert isinstance(e.value, ValueError)
    assert e.value.phase in ("bid1", "joker_trump") and e.value.action == "banana"
    assert "banana" in str(e.value)


@pytest.mark.parametrize(
    ("phase", "action", "ok"),
    [
        ("play", "JH", True),
        ("play", "AS", False),
        ("play", ["JH"], False),
        ("keep", ["AH", "JH", "QH", "TH", "AC"], True),
        ("keep", ("AC", "TH", "QH", "JH", "AH"), True),
        ("keep", ["JH", "JH", "QH", "TH", "AC"], False),
        ("keep", ["JH", "AH", "QH", "TH"], False),
        ("keep", ["JH", "AH", "QH", "TH", "KS"], False),
        ("keep", "JH AH QH TH AC", False),
    ],
    ids=lambda v: str(v),
)
def test_is_legal_states_the_rule_for_every_phase(phase: str, action: Any, ok: bool) -> None:
    from arena.engine import is_legal

    hand = ["JH", "AH", "KC", "QC", "9S"]
    obs = {"phase": phase, "hand": hand, "legal": ["JH", "AH"], "dummy": ["QH", "TH", "AC"]}
    assert is_legal(obs, action) is ok
