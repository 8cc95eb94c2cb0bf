"""Hand-by-hand replay views of a stored match (the match page).

Input is the JSON record of each hand (:meth:`arena.engine.HandResult.to_dict`). The view
shows what the table saw plus each seat's own deal; cards that stay private after the hand
(the dummy, the kitty below the up-card, every discard) are never put in the view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.cards import describe_suit, sort_cards

_ROUND_LABELS = {0: "Joker up", 1: "round 1", 2: "round 2"}


@dataclass(frozen=True)
class SeatDeal:
    """One seat's view of the deal: its own five cards and its roles in the hand."""

    seat: int
    cards: list[str]
    roles: list[str]
    tricks_won: int
    points: int
    score_after: int


@dataclass(frozen=True)
class BidView:
    """One bid: who, in which round, and what (a readable phrase)."""

    seat: int
    round: str
    action: str
    passed: bool


@dataclass(frozen=True)
class Play:
    """One card played to a trick."""

    seat: int
    card: str
    wins: bool
    from_dummy: bool


@dataclass(frozen=True)
class TrickView:
    """One trick: who led, the cards in order and who won it."""

    number: int
    leader: int
    plays: list[Play]
    winner: int


@dataclass(frozen=True)
class HandView:
    """A whole hand, ready for the ``_partials/hand.html`` template."""

    number: int
    dealer: int
    upcard: str
    scores_before: list[int]
    scores_after: list[int]
    seats: list[SeatDeal]
    bids: list[BidView]
    passed_out: bool
    trump: str | None
    trump_name: str
    maker: int | None
    pickup: str
    alone: list[int]
    sitting_out: int | None
    dummy_used: bool
    tricks: list[TrickView] = field(default_factory=list)
    outcome: str = ""


def _action_phrase(action: Any) -> str:
    if action == "pass":
        return "passes"
    if action == "order":
        return "orders it up"
    if isinstance(action, str) and action in ("C", "D", "H", "S"):
        return f"names {describe_suit(action)}"
    return str(action)


def _outcome(h: Mapping[str, Any]) -> str:
    # The scoring case in words (docs/rules.md section 7), for the hand's summary line.
    maker = h["maker"]
    points = h["points"]
    m = h["tricks_won"][maker]
    if points[maker] > 0:
        return "march" if m == 5 else "made it"
    if any(s != maker for s in h["alone"]):
        return "set by a lone defender"
    return "euchred"


def hand_view(h: Mapping[str, Any]) -> HandView:
    """The replay view of one hand record."""
    deal = h["deal"]
    hands: Sequence[Sequence[str]] = deal["hands"]
    upcard = deal["kitty"][0]
    maker = h["maker"]
    alone = list(h["alone"])
    trump = h["trump"]
    before = list(h["scores_before"])
    points = list(h["points"])
    after = [b + p for b, p in zip(before, points, strict=True)]
    seats = []
    for s in range(3):
        roles = []
        if s == h["dealer"]:
            roles.append("dealer")
        if s == maker:
            roles.append("maker")
        if s in alone:
            roles.append("alone")
        if s == h["sitting_out"]:
            roles.append("sits out")
        seats.append(
            SeatDeal(s, sort_cards(hands[s]), roles, h["tricks_won"][s], points[s], after[s])
        )
    bids = [
        BidView(
            b["seat"],
            _ROUND_LABELS.get(b["round"], str(b["round"])),
            _action_phrase(b["action"]),
            b["action"] == "pass",
        )
        for b in h["bids"]
    ]
    pickup = ""
    if h["pickup"] is not None and trump is not None:
        pickup = "picks up" if h["pickup"] else "declines"
    # A card the maker plays that was not in the dealt hand (nor the up-card) came from the
    # dummy: once played it is public, and marking it shows how the dummy was used.
    dealt = {s: set(hands[s]) for s in range(3)}
    dummy_used = maker is not None and maker not in alone
    tricks = []
    for i, t in enumerate(h["tricks"], start=1):
        plays = [
            Play(
                seat,
                card,
                seat == t["winner"],
                dummy_used and seat == maker and card not in dealt[seat] and card != upcard,
            )
            for seat, card in t["cards"]
        ]
        tricks.append(TrickView(i, t["leader"], plays, t["winner"]))
    return HandView(
        number=h["hand_number"] + 1,
        dealer=h["dealer"],
        upcard=upcard,
        scores_before=before,
        scores_after=after,
        seats=seats,
        bids=bids,
        passed_out=trump is None,
        trump=trump,
        trump_name=describe_suit(trump) if trump else "",
        maker=maker,
        pickup=pickup,
        alone=alone,
        sitting_out=h["sitting_out"],
        dummy_used=dummy_used,
        tricks=tricks,
        outcome="" if trump is None else _outcome(h),
    )


def play_stats(hands: Sequence[Mapping[str, Any]], seat: int) -> dict[str, int]:
    """Counts for one seat over a match: hands, made trump, went alone, made it, euchred."""
    out = {"hands": 0, "maker": 0, "alone": 0, "made": 0, "euchred": 0, "defended": 0}
    for h in hands:
        if h["trump"] is None:
            continue
        out["hands"] += 1
        if seat in h["alone"]:
            out["alone"] += 1
        if h["maker"] == seat:
            out["maker"] += 1
            if h["points"][seat] > 0:
                out["made"] += 1
            else:
                out["euchred"] += 1
        elif h["points"][seat] > 0:
            out["defended"] += 1
    return out
