"""Cards of Three-Handed Euchre: parsing, formatting, suits under a trump, trick ranking.

This module is small and standalone (it imports nothing else of ``arena``): bots import it
inside the sandbox. A card is a two-character string, rank then suit (``"JH"``, ``"TD"``,
``"9C"``), or ``"JK"`` for the Joker of the 25-card deck.

>>> effective_suit("JD", "H")          # the left bower belongs to trump
'H'
>>> beats("JD", "AH", trump="H", led="H")
True
>>> trick_winner([(0, "AS"), (1, "9H"), (2, "KS")], trump="H")
1
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

__all__ = [
    "SUITS",
    "RANKS",
    "JOKER",
    "InvalidCard",
    "deck",
    "parse_card",
    "parse_cards",
    "format_cards",
    "suit_of",
    "rank_of",
    "same_colour_suit",
    "same_colour",
    "right_bower",
    "left_bower",
    "is_trump",
    "effective_suit",
    "power",
    "power_table",
    "suit_table",
    "describe_suit",
    "beats",
    "trick_winner",
    "card_key",
    "sort_cards",
    "trump_order",
]

SUITS: Final = ("C", "D", "H", "S")
"""Suits in canonical order: clubs, diamonds, hearts, spades."""
RANKS: Final = ("7", "8", "9", "T", "J", "Q", "K", "A")
"""Ranks low to high in a plain (non-trump) suit, ignoring the jack's trump role."""
JOKER: Final = "JK"
"""The Joker of the 25-card deck: the highest trump."""

_PARTNER: Final = {"C": "S", "S": "C", "D": "H", "H": "D"}
_SUIT_NAMES: Final = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_PLAIN_ORDER: Final = ("7", "8", "9", "T", "J", "Q", "K", "A")
_TRUMP_ORDER: Final = ("7", "8", "9", "T", "Q", "K", "A")  # below the bowers


class InvalidCard(ValueError):
    """A string that is not a card of any Euchre deck (malformed, not merely out of place)."""


def deck(size: int = 24) -> list[str]:
    """Return the cards of a deck of ``size`` 24, 32 or 25, in canonical order."""
    if size not in (24, 25, 32):
        raise ValueError(f"no Euchre deck has {size} cards (24, 25 or 32)")
    ranks = RANKS if size == 32 else RANKS[2:]
    cards = [r + s for s in SUITS for r in ranks]
    if size == 25:
        cards.append(JOKER)
    return cards


_ALL: Final = frozenset(deck(32)) | {JOKER}


def parse_card(text: str) -> str:
    """Return the canonical form of a card written like ``"jh"``, ``"10H"`` or ``" JK "``.

    Raises :class:`InvalidCard` for anything that is not a card.
    """
    if not isinstance(text, str):
        raise InvalidCard(f"not a card: {text!r}")
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if t not in _ALL:
        raise InvalidCard(f"not a card: {text!r}")
    return t


def parse_cards(text: str | Iterable[str]) -> list[str]:
    """Parse a space- or comma-separated string (or an iterable) of cards."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(c) for c in items]


def format_cards(cards: Iterable[str]) -> str:
    """Cards as one space-separated string, the inverse of :func:`parse_cards`."""
    return " ".join(cards)


def suit_of(card: str) -> str | None:
    """The printed suit of a card (``None`` for the Joker)."""
    return None if card == JOKER else card[1]


def rank_of(card: str) -> str:
    """The printed rank of a card (``"K"`` for ``"KH"``; ``"JK"`` for the Joker)."""
    return card if card == JOKER else card[0]


def same_colour_suit(suit: str) -> str:
    """The other suit of the same colour (hearts <-> diamonds, clubs <-> spades)."""
    return _PARTNER[suit]


def same_colour(suit: str) -> str:
    """Deprecated name of :func:`same_colour_suit` (it returns a suit, not a yes or no)."""
    return _PARTNER[suit]


def right_bower(trump: str) -> str:
    """The jack of trump, the highest trump after the Joker."""
    return "J" + trump


def left_bower(trump: str) -> str:
    """The jack of the other suit of trump's colour: a trump for every purpose."""
    return "J" + _PARTNER[trump]


def effective_suit(card: str, trump: str | None) -> str | None:
    """The suit a card belongs to for following, leading and winning under ``trump``.

    The left bower and the Joker belong to trump. With no trump (``None``), the printed suit
    (``None`` for the Joker).
    """
    if trump is None:
        return suit_of(card)
    if card == JOKER or card == "J" + _PARTNER[trump]:
        return trump
    return card[1]


def is_trump(card: str, trump: str) -> bool:
    """Whether ``card`` is a trump under ``trump`` (bowers and Joker included)."""
    return effective_suit(card, trump) == trump


def trump_order(trump: str, size: int = 32) -> list[str]:
    """The trumps of ``trump`` from highest to lowest (Joker first when ``size`` is 25)."""
    low = _TRUMP_ORDER if size == 32 else _TRUMP_ORDER[2:]
    order = [r + trump for r in reversed(low)]
    head = [JOKER] if size == 25 else []
    return head + [right_bower(trump), left_bower(trump)] + order


def power(card: str, trump: str, led: str | None) -> int:
    """How strongly ``card`` competes for a trick: higher wins, 0 cannot win.

    ``led`` is the effective suit of the trick's first card (``None`` for the first card).
    Trumps score 100 and up, cards of the led suit 1..8, everything else 0.
    """
    return _POWER[trump][led][card]


def power_table(trump: str, led: str | None) -> dict[str, int]:
    """The whole :func:`power` row for a trump and led suit (for fast inner loops; read-only)."""
    return _POWER[trump][led]


def suit_table(trump: str) -> dict[str, str]:
    """``{card: effective_suit(card, trump)}`` for every card (for fast inner loops; read-only)."""
    return _EFFECTIVE[trump]


def beats(card: str, other: str, trump: str, led: str) -> bool:
    """Whether ``card`` beats ``other`` in a trick whose led effective suit is ``led``."""
    return _POWER[trump][led][card] > _POWER[trump][led][other]


def trick_winner(plays: Sequence[tuple[int, str]] | Sequence[list], trump: str) -> int:
    """The seat that wins a trick given as ``[(seat, card), ...]`` in play order."""
    led = effective_suit(plays[0][1], trump)
    table = _POWER[trump][led]
    best_seat, best = plays[0][0], -1
    for seat, card in plays:
        p = table[card]
        if p > best:
            best_seat, best = seat, p
    return int(best_seat)


def card_key(card: str) -> tuple[int, int]:
    """Canonical sort key: by suit (C D H S, Joker last), then rank low to high."""
    return _KEY[card]


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Cards in canonical order (the order of every ``keep`` option)."""
    return sorted(cards, key=_KEY.__getitem__)


def describe_suit(suit: str) -> str:
    """The English name of a suit letter (``"H"`` -> ``"hearts"``)."""
    return _SUIT_NAMES[suit]


def _build_power() -> dict[str, dict[str | None, dict[str, int]]]:
    table: dict[str, dict[str | None, dict[str, int]]] = {}
    every = deck(32) + [JOKER]
    for trump in SUITS:
        trumps = trump_order(trump, 25) + [r + trump for r in ("8", "7")]
        trump_power = {c: 100 + len(trumps) - i for i, c in enumerate(trumps)}
        by_led: dict[str | None, dict[str, int]] = {}
        for led in (*SUITS, None):
            row = {}
            for c in every:
                if c in trump_power:
                    row[c] = trump_power[c]
                elif led is not None and c[1] == led:
                    row[c] = 1 + _PLAIN_ORDER.index(c[0])
                else:
                    row[c] = 0
            by_led[led] = row
        table[trump] = by_led
    return table


_POWER: Final = _build_power()
_EFFECTIVE: Final = {t: {c: str(effective_suit(c, t)) for c in deck(32) + [JOKER]} for t in SUITS}
_KEY: Final = {c: (SUITS.index(c[1]), RANKS.index(c[0])) for c in deck(32)} | {JOKER: (4, 0)}
