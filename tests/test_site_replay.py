"""The match page's replay of a hand, on docs/rules.md section 11 (the worked example)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from bs4 import BeautifulSoup
from scripted import Script
from test_engine_worked_example import DEAL, STEPS

from arena.cards import deck, sort_cards
from arena.engine import Rules, play_hand, play_match
from arena.site.render import make_env
from arena.site.replay import hand_view

NAMES = ["North <i>", "East", "West"]


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    script = Script(STEPS)
    hand = play_hand(script.bots, deal=DEAL, dealer=0, scores=[0, 0, 0])
    script.finished()
    return hand.to_dict()


def test_worked_example_view(record: dict[str, Any]) -> None:
    v = hand_view(record)
    assert (v.number, v.dealer, v.upcard, v.trump, v.trump_name) == (1, 0, "9H", "H", "hearts")
    assert (v.maker, v.pickup, v.alone, v.sitting_out) == (1, "picks up", [], None)
    assert [s.roles for s in v.seats] == [["dealer"], ["maker"], []]
    assert v.seats[1].cards == [
        "QC",
        "KC",
        "JH",
        "AH",
        "9S",
    ]  # as dealt: suits C D H S, low to high
    assert [(b.seat, b.round, b.action) for b in v.bids] == [(1, "round 1", "orders it up")]
    assert v.dummy_used
    assert [t.winner for t in v.tricks] == [1, 0, 1, 1, 1]
    assert [[p.card for p in t.plays if p.wins] for t in v.tricks] == [
        ["JH"],
        ["JD"],
        ["TH"],
        ["AC"],
        ["QH"],
    ]
    # The maker's TH, AC and QH came from the dummy: once played, that is public.
    dummy = [(t.number, p.card) for t in v.tricks for p in t.plays if p.from_dummy]
    assert dummy == [(3, "TH"), (4, "AC"), (5, "QH")]
    assert (v.outcome, v.scores_after, [s.tricks_won for s in v.seats]) == (
        "made it", [0, 1, 0], [1, 4, 0]
    )  # fmt: skip


def test_worked_example_renders_hidden_cards_apart(record: dict[str, Any]) -> None:
    html = (
        make_env()
        .get_template("_partials/hand.html")
        .render(h=hand_view(record), names=NAMES, root="")
    )
    doc = BeautifulSoup(html, "html.parser")
    hidden = doc.select_one("section.hidden-info")
    assert hidden is not None and "revealed after the hand" in hidden.h4.get_text()
    # The face-down kitty, the dummy and the discards appear only in the labelled box.
    private = {"TD", "JC", "JS", "AS", "9D", "9C", "KC", "QC", "9S", "QH", "TH", "AC"}
    hidden.extract()
    outside = {c["title"] for c in doc.select(".card")}
    assert not {"TD", "JC", "JS", "AS", "9D"} & outside
    box = {c["title"] for c in hidden.select(".card")}
    assert private <= box

    def group(css: str) -> list[str]:
        return [c["title"] for c in hidden.select(f".hidden-cards.{css} .card")]

    assert group("dummy") == sort_cards(DEAL.dummy)
    assert group("kept") == sort_cards(["JH", "AH", "QH", "TH", "AC"])
    assert group("kitty") == ["TD", "JC", "JS"]  # the dealer took the up-card
    assert [group("discard")[:1], group("discard")[1:]] == [["9C"], sort_cards(
        ["KC", "QC", "9S", "AS", "9D"])]  # fmt: skip
    labels = [" ".join(dt.get_text().split()) for dt in hidden.select("dt")]
    assert labels == ["Dummy", "North <i> discarded", "East discarded", "Kitty"]
    text = " ".join(hidden.get_text(" ", strip=True).split())
    assert "seen only by East, who kept" in text and "seen by nobody" in text
    assert "after picking up, seen only by North <i>" in text
    assert doc.select_one(".contract").get_text(" ", strip=True) == (
        "Trump \u2665 hearts , maker East . Dealer North <i> picks up the up-card."
        " East takes the dummy and keeps five cards."
    )
    assert "East took 4 tricks: made it. East +1" in " ".join(
        doc.select_one(".verdict").get_text(" ", strip=True).split()
    )


class RandomLegal:
    """Any legal action from its own generator, but passes most bids (so some hands die)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, obs: dict[str, Any]) -> Any:
        if "pass" in obs["legal"] and obs["phase"] in ("bid1", "bid2") and self.rng.random() < 0.8:
            return "pass"
        return self.rng.choice(obs["legal"])


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(deck=25), Rules(deck=32, dealer_pickup="mandatory"),
     Rules(stick_the_dealer=True)],
    ids=["24", "joker", "32-mandatory", "stick"],
)  # fmt: skip
def test_hidden_cards_account_for_every_card(rules: Rules) -> None:
    # Over many real hands: the seat boxes, the dummy and the kitty hold the deck once each;
    # the maker's keep is what the maker then played; keep + discards is the maker's pool.
    seen = {"lone": 0, "keep": 0, "dealer-discard": 0, "passed": 0}
    for seed in range(12):
        bots = [RandomLegal(seed * 3 + s) for s in range(3)]
        for h in (x.to_dict() for x in play_match(bots, seed=seed, rules=rules).hands):
            v = hand_view(h)
            x = v.hidden
            dealt = [c for sd in v.seats for c in sd.cards]
            assert sorted(dealt + x.dummy + x.kitty + [v.upcard]) == sorted(deck(rules.deck))
            discards = {d.seat: d.cards for d in x.discards}
            if v.passed_out:
                seen["passed"] += 1
                assert x.dummy_taker is None and not x.discards and x.upcard_taker is None
                continue
            maker = v.maker
            if x.dummy_taker is None:
                seen["lone"] += 1
                assert maker in v.alone and not x.kept
            else:
                seen["keep"] += 1
                played = [p.card for t in v.tricks for p in t.plays if p.seat == maker]
                assert x.kept == sort_cards(played)
                pool = list(h["deal"]["hands"][maker]) + x.dummy
                pool += [v.upcard] if x.upcard_taker == maker else []
                assert sorted(x.kept + discards[maker]) == sorted(pool)
            if x.upcard_taker is not None and x.upcard_taker != maker:
                seen["dealer-discard"] += 1
                assert len(discards[x.upcard_taker]) == 1
                assert discards[x.upcard_taker][0] != v.upcard
    stuck = rules.stick_the_dealer
    assert all(n > 0 for k, n in seen.items() if k != "passed") and (seen["passed"] == 0) == stuck


@pytest.mark.parametrize(
    ("alone", "points", "outcome"),
    [
        ([], [2, 0, 2], "euchred"),
        ([1], [2, 0, 2], "euchred"),
        ([2], [2, 0, 2], "set by a lone defender"),
        ([], [0, 3, 0], "march"),
    ],
    ids=["euchred", "lone-maker-euchred", "lone-defender", "march"],
)
def test_outcomes(
    record: dict[str, Any], alone: list[int], points: list[int], outcome: str
) -> None:
    h = dict(record, alone=alone, points=points)
    h["tricks_won"] = [0, 5, 0] if outcome == "march" else [2, 2, 1]
    assert hand_view(h).outcome == outcome


def test_passed_out_hand(record: dict[str, Any]) -> None:
    bids = [{"seat": s, "round": r, "action": "pass"} for r in (1, 2) for s in (1, 2, 0)]
    h = dict(record, trump=None, maker=None, pickup=None, bids=bids, tricks=[],
             tricks_won=[0, 0, 0], points=[0, 0, 0], discards=[[], [], []])  # fmt: skip
    v = hand_view(h)
    assert v.passed_out and not v.tricks and v.outcome == "" and not v.dummy_used
    assert [b.action for b in v.bids] == ["passes"] * 6
    html = make_env().get_template("_partials/hand.html").render(h=v, names=NAMES, root="")
    assert "Everybody passed" in html and "trick-table" not in html
