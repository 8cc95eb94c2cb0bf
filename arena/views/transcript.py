"""Plain-text views of hands and matches (the ``demo`` and ``replay`` commands, golden files)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import describe_suit, format_cards, plays
from arena.engine import HandResult, MatchResult


def format_hand(hand: HandResult, names: Sequence[str] = ("seat 0", "seat 1", "seat 2")) -> str:
    """One hand as readable lines: the deal, bidding, alone calls, tricks and points."""
    out = [
        f"Hand {hand.hand_number + 1}: {names[hand.dealer]} deals; scores before "
        f"{'/'.join(map(str, hand.scores_before))}; up-card {hand.upcard}"
    ]
    for s in range(3):
        out.append(f"  {names[s]:>12}: {format_cards(hand.deal.hands[s])}")
    out.append(f"  {'dummy':>12}: {format_cards(hand.deal.dummy)}")
    for b in hand.bids:
        rnd = {0: "names trump (Joker up)", 1: "round 1", 2: "round 2"}[b["round"]]
        out.append(f"  {rnd}: {names[b['seat']]} {b['action']}")
    if hand.trump is None or hand.maker is None:
        out.append("  passed out: nobody scores")
        return "\n".join(out)
    if hand.pickup is not None and hand.maker != hand.dealer:
        out.append(f"  dealer {'picks up' if hand.pickup else 'declines'} {hand.upcard}")
    out.append(f"  trump {describe_suit(hand.trump)}, maker {names[hand.maker]}")
    for s in hand.alone:
        out.append(f"  {names[s]} goes alone")
    if hand.sitting_out is not None:
        out.append(f"  {names[hand.sitting_out]} sits out")
    for s, gone in enumerate(hand.discards):
        if gone:
            took = s == hand.maker and s not in hand.alone
            verb = "takes the dummy and discards" if took else "discards"
            out.append(f"  {names[s]} {verb} {format_cards(gone)}")
    for i, t in enumerate(hand.tricks, 1):
        played = ", ".join(f"{names[s]} {c}" for s, c in plays(t["cards"]))
        out.append(f"  trick {i}: {played} -> {names[t['winner']]}")
    won = ", ".join(f"{names[s]} {hand.tricks_won[s]}" for s in range(3))
    pts = ", ".join(f"{names[s]} +{p}" for s, p in enumerate(hand.points) if p)
    out.append(f"  tricks: {won}; points: {pts or 'none'}")
    return "\n".join(out)


def format_match(match: MatchResult, names: Sequence[str] = ("seat 0", "seat 1", "seat 2")) -> str:
    """A whole match, hand by hand, with the final scores and places."""
    parts = [format_hand(h, names) for h in match.hands]
    final = ", ".join(
        f"{names[s]} {match.scores[s]} (place {match.placements[s]})" for s in range(3)
    )
    winners = " and ".join(names[s] for s in match.winners) or "nobody (truncated)"
    parts.append(f"Final: {final}. Winner: {winners}.")
    return "\n\n".join(parts)
