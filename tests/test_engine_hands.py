"""Fully specified hands: deals plus scripted decisions, each checking every legal set offered,
the leader and winner of every trick, and the points (docs/rules.md sections 3-8)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from scripted import WORKED_DEAL, Script, last_legal

from arena.engine import Deal, IllegalAction, Rules, play_hand, play_match

# The worked example's deal (docs/rules.md section 11).
A = WORKED_DEAL
# Seat 0 holds the left bower JD with one real diamond.
B = Deal(
    hands=[
        ["JD", "9D", "AC", "KS", "QS"],
        ["JH", "AH", "KC", "QC", "9S"],
        ["KH", "AD", "KD", "QD", "TS"],
    ],
    dummy=["QH", "TH", "AS", "9C", "TC"],
    kitty=["9H", "TD", "JC", "JS"],
)
# Seat 1 holds both bowers and A K Q of hearts: a march.
M = Deal(
    hands=[
        ["9C", "TC", "KS", "QS", "AD"],
        ["JH", "JD", "AH", "KH", "QH"],
        ["AC", "KD", "QD", "TS", "9S"],
    ],
    dummy=["TH", "AS", "JS", "QC", "KC"],
    kitty=["9H", "9D", "TD", "JC"],
)
# Seat 1 orders hearts on a weak hand; seat 2 holds both bowers, A K of hearts and AS.
L = Deal(
    hands=[
        ["9C", "TC", "9S", "TS", "JS"],
        ["QH", "TH", "AC", "KC", "QC"],
        ["JH", "JD", "AH", "KH", "AS"],
    ],
    dummy=["QS", "KS", "9D", "TD", "QD"],
    kitty=["9H", "KD", "AD", "JC"],
)
# The worked example with the Joker turned up (25 cards).
J25 = Deal(A.hands, A.dummy, ["JK", "9H", "TD", "JC", "JS"])
# 32 cards: 7s and 8s in play, a kitty of 12.
D32 = Deal(
    hands=[
        ["7H", "8C", "9C", "KS", "QS"],
        ["JH", "8H", "KC", "QC", "7S"],
        ["KH", "AD", "KD", "QD", "8S"],
    ],
    dummy=["QH", "TH", "AS", "AC", "9D"],
    kitty=["9H", "TD", "JC", "JS", "JD", "7C", "7D", "8D", "TC", "9S", "TS", "AH"],
)

# fmt: off
# Scripts keep one trick (or one round of bids) per line, like the rules text.
NOBODY_ALONE = [
    "1 alone alone pass > pass", "2 alone alone pass > pass", "0 alone alone pass > pass",
]
ALL_PASS_1 = ["1 bid1 pass order > pass", "2 bid1 pass order > pass", "0 bid1 pass order > pass"]
DEALER_ORDERS = [
    "1 bid1 pass order > pass", "2 bid1 pass order > pass", "0 bid1 pass order > order",
]
# Worked example up to the keep, then its play.
WORKED_PLAY = [
    "1 play AC TH JH QH AH > JH", "2 play KH > KH", "0 play JD 9H > 9H",
    "1 play AC TH QH AH > AH", "2 play QD KD AD TS > TS", "0 play JD > JD",
    "0 play TC QS KS > KS", "1 play AC TH QH > TH", "2 play QD KD AD > QD",
    "1 play AC QH > AC", "2 play KD AD > KD", "0 play TC > TC",
    "1 play QH > QH", "2 play AD > AD", "0 play QS > QS",
]
LONE_MARCH = [
    "1 bid1 pass order > order", "0 pickup pickup decline > decline",
    "1 alone alone pass > alone", "2 alone alone pass > pass", "0 alone alone pass > pass",
    "2 play AC QD KD 9S TS > AC", "0 play 9C TC > 9C", "1 play JD JH QH KH AH > QH",
    "1 play JD JH KH AH > JH", "2 play QD KD 9S TS > 9S", "0 play TC AD QS KS > TC",
    # JD led is a trump lead: seat 2's diamonds need not follow it.
    "1 play JD KH AH > JD", "2 play QD KD TS > QD", "0 play AD QS KS > AD",
    "1 play KH AH > AH", "2 play KD TS > KD", "0 play QS KS > QS",
    "1 play KH > KH", "2 play TS > TS", "0 play KS > KS",
]
LONE_DEFENDER = [
    "1 bid1 pass order > order", "0 pickup pickup decline > decline",
    # Seat 2 goes alone, so seat 0 sits out and is never asked again.
    "1 alone alone pass > pass", "2 alone alone pass > alone",
    "1 keep #252 > QH TH AC KC QC",
]
DEFENDER_TAKES_5 = [
    "1 play QC KC AC TH QH > AC", "2 play JD JH KH AH AS > JD",
    "2 play JH KH AH AS > JH", "1 play TH QH > TH",
    "2 play KH AH AS > AH", "1 play QH > QH",
    "2 play KH AS > AS", "1 play QC KC > QC",
    "2 play KH > KH", "1 play KC > KC",
]
DEFENDER_TAKES_4 = [
    "1 play QC KC AC TH QH > AC", "2 play JD JH KH AH AS > AS",
    "1 play QC KC TH QH > KC", "2 play JD JH KH AH > KH",
    "2 play JD JH AH > JH", "1 play TH QH > TH",
    "2 play JD AH > JD", "1 play QH > QH",
    "2 play AH > AH", "1 play QC > QC",
]
BOTH_ALONE = [
    "1 bid1 pass order > order", "0 pickup pickup decline > decline",
    "1 alone alone pass > alone", "2 alone alone pass > alone",
]
DEALER_ALONE_EUCHRED = DEALER_ORDERS + [
    "0 alone alone pass > alone", "1 alone alone pass > pass", "2 alone alone pass > pass",
    # Six cards; the up-card 9H is not offered.
    "0 discard 9C TC JD QS KS > 9C",
    "1 play QC KC JH AH 9S > 9S", "2 play TS > TS", "0 play QS KS > KS",
    "0 play TC JD 9H QS > JD", "1 play JH AH > AH", "2 play KH > KH",
    "0 play TC 9H QS > 9H", "1 play JH > JH", "2 play QD KD AD > QD",
    "1 play QC KC > KC", "2 play KD AD > KD", "0 play TC > TC",
    "1 play QC > QC", "2 play AD > AD", "0 play QS > QS",
]

# fmt: on


@dataclass
class HandCase:
    """One scripted hand and what must come of it."""

    id: str
    deal: Deal
    steps: list[str]
    trump: str
    maker: int
    leaders: str
    winners: str
    points: list[int]
    dealer: int = 0
    rules: Rules = field(default_factory=Rules)
    pickup: bool | None = True
    alone: list[int] = field(default_factory=list)
    sitting_out: int | None = None
    discards: list[list[str]] | None = None


# fmt: off
CASES = [
    HandCase(
        "dealer-declines-left-bower-refuses-its-printed-suit",
        B,
        [
            "1 bid1 pass order > order", "0 pickup pickup decline > decline",
            *NOBODY_ALONE, "1 keep #252 > JH QH TH AS 9S",
            "1 play TH JH QH 9S AS > 9S", "2 play TS > TS", "0 play QS KS > KS",
            "0 play AC 9D JD QS > AC", "1 play TH JH QH AS > AS", "2 play QD KD AD KH > KH",
            # Diamonds led: seat 0 must play 9D; JD is a heart now and is not offered.
            "2 play QD KD AD > AD", "0 play 9D > 9D", "1 play TH JH QH > TH",
            # Hearts led: JD follows trump and is seat 0's only legal card.
            "1 play JH QH > JH", "2 play QD KD > KD", "0 play JD > JD",
            "1 play QH > QH", "2 play QD > QD", "0 play QS > QS",
        ],
        trump="H", maker=1, leaders="1 0 2 1 1", winners="0 2 1 1 1", points=[0, 1, 0],
        pickup=False, discards=[[], ["9C", "TC", "QC", "KC", "AH"], []],
    ),
    HandCase(
        "left-bower-led-is-a-trump-lead",
        B,
        [
            "0 bid1 pass order > order", "2 pickup pickup decline > pickup",
            "2 discard QD KD AD KH TS > TS",
            "0 alone alone pass > pass", "1 alone alone pass > pass", "2 alone alone pass > pass",
            "0 keep #252 > JD QH TH AS AC",
            # JD led: hearts must follow (seat 1 JH AH; seat 2 9H KH, not its diamonds).
            "0 play AC JD TH QH AS > JD", "1 play JH AH > AH", "2 play 9H KH > 9H",
            "0 play AC TH QH AS > AS", "1 play 9S > 9S", "2 play QD KD AD KH > QD",
            "0 play AC TH QH > AC", "1 play QC KC > KC", "2 play KD AD KH > KH",
            "2 play KD AD > AD", "0 play TH QH > TH", "1 play QC JH > QC",
            "0 play QH > QH", "1 play JH > JH", "2 play KD > KD",
        ],
        trump="H", maker=0, dealer=2, leaders="0 0 0 2 0", winners="0 0 2 0 1",
        points=[1, 0, 0], discards=[["9C", "TC", "9D", "QS", "KS"], [], ["TS"]],
    ),
    HandCase(
        "lone-maker-left-of-maker-leads-no-dummy",
        A,
        [
            "1 bid1 pass order > order", "0 pickup pickup decline > pickup",
            "0 discard 9C TC JD QS KS > 9C",
            "1 alone alone pass > alone", "2 alone alone pass > pass", "0 alone alone pass > pass",
            "2 play QD KD AD KH TS > TS", "0 play QS KS > KS", "1 play 9S > 9S",
            "0 play TC JD 9H QS > JD", "1 play JH AH > JH", "2 play KH > KH",
            "1 play QC KC AH > AH", "2 play QD KD AD > QD", "0 play 9H > 9H",
            "1 play QC KC > KC", "2 play KD AD > KD", "0 play TC > TC",
            "1 play QC > QC", "2 play AD > AD", "0 play QS > QS",
        ],
        trump="H", maker=1, leaders="2 0 1 1 1", winners="0 1 1 1 1", points=[0, 1, 0],
        alone=[1], discards=[["9C"], [], []],
    ),
    HandCase(
        "lone-maker-march-3", M, LONE_MARCH, trump="H", maker=1, leaders="2 1 1 1 1",
        winners="1 1 1 1 1", points=[0, 3, 0], pickup=False, alone=[1],
    ),
    HandCase(
        "lone-maker-march-variant-4", M, LONE_MARCH, trump="H", maker=1, leaders="2 1 1 1 1",
        winners="1 1 1 1 1", points=[0, 4, 0], pickup=False, alone=[1],
        rules=Rules(lone_maker_march=4),
    ),
    HandCase(
        "march-with-dummy-stays-3-under-variant-4",
        M,
        [
            "1 bid1 pass order > order", "0 pickup pickup decline > decline",
            *NOBODY_ALONE, "1 keep #252 > JD JH QH KH AH",
            "1 play JD JH QH KH AH > JH", "2 play AC QD KD 9S TS > 9S",
            "0 play 9C TC AD QS KS > 9C",
            "1 play JD QH KH AH > JD", "2 play AC QD KD TS > TS", "0 play TC AD QS KS > TC",
            "1 play QH KH AH > AH", "2 play AC QD KD > AC", "0 play AD QS KS > AD",
            "1 play QH KH > KH", "2 play QD KD > KD", "0 play QS KS > QS",
            "1 play QH > QH", "2 play QD > QD", "0 play KS > KS",
        ],
        trump="H", maker=1, leaders="1 1 1 1 1", winners="1 1 1 1 1", points=[0, 3, 0],
        pickup=False, rules=Rules(lone_maker_march=4),
        discards=[[], ["QC", "KC", "TH", "JS", "AS"], []],
    ),
    HandCase(
        "lone-defender-takes-5-maker-leads-sitter-scores",
        L, LONE_DEFENDER + DEFENDER_TAKES_5, trump="H", maker=1, leaders="1 2 2 2 2",
        winners="2 2 2 2 2", points=[4, 0, 4], pickup=False, alone=[2], sitting_out=0,
    ),
    HandCase(
        "lone-defender-takes-5-lone-only-scoring",
        L, LONE_DEFENDER + DEFENDER_TAKES_5, trump="H", maker=1, leaders="1 2 2 2 2",
        winners="2 2 2 2 2", points=[0, 0, 4], pickup=False, alone=[2], sitting_out=0,
        rules=Rules(lone_defender_scoring="lone_only"),
    ),
    HandCase(
        "lone-defender-takes-4",
        L, LONE_DEFENDER + DEFENDER_TAKES_4, trump="H", maker=1, leaders="1 1 2 2 2",
        winners="1 2 2 2 2", points=[2, 0, 2], pickup=False, alone=[2], sitting_out=0,
    ),
    HandCase(
        "lone-defender-takes-4-lone-only-scoring",
        L, LONE_DEFENDER + DEFENDER_TAKES_4, trump="H", maker=1, leaders="1 1 2 2 2",
        winners="1 2 2 2 2", points=[0, 0, 2], pickup=False, alone=[2], sitting_out=0,
        rules=Rules(lone_defender_scoring="lone_only"),
    ),
    HandCase(
        "both-alone-lone-defender-leads",
        L,
        BOTH_ALONE + [
            "2 play JD JH KH AH AS > JH", "1 play TH QH > TH",
            "2 play JD KH AH AS > JD", "1 play QH > QH",
            "2 play KH AH AS > AS", "1 play QC KC AC > QC",
            "2 play KH AH > AH", "1 play KC AC > KC",
            "2 play KH > KH", "1 play AC > AC",
        ],
        trump="H", maker=1, leaders="2 2 2 2 2", winners="2 2 2 2 2", points=[4, 0, 4],
        pickup=False, alone=[1, 2], sitting_out=0,
    ),
    HandCase(
        "both-alone-maker-leads-variant",
        L, BOTH_ALONE + DEFENDER_TAKES_4, trump="H", maker=1, leaders="1 1 2 2 2",
        winners="1 2 2 2 2", points=[2, 0, 2], pickup=False, alone=[1, 2], sitting_out=0,
        rules=Rules(both_alone_lead="maker"),
    ),
    HandCase(
        "dealer-maker-keeps-5-of-11",
        A,
        DEALER_ORDERS + NOBODY_ALONE[2:] + NOBODY_ALONE[:2] + [
            "0 keep #462 > JD 9H TH QH AS",
            "1 play QC KC JH AH 9S > JH", "2 play KH > KH", "0 play JD 9H TH QH > 9H",
            "1 play QC KC AH 9S > AH", "2 play QD KD AD TS > TS", "0 play JD TH QH > JD",
            "0 play TH QH AS > AS", "1 play 9S > 9S", "2 play QD KD AD > QD",
            "0 play TH QH > QH", "1 play QC KC > QC", "2 play KD AD > KD",
            "0 play TH > TH", "1 play KC > KC", "2 play AD > AD",
        ],
        trump="H", maker=0, leaders="1 1 0 0 0", winners="1 0 0 0 0", points=[1, 0, 0],
        discards=[["9C", "TC", "AC", "9D", "QS", "KS"], [], []],
    ),
    HandCase(
        "dealer-maker-alone-discards-1-of-6-euchred",
        A, DEALER_ALONE_EUCHRED, trump="H", maker=0, leaders="1 0 0 1 1",
        winners="0 0 1 1 1", points=[0, 2, 2], alone=[0], discards=[["9C"], [], []],
    ),
    HandCase(
        "stick-the-dealer",
        A,
        ALL_PASS_1 + [
            "1 bid2 pass C D S > pass", "2 bid2 pass C D S > pass",
            # The stuck dealer may not pass; the turned-down H is not offered either.
            "0 bid2 C D S > S",
            *NOBODY_ALONE[2:], *NOBODY_ALONE[:2], "0 keep #252 > 9C AC QS KS AS",
            "1 play QC KC JH AH 9S > AH", "2 play KH > KH", "0 play 9C AC QS KS AS > QS",
            "0 play 9C AC KS AS > AS", "1 play 9S > 9S", "2 play TS > TS",
            "0 play 9C AC KS > KS", "1 play QC KC JH > JH", "2 play QD KD AD > QD",
            "0 play 9C AC > AC", "1 play QC KC > KC", "2 play KD AD > KD",
            "0 play 9C > 9C", "1 play QC > QC", "2 play AD > AD",
        ],
        trump="S", maker=0, leaders="1 0 0 0 0", winners="0 0 0 0 1", points=[1, 0, 0],
        pickup=None, rules=Rules(stick_the_dealer=True),
    ),
    HandCase(
        "joker-turned-up-dealer-names-trump",
        J25,
        [
            "0 joker_trump C D H S > H",
            *NOBODY_ALONE[2:], *NOBODY_ALONE[:2], "0 keep #462 > JK JD QH TH AS",
            # The Joker follows a trump lead and beats the right bower.
            "1 play QC KC JH AH 9S > JH", "2 play KH > KH", "0 play JD TH QH JK > JK",
            "0 play JD TH QH AS > JD", "1 play AH > AH", "2 play QD KD AD TS > TS",
            "0 play TH QH AS > AS", "1 play 9S > 9S", "2 play QD KD AD > QD",
            "0 play TH QH > TH", "1 play QC KC > QC", "2 play KD AD > KD",
            "0 play QH > QH", "1 play KC > KC", "2 play AD > AD",
        ],
        trump="H", maker=0, leaders="1 0 0 0 0", winners="0 0 0 0 0", points=[3, 0, 0],
        rules=Rules(deck=25), discards=[["9C", "TC", "AC", "9D", "QS", "KS"], [], []],
    ),
    HandCase(
        "deck-32-eights-and-sevens",
        D32,
        [
            "1 bid1 pass order > order", "0 pickup pickup decline > pickup",
            "0 discard 8C 9C 7H QS KS > 8C", *NOBODY_ALONE, "1 keep #252 > JH QH TH 8H AC",
            # 8H beats 7H but not KH.
            "1 play AC 8H TH JH QH > 8H", "2 play KH > KH", "0 play 7H 9H > 7H",
            "2 play QD KD AD 8S > 8S", "0 play QS KS > QS", "1 play AC TH JH QH > AC",
            "0 play 9C 9H KS > 9H", "1 play TH JH QH > TH", "2 play QD KD AD > QD",
            "1 play JH QH > JH", "2 play KD AD > KD", "0 play 9C KS > 9C",
            "1 play QH > QH", "2 play AD > AD", "0 play KS > KS",
        ],
        trump="H", maker=1, leaders="1 2 0 1 1", winners="2 0 1 1 1", points=[0, 1, 0],
        rules=Rules(deck=32),
    ),
    HandCase(
        "round2-may-name-the-turned-down-suit",
        A,
        ALL_PASS_1 + ["1 bid2 pass C D H S > H", *NOBODY_ALONE, "1 keep #252 > JH AH QH TH AC",
            "1 play AC TH JH QH AH > JH", "2 play KH > KH", "0 play JD > JD",
            "1 play AC TH QH AH > AH", "2 play QD KD AD TS > TS", "0 play 9C TC QS KS > 9C",
            "1 play AC TH QH > AC", "2 play QD KD AD > QD", "0 play TC > TC",
            "1 play TH QH > TH", "2 play KD AD > KD", "0 play QS KS > QS",
            "1 play QH > QH", "2 play AD > AD", "0 play KS > KS",
        ],
        trump="H", maker=1, leaders="1 1 1 1 1", winners="1 1 1 1 1", points=[0, 3, 0],
        pickup=None, rules=Rules(round2_allow_turned_down=True),
    ),
    HandCase(
        "dealer-pickup-mandatory-no-pickup-question",
        A,
        ["1 bid1 pass order > order", "0 discard 9C TC JD QS KS > 9C", *NOBODY_ALONE,
         "1 keep #252 > JH AH QH TH AC", *WORKED_PLAY],
        trump="H", maker=1, leaders="1 1 0 1 1", winners="1 0 1 1 1", points=[0, 1, 0],
        rules=Rules(dealer_pickup="mandatory"),
        discards=[["9C"], ["QC", "KC", "9D", "9S", "AS"], []],
    ),
]

# fmt: on


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_scripted_hand(case: HandCase) -> None:
    script = Script(case.steps)
    r = play_hand(script.bots, deal=case.deal, dealer=case.dealer, rules=case.rules)
    script.finished()
    assert (r.trump, r.maker, r.pickup) == (case.trump, case.maker, case.pickup)
    assert (r.alone, r.sitting_out) == (case.alone, case.sitting_out)
    assert " ".join(str(t["leader"]) for t in r.tricks) == case.leaders
    assert " ".join(str(t["winner"]) for t in r.tricks) == case.winners
    players = 2 if case.sitting_out is not None else 3
    for t in r.tricks:
        assert len(t["cards"]) == players and t["cards"][0][0] == t["leader"]
        assert case.sitting_out not in [s for s, _ in t["cards"]]
    won = [sum(t["winner"] == s for t in r.tricks) for s in range(3)]
    assert r.tricks_won == won
    assert r.points == case.points
    if case.discards is not None:
        assert r.discards == case.discards
    # Nobody is asked anything once they sit out, and the dummy shows only in a keep.
    if case.sitting_out is not None:
        lone = case.alone[-1]
        sat = max(
            i for i, o in enumerate(script.seen) if o["seat"] == lone and o["phase"] == "alone"
        )
        assert all(o["seat"] != case.sitting_out for o in script.seen[sat:])
        assert all(o["sitting_out"] == case.sitting_out for o in script.seen[sat + 1 :])
    for obs in script.seen:
        assert ("dummy" in obs) == (obs["phase"] == "keep")


def test_joker_trump_is_named_blind() -> None:
    case = next(c for c in CASES if c.id.startswith("joker"))
    script = Script(case.steps)
    play_hand(script.bots, deal=case.deal, dealer=0, rules=case.rules)
    first = script.seen[0]
    assert (first["phase"], first["hand"], first["upcard"], first["trump"]) == (
        "joker_trump",
        [],
        "JK",
        None,
    )
    after = script.seen[1]
    assert after["bids"] == [{"seat": 0, "round": 0, "action": "H"}]
    assert (after["trump"], after["maker"], after["pickup"]) == ("H", 0, True)
    assert after["hand"] == ["9C", "TC", "JD", "QS", "KS", "JK"]


def test_passed_out_hand_then_next_dealer() -> None:
    hand1 = ALL_PASS_1 + [
        "1 bid2 pass C D S > pass",
        "2 bid2 pass C D S > pass",
        "0 bid2 pass C D S > pass",
    ]
    hand2 = [
        "2 bid1 pass order > pass",
        "0 bid1 pass order > pass",
        "1 bid1 pass order > pass",
        "2 bid2 pass C D S > pass",
        "0 bid2 pass C D S > pass",
        "1 bid2 pass C D S > pass",
    ]
    script = Script(hand1 + hand2)
    m = play_match(script.bots, seed=3, scores=[3, 4, 5], dealer=0, deals=[A, A], max_hands=2)
    script.finished()
    assert [h.passed_out for h in m.hands] == [True, True]
    assert [h.dealer for h in m.hands] == [0, 1]
    assert [h.points for h in m.hands] == [[0, 0, 0], [0, 0, 0]]
    assert (m.scores, m.winners, m.placements, m.truncated) == ([3, 4, 5], [], [3, 2, 1], True)
    second = script.seen[6]
    assert (second["hand_number"], second["dealer"], second["scores"]) == (1, 1, [3, 4, 5])
    assert second["history"][0]["passed_out"] is True
    assert second["history"][0]["trump"] is None and second["history"][0]["points"] == [0, 0, 0]


@pytest.mark.parametrize("policy", ["play_on", "shared_win"])
def test_two_defenders_pass_10_on_one_hand(policy: str) -> None:
    """The lone dealer-maker is euchred from 5/9/9: seats 1 and 2 both reach 11."""
    script = Script(DEALER_ALONE_EUCHRED, then=last_legal)
    rules = Rules(tie_policy=policy)  # type: ignore[arg-type]
    m = play_match(script.bots, seed=5, rules=rules, scores=[5, 9, 9], dealer=0, deals=[A])
    assert m.hands[0].points == [0, 2, 2]
    if policy == "shared_win":
        assert (m.scores, m.winners, m.placements) == ([5, 11, 11], [1, 2], [3, 1, 1])
        assert len(m.hands) == 1
    else:
        assert len(m.hands) > 1 and m.hands[1].scores_before == [5, 11, 11]
        assert len(m.winners) == 1 and not m.truncated
        top = max(m.scores)
        assert m.scores[m.winners[0]] == top >= 10 and m.scores.count(top) == 1
        assert m.placements[m.winners[0]] == 1


# --- illegal actions ----------------------------------------------------------------------

TO_KEEP = ["1 bid1 * > order", "0 pickup * > pickup", "0 discard * > 9C", *NOBODY_ALONE]
ILLEGAL: list[tuple[str, Deal, Rules, list[str], tuple[int, str, Any, Any]]] = [
    ("bid1-answers-pickup", A, Rules(), [], (1, "bid1", None, "pickup")),
    ("bid1-names-a-suit", A, Rules(), [], (1, "bid1", None, "H")),
    ("bid1-lowercase", A, Rules(), [], (1, "bid1", None, "ORDER")),
    ("bid1-int", A, Rules(), [], (1, "bid1", None, 1)),
    ("bid1-none", A, Rules(), [], (1, "bid1", None, None)),
    ("bid1-bytes", A, Rules(), [], (1, "bid1", None, b"order")),
    ("bid1-unhashable-list", A, Rules(), [], (1, "bid1", None, ["order"])),
    ("bid1-unhashable-dict", A, Rules(), [], (1, "bid1", None, {"order": 1})),
    ("pickup-answers-order", A, Rules(), ["1 bid1 * > order"], (0, "pickup", None, "order")),
    ("discard-the-up-card", A, Rules(), TO_KEEP[:2], (0, "discard", None, "9H")),
    ("discard-card-not-in-hand", A, Rules(), TO_KEEP[:2], (0, "discard", None, "AS")),
    ("bid2-turned-down-suit", A, Rules(), ALL_PASS_1, (1, "bid2", None, "H")),
    ("bid2-answers-order", A, Rules(), ALL_PASS_1, (1, "bid2", None, "order")),
    (
        "bid2-stuck-dealer-passes",
        A,
        Rules(stick_the_dealer=True),
        ALL_PASS_1 + ["1 bid2 * > pass", "2 bid2 * > pass"],
        (0, "bid2", None, "pass"),
    ),
    ("alone-answers-order", A, Rules(), TO_KEEP[:3], (1, "alone", None, "order")),
    ("keep-4-cards", A, Rules(), TO_KEEP, (1, "keep", None, ["JH", "AH", "QH", "TH"])),
    ("keep-6-cards", A, Rules(), TO_KEEP, (1, "keep", None, ["JH", "AH", "QH", "TH", "AC", "9S"])),
    ("keep-duplicate", A, Rules(), TO_KEEP, (1, "keep", None, ["JH", "JH", "AH", "QH", "TH"])),
    ("keep-foreign-card", A, Rules(), TO_KEEP, (1, "keep", None, ["JH", "AH", "QH", "TH", "KD"])),
    ("keep-as-string", A, Rules(), TO_KEEP, (1, "keep", None, "JH AH QH TH AC")),
    ("keep-ints", A, Rules(), TO_KEEP, (1, "keep", None, [1, 2, 3, 4, 5])),
    ("keep-unhashable", A, Rules(), TO_KEEP, (1, "keep", None, [["JH"], "AH", "QH", "TH", "AC"])),
    ("keep-none", A, Rules(), TO_KEEP, (1, "keep", None, None)),
    (
        "play-card-not-in-hand",
        A,
        Rules(),
        TO_KEEP + ["1 keep * > JH AH QH TH AC"],
        (1, "play", None, "KD"),
    ),
    (
        "play-lowercase-card",
        A,
        Rules(),
        TO_KEEP + ["1 keep * > JH AH QH TH AC"],
        (1, "play", None, "jh"),
    ),
    (
        "play-not-following-suit",
        A,
        Rules(),
        TO_KEEP + ["1 keep * > JH AH QH TH AC", "1 play * > AH"],
        (2, "play", None, "QD"),
    ),
    (
        "play-list-of-card",
        A,
        Rules(),
        TO_KEEP + ["1 keep * > JH AH QH TH AC"],
        (1, "play", None, ["JH"]),
    ),
    ("joker-trump-pass", J25, Rules(deck=25), [], (0, "joker_trump", None, "pass")),
    ("joker-trump-joker", J25, Rules(deck=25), [], (0, "joker_trump", None, "JK")),
]


@pytest.mark.parametrize(
    ("deal", "rules", "prefix", "bad"), [c[1:] for c in ILLEGAL], ids=[c[0] for c in ILLEGAL]
)
def test_illegal_action_raises(
    deal: Deal, rules: Rules, prefix: list[str], bad: tuple[int, str, Any, Any]
) -> None:
    script = Script([*prefix, bad])
    with pytest.raises(IllegalAction) as e:
        play_hand(script.bots, deal=deal, dealer=0, rules=rules)
    script.finished()
    assert isinstance(e.value, ValueError)
    assert (e.value.seat, e.value.phase) == bad[:2]
    assert e.value.action is bad[3]
    assert e.value.legal == script.seen[-1]["legal"]
    assert f"seat {bad[0]}" in str(e.value) and repr(bad[1]) in str(e.value)
