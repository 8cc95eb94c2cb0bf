"""The match page's replay of a hand, on docs/rules.md section 11 (the worked example)."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from scripted import Script
from test_engine_worked_example import DEAL, STEPS

from arena.engine import play_hand
from arena.site.render import make_env
from arena.site.replay import hand_view, play_stats

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


def test_worked_example_renders_without_private_cards(record: dict[str, Any]) -> None:
    html = (
        make_env()
        .get_template("_partials/hand.html")
        .render(h=hand_view(record), names=NAMES, root="")
    )
    doc = BeautifulSoup(html, "html.parser")
    shown = [c["title"] for c in doc.select(".card")]
    # The face-down kitty and the dummy cards the maker discarded are never shown.
    assert not {"TD", "JC", "JS", "AS", "9D"} & set(shown)
    assert "North <i>" in doc.select_one(".seat-name").get_text()  # escaped, shown as text
    assert doc.select_one(".contract").get_text(" ", strip=True) == (
        "Trump \u2665 hearts , maker East . Dealer North <i> picks up the up-card."
        " East takes the dummy and keeps five cards."
    )
    assert "East took 4 tricks: made it. East +1" in " ".join(
        doc.select_one(".verdict").get_text(" ", strip=True).split()
    )


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
    assert play_stats([h], 1)["hands"] == 0


def test_play_stats(record: dict[str, Any]) -> None:
    assert play_stats([record], 1) == {
        "hands": 1, "maker": 1, "alone": 0, "made": 1, "euchred": 0, "defended": 0
    }  # fmt: skip
    assert play_stats([record], 0)["maker"] == 0
