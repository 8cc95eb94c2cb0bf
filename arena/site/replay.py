"""Hand-by-hand replay views of a stored match (the match page).

Input is the JSON record of each hand (:meth:`arena.engine.HandResult.to_dict`). The view
shows what the table saw and each seat's own deal, and then, kept apart and labelled as such,
the cards that were hidden during the hand: the dummy and the maker's keep, every discard and
the face-down kitty. A match page is written only after its match has ended, so showing them
helps an author review a keep or a discard and tells no player anything during play.
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
class Discard:
    """Cards a seat put face down: who, which cards, and why (a phrase for the page)."""

    seat: int
    cards: list[str]
    reason: str


@dataclass(frozen=True)
class HiddenCards:
    """The cards hidden during a hand, revealed on the page after it.

    ``dummy_taker`` is the maker who took the dummy (``None`` when it stayed face down) and
    ``kept`` that maker's five cards after the keep. ``upcard_taker`` is the dealer who took
    the up-card; when nobody did, the up-card went back face down with the ``kitty``.
    """

    dummy: list[str]
    dummy_taker: int | None
    kept: list[str]
    discards: list[Discard]
    kitty: list[str]
    upcard_taker: int | None


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
    hidden: HiddenCards
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


def hidden_cards(h: Mapping[str, Any]) -> HiddenCards:
    """What was face down or private during hand ``h``: dummy, keep, discards, kitty."""
    deal = h["deal"]
    dealer, maker = h["dealer"], h["maker"]
    upcard = deal["kitty"][0]
    took_upcard = h["trump"] is not None and bool(h["pickup"])
    discards = [list(d) for d in h.get("discards") or [[], [], []]]
    dummy_taker = maker if maker is not None and maker not in h["alone"] else None
    kept: list[str] = []
    if dummy_taker is not None:
        pool = list(deal["hands"][maker]) + list(deal["dummy"])
        if took_upcard and maker == dealer:
            pool.append(upcard)
        kept = sort_cards([c for c in pool if c not in discards[maker]])
    out = []
    # In the order they happened: the dealer's discard after the pick-up, then the maker's.
    if took_upcard and dealer != maker and discards[dealer]:
        out.append(Discard(dealer, sort_cards(discards[dealer]), "after picking up"))
    if maker is not None and discards[maker]:
        reason = "left over from the keep" if dummy_taker is not None else "after picking up"
        out.append(Discard(maker, sort_cards(discards[maker]), reason))
    return HiddenCards(
        dummy=sort_cards(deal["dummy"]),
        dummy_taker=dummy_taker,
        kept=kept,
        discards=out,
        kitty=list(deal["kitty"][1:]),
        upcard_taker=dealer if took_upcard else None,
    )


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
        seats.append(SeatDeal(s, sort_cards(hands[s]), roles, h["tricks_won"][s], points[s]))
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
    # Marking the cards the maker plays from the dummy shows how the dummy was used.
    dummy = set(deal["dummy"])
    dummy_used = maker is not None and maker not in alone
    tricks = []
    for i, t in enumerate(h["tricks"], start=1):
        plays = [
            Play(
                seat,
                card,
                seat == t["winner"],
                dummy_used and seat == maker and card in dummy,
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
        hidden=hidden_cards(h),
        tricks=tricks,
        outcome="" if trump is None else _outcome(h),
    )
