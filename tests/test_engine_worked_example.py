"""docs/rules.md section 11, the worked example, decision by decision with every legal set."""

from __future__ import annotations

import pytest
from scripted import WORKED_DEAL, Script

from arena.engine import IllegalAction, play_hand, play_match

DEAL = WORKED_DEAL

# Hands are shown and legal cards offered in canonical order: suits C D H S, ranks low to high.
STEPS = [
    "1 bid1 pass order > order",
    "0 pickup pickup decline > pickup",
    # Seat 0 holds 9C TC JD 9H QS KS and may discard anything but the up-card 9H.
    "0 discard 9C TC JD QS KS > 9C",
    "1 alone alone pass > pass",
    "2 alone alone pass > pass",
    "0 alone alone pass > pass",
    "1 keep #252 > JH AH QH TH AC",
    # T1: hearts led; seat 0 must follow with 9H or JD (the left bower is a heart).
    "1 play AC TH JH QH AH > JH",
    "2 play KH > KH",
    "0 play JD 9H > 9H",
    # T2: seat 0's only heart is JD; TC is not offered.
    "1 play AC TH QH AH > AH",
    "2 play QD KD AD TS > TS",
    "0 play JD > JD",
    # T3
    "0 play TC QS KS > KS",
    "1 play AC TH QH > TH",
    "2 play QD KD AD > QD",
    # T4
    "1 play AC QH > AC",
    "2 play KD AD > KD",
    "0 play TC > TC",
    # T5
    "1 play QH > QH",
    "2 play AD > AD",
    "0 play QS > QS",
]


def test_worked_example_every_decision() -> None:
    script = Script(STEPS)
    r = play_hand(script.bots, deal=DEAL, dealer=0, scores=[0, 0, 0])
    script.finished()
    assert (r.trump, r.maker, r.pickup, r.alone, r.sitting_out) == ("H", 1, True, [], None)
    assert r.bids == [{"seat": 1, "round": 1, "action": "order"}]
    assert [t["leader"] for t in r.tricks] == [1, 1, 0, 1, 1]
    assert [t["winner"] for t in r.tricks] == [1, 0, 1, 1, 1]
    assert r.tricks[0]["cards"] == [[1, "JH"], [2, "KH"], [0, "9H"]]
    assert r.tricks_won == [1, 4, 0]
    assert r.points == [0, 1, 0]
    assert not r.passed_out
    # Private records: the dealer's discard and the maker's five discards from hand + dummy.
    assert r.discards == [["9C"], ["QC", "KC", "9D", "9S", "AS"], []]


def test_worked_example_views() -> None:
    """What the scripted decisions saw: the maker's keep view, and the dealer's later hand."""
    script = Script(STEPS)
    play_hand(script.bots, deal=DEAL, dealer=0)
    keep = next(o for o in script.seen if o["phase"] == "keep")
    assert keep["hand"] == ["QC", "KC", "JH", "AH", "9S"]
    assert sorted(keep["dummy"]) == sorted(DEAL.dummy)
    assert keep["pickup"] is True and keep["trump"] == "H" and keep["maker"] == 1
    first_play = next(o for o in script.seen if o["phase"] == "play" and o["seat"] == 0)
    assert first_play["hand"] == ["TC", "JD", "9H", "QS", "KS"]
    assert first_play["discards"] == ["9C"]
    assert first_play["trick"] == [[1, "JH"], [2, "KH"]]
    last = script.seen[-1]
    assert [t["winner"] for t in last["tricks"]] == [1, 0, 1, 1]
    assert last["trick"] == [[1, "QH"], [2, "AD"]]


def test_worked_example_rejects_tc_on_trick_two() -> None:
    steps = STEPS[: STEPS.index("0 play JD > JD")] + ["0 play JD > TC"]
    script = Script(steps)
    with pytest.raises(IllegalAction) as e:
        play_hand(script.bots, deal=DEAL, dealer=0)
    assert (e.value.seat, e.value.phase, e.value.action, e.value.legal) == (0, "play", "TC", ["JD"])


def test_worked_example_next_dealer_is_seat_1() -> None:
    """Through play_match: the hand scores 0/1/0 and the next hand is dealt by seat 1."""
    script = Script(STEPS, then=lambda obs: obs["legal"][0])
    m = play_match(script.bots, seed=11, deals=[DEAL], dealer=0, max_hands=2)
    assert m.hands[0].points == [0, 1, 0]
    assert m.hands[1].dealer == 1
    assert m.hands[1].scores_before == [0, 1, 0]
    assert script.seen[len(STEPS)]["scores"] == [0, 1, 0]
    assert script.seen[len(STEPS)]["history"][0]["points"] == [0, 1, 0]
