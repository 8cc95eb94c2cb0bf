"""Properties over random legal playouts under every rule variant (hypothesis).

Each example plays one whole match with random legal bots that check every observation as it
arrives (contract keys, JSON round trip, legal sets, nothing private to another seat), then
checks the finished match against the deal, the scoring table and the end-of-match rule.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from scripted import check_contract, check_keep_options

from arena.cards import deck, effective_suit, sort_cards, trick_winner
from arena.engine import HandResult, MatchResult, Rules, deal_for, first_dealer, play_match

RULES = st.builds(
    Rules,
    deck=st.sampled_from([24, 25, 32]),
    target=st.integers(1, 15),
    dealer_pickup=st.sampled_from(["optional", "mandatory"]),
    round2_allow_turned_down=st.booleans(),
    stick_the_dealer=st.booleans(),
    both_alone_lead=st.sampled_from(["lone_defender", "maker"]),
    lone_maker_march=st.sampled_from([3, 4]),
    lone_defender_scoring=st.sampled_from(["both", "lone_only"]),
    tie_policy=st.sampled_from(["play_on", "shared_win"]),
)
ALL_CARDS = frozenset(deck(32) + ["JK"])


def cards_in(value: Any) -> set[str]:
    """Every card string anywhere inside an observation value."""
    if isinstance(value, str):
        return {value} & ALL_CARDS
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


class CheckingBot:
    """Random over legal (its own seeded generator); checks each observation it is shown."""

    def __init__(self, seed: int, seat: int, match_seed: int, rules: Rules, alone_bias: float):
        self.rng = random.Random(seed * 3 + seat)
        self.seat = seat
        self.match_seed = match_seed
        self.rules = rules
        self.alone_bias = alone_bias
        self.seen: list[dict[str, Any]] = []

    def act(self, obs: dict[str, Any]) -> Any:
        self.check(obs)
        self.seen.append(json.loads(json.dumps(obs)))
        legal = obs["legal"]
        if obs["phase"] == "alone" and self.rng.random() < self.alone_bias:
            return "alone"  # lone hands are rare under uniform play; make them common
        choice = legal[self.rng.randrange(len(legal))]
        if obs["phase"] == "keep":
            choice = list(reversed(choice))  # any order is the same keep
        return choice

    def check(self, obs: dict[str, Any]) -> None:
        check_contract(obs)
        assert json.loads(json.dumps(obs)) == obs
        assert obs["seat"] == self.seat and obs["rules"] == self.rules.to_dict()
        deal = deal_for(self.match_seed, obs["hand_number"], self.rules)
        s, phase, hand, trump = self.seat, obs["phase"], obs["hand"], obs["trump"]
        assert obs["upcard"] == deal.upcard
        played = [c for t in obs["tricks"] for _, c in t["cards"]] + [c for _, c in obs["trick"]]
        assert len(set(played)) == len(played)
        assert not set(hand) & set(played) and not set(hand) & set(obs["discards"])
        assert len(set(hand)) == len(hand) and hand == sort_cards(hand)

        # Nothing private to another seat (docs/rules.md section 10). Earlier hands are skipped:
        # their cards are another deal's.
        maker_took_dummy = s == obs["maker"] and s not in obs["alone"] and phase in ("keep", "play")
        hidden = set(deal.kitty[1:]) | (set() if maker_took_dummy else set(deal.dummy))
        for other in (0, 1, 2):
            if other != s:
                hidden |= set(deal.hands[other])
        hidden -= set(played) | {deal.upcard}
        visible = cards_in({k: v for k, v in obs.items() if k != "history"})
        assert not visible & hidden, f"seat {s} sees {visible & hidden} in {phase}"
        if phase == "joker_trump":
            assert hand == [] and visible <= {deal.upcard}

        # Conservation from this seat's view: hand + own plays + own discards.
        own_played = sum(1 for t in obs["tricks"] for p, _ in t["cards"] if p == s)
        own_played += sum(1 for p, _ in obs["trick"] if p == s)
        expected = 5
        if s == obs["dealer"] and obs["pickup"] and phase != "joker_trump":
            expected += 1
        if maker_took_dummy and phase == "play":
            expected += 5
        if phase != "joker_trump":
            assert len(hand) + own_played + len(obs["discards"]) == expected

        legal = obs["legal"]
        if phase == "keep":
            check_keep_options(legal, len(hand) + len(obs["dummy"]))
            assert sorted(obs["dummy"]) == sorted(deal.dummy)
        elif phase == "play":
            assert s != obs["sitting_out"] and len(obs["tricks"]) < 5
            if obs["trick"]:
                led = effective_suit(obs["trick"][0][1], trump)
                follow = [c for c in hand if effective_suit(c, trump) == led]
                assert legal == (follow or hand)
            else:
                assert legal == hand
        elif phase == "discard":
            assert legal == [c for c in hand if c != deal.upcard] and len(hand) == 6


def expected_points(h: HandResult, rules: Rules) -> list[int]:
    """docs/rules.md section 7, written out as the table reads."""
    assert h.maker is not None
    m = h.tricks_won[h.maker]
    lone_def = next((s for s in h.alone if s != h.maker), None)
    maker_alone = h.maker in h.alone
    defenders = [s for s in (0, 1, 2) if s != h.maker]
    if lone_def is not None and rules.lone_defender_scoring == "lone_only":
        defenders = [lone_def]
    points = [0, 0, 0]
    if m == 5:
        points[h.maker] = rules.lone_maker_march if maker_alone else 3
    elif m in (3, 4) and (lone_def is None or h.tricks_won[lone_def] <= 2):
        points[h.maker] = 1
    elif lone_def is None:  # euchred
        for d in defenders:
            points[d] = 2
    elif h.tricks_won[lone_def] in (3, 4):
        for d in defenders:
            points[d] = 2
    else:
        assert h.tricks_won[lone_def] == 5
        for d in defenders:
            points[d] = 4
    return points


def check_hand(h: HandResult, rules: Rules) -> None:
    """One finished hand against the deal and the rules."""
    deal = h.deal
    assert h.upcard == deal.kitty[0]
    if h.passed_out:
        assert h.points == [0, 0, 0] and h.tricks == [] and h.maker is None
        assert len(h.bids) == 6 and all(b["action"] == "pass" for b in h.bids)
        assert not rules.stick_the_dealer
        return
    assert h.maker is not None and h.trump is not None
    players = [s for s in (0, 1, 2) if s != h.sitting_out]
    # Every card in exactly one place at the end of the hand.
    played = [c for t in h.tricks for _, c in t["cards"]]
    kitty_left = list(deal.kitty[1:]) + ([] if h.pickup else [deal.upcard])
    dummy_left = list(deal.dummy) if h.maker in h.alone else []
    sitter: list[str] = []
    if h.sitting_out is not None:  # a sitting dealer may have picked up and discarded first
        sitter = list(deal.hands[h.sitting_out])
        if h.sitting_out == h.dealer and h.pickup:
            sitter = [c for c in [*sitter, deal.upcard] if c not in h.discards[h.dealer]]
    places = played + kitty_left + dummy_left + sitter + [c for d in h.discards for c in d]
    assert Counter(places) == Counter(deck(rules.deck))
    # Five tricks of 3 (2 with a sitter), clockwise among the active seats, won as ranked.
    assert len(h.tricks) == 5
    leader = h.tricks[0]["leader"]
    for t in h.tricks:
        seats = [s for s, _ in t["cards"]]
        assert t["leader"] == leader == seats[0] and sorted(seats) == players
        for a, b in zip(seats, seats[1:], strict=False):
            assert b == next(x for x in ((a + 1) % 3, (a + 2) % 3) if x in players)
        assert t["winner"] == trick_winner(t["cards"], h.trump)
        leader = t["winner"]
    assert h.tricks_won == [sum(t["winner"] == s for t in h.tricks) for s in (0, 1, 2)]
    # Who played their own dealt cards: each seat's plays came from its hand (+ extras).
    for s in players:
        mine = {c for t in h.tricks for p, c in t["cards"] if p == s}
        allowed = set(deal.hands[s])
        if s == h.dealer and h.pickup:
            allowed.add(deal.upcard)
        if s == h.maker and s not in h.alone:
            allowed |= set(deal.dummy)
        assert mine <= allowed
    assert h.points == expected_points(h, rules)


def check_match(m: MatchResult, rules: Rules, seed: int) -> None:
    """The match against the deals from the seed and the end-of-match rule."""
    assert m.first_dealer == first_dealer(seed)
    score = [0, 0, 0]
    for k, h in enumerate(m.hands):
        assert h.deal == deal_for(seed, k, rules) and h.dealer == (m.first_dealer + k) % 3
        assert h.scores_before == score
        check_hand(h, rules)
        score = [a + b for a, b in zip(score, h.points, strict=True)]
        top = max(score)
        ended = top >= rules.target and (score.count(top) == 1 or rules.tie_policy == "shared_win")
        assert ended == (k == len(m.hands) - 1 and not m.truncated)
    assert m.scores == score
    assert m.placements == [1 + sum(o > x for o in score) for x in score]
    if m.truncated:
        assert m.winners == []
        return
    top = max(score)
    assert top >= rules.target
    assert m.winners == [s for s in (0, 1, 2) if score[s] == top]
    if rules.tie_policy == "play_on":
        assert len(m.winners) == 1
    assert all(m.placements[w] == 1 for w in m.winners)


def check_views(m: MatchResult, bots: list[CheckingBot]) -> None:
    """Every observation agrees with the record of its hand, as far as it goes."""
    for bot in bots:
        for obs in bot.seen:
            k = obs["hand_number"]
            h = m.hands[k]
            assert obs["history"] == [m.hands[j].summary() for j in range(k)]
            assert (obs["scores"], obs["dealer"]) == (h.scores_before, h.dealer)
            assert obs["bids"] == h.bids[: len(obs["bids"])]
            n = len(obs["tricks"])
            assert obs["tricks"] == h.tricks[:n]
            if obs["trick"]:
                assert obs["trick"] == h.tricks[n]["cards"][: len(obs["trick"])]
            if obs["trump"] is not None:
                assert (obs["trump"], obs["maker"]) == (h.trump, h.maker)
                assert obs["alone"] == h.alone[: len(obs["alone"])]
            if obs["phase"] == "play":
                assert obs["discards"] == h.discards[obs["seat"]]
                assert (obs["alone"], obs["sitting_out"]) == (h.alone, h.sitting_out)


@settings(max_examples=150, deadline=None)
@given(rules=RULES, seed=st.integers(0, 2**32), alone_bias=st.sampled_from([0.0, 0.3]))
def test_random_legal_matches(rules: Rules, seed: int, alone_bias: float) -> None:
    bots = [CheckingBot(seed, s, seed, rules, alone_bias) for s in range(3)]
    m = play_match(bots, seed=seed, rules=rules, max_hands=60)
    check_match(m, rules, seed)
    check_views(m, bots)
    data = m.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert MatchResult.from_dict(json.loads(json.dumps(data))) == m
    # Same seed and the same decisions: the same match (the bots replay their generators).
    again = [CheckingBot(seed, s, seed, rules, alone_bias) for s in range(3)]
    assert play_match(again, seed=seed, rules=rules, max_hands=60).to_dict() == data


@settings(max_examples=60, deadline=None)
@given(
    rules=RULES,
    seed=st.integers(0, 2**32),
    start=st.lists(st.integers(0, 12), min_size=3, max_size=3),
)
def test_matches_from_given_scores(rules: Rules, seed: int, start: list[int]) -> None:
    """Starting mid-way: scores carry on from ``scores`` and the match still ends by the rule."""
    bots = [CheckingBot(seed, s, seed, rules, 0.2) for s in range(3)]
    m = play_match(bots, seed=seed, rules=rules, scores=start, max_hands=60)
    assert m.hands[0].scores_before == start
    total = [start[s] + sum(h.points[s] for h in m.hands) for s in range(3)]
    assert m.scores == total
    for h in m.hands:
        check_hand(h, rules)
    if not m.truncated:
        top = max(total)
        assert top >= rules.target and m.winners == [s for s in (0, 1, 2) if total[s] == top]
