"""The referee: Three-Handed Euchre with a dummy, exactly as docs/rules.md says.

The engine knows nothing of processes, files or SQL. A *bot* is any object with
``act(obs) -> action``; the referee steps a :class:`~arena.game.GameState`, asks the bot whose
turn it is, and raises :class:`IllegalAction` when its answer is not in ``obs["legal"]``.

>>> from arena.engine import Rules, play_match
>>> class Last:
...     def act(self, obs):
...         return obs["legal"][-1]    # orders up, never goes alone
>>> m = play_match([Last(), Last(), Last()], seed=7)
>>> max(m.scores) >= 10 and len(m.winners) == 1
True

(``obs["legal"][0]`` would pass every bid: such bots never end a match.) Observations are
plain dicts built for each decision; treat them as read-only. Nothing in one is shared with the
engine's state or its records, so a bot that edits what it was shown changes neither the game
nor the result.

Deals are a pure function of ``(seed, hand_number)`` (:func:`deal_for`) and the first dealer of
``seed`` (:func:`first_dealer`): the same seed gives every *seat* the same cards whatever the
bots do, which is what duplicate tournaments rely on.

The rules themselves live in :mod:`arena.rules` (values, scoring, order of play) and
:mod:`arena.game` (the state machine of a hand); this module re-exports their public names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final, Protocol, TypedDict

from arena.cards import deck
from arena.game import GameState, IllegalAction, MalformedAction, is_legal
from arena.rules import (  # noqa: F401  (_RULE_VALUES: read by the docs tests)
    _RULE_VALUES,
    DEFAULT_RULES,
    PHASES,
    Deal,
    HandRecord,
    HandResult,
    InvalidDeal,
    Observation,
    PastHand,
    Rules,
    RulesDict,
    _check_scores,
    _check_seat,
    match_winners,
    placements,
)

__all__ = [
    "Rules",
    "Deal",
    "HandResult",
    "MatchResult",
    "IllegalAction",
    "MalformedAction",
    "InvalidDeal",
    "Bot",
    "PHASES",
    "GameState",
    "Match",
    "play_hand",
    "play_match",
    "deal_for",
    "first_dealer",
    "placements",
    "is_legal",
]

DEFAULT_MAX_HANDS: Final = 200
"""A match that has not ended after this many hands stops with ``truncated=True``.

Real matches end long before (random bots: 7 hands on average, under 20 in 20,000 matches),
but degenerate players can play for ever: bots that never bid pass out every hand, and two
seats that never make trump score only together as defenders, so under ``play_on`` they stay
tied at the top. A faulty seat's fallback (first legal action) is such a player."""


class Bot(Protocol):
    """What the engine needs of a player: one decision per observation."""

    def act(self, obs: Observation) -> Any:  # pragma: no cover - protocol
        """Return one element of ``obs["legal"]`` (in ``keep``: 5 cards in any order)."""


_DECKS: Final = {n: deck(n) for n in (24, 25, 32)}


def _draw(key: str) -> int:
    """512 uniform bits from ``key`` (SHA-512: the same on every machine and Python version)."""
    return int.from_bytes(hashlib.sha512(key.encode()).digest(), "big")


def deal_for(seed: int | str, hand_number: int, rules: Rules = DEFAULT_RULES) -> Deal:
    """The deal of hand ``hand_number`` of the match with ``seed``: a pure function of both.

    A Fisher-Yates shuffle whose choices are the mixed-radix digits of the 512-bit SHA-512 of
    ``"arena/deal/{seed}/{hand_number}"``: no dependence on :mod:`random`'s internals, and a
    32-card shuffle needs only 118 of the 512 bits, so the bias is below 2**-390. Hands and
    the dummy are sorted; ``kitty[0]`` is the up-card.
    """
    size = rules.deck
    # Shuffle positions in the canonical deck: sorting a hand is then sorting small ints.
    order = list(range(size))
    bits = _draw(f"arena/deal/{seed}/{hand_number}")
    for i in range(size - 1, 0, -1):
        bits, j = divmod(bits, i + 1)
        order[i], order[j] = order[j], order[i]
    cards = _DECKS[size]
    return Deal._of_deck(
        (
            itemgetter(*sorted(order[0:5]))(cards),
            itemgetter(*sorted(order[5:10]))(cards),
            itemgetter(*sorted(order[10:15]))(cards),
        ),
        itemgetter(*sorted(order[15:20]))(cards),
        itemgetter(*order[20:])(cards),
        rules,
    )


def first_dealer(seed: int | str) -> int:
    """The first dealer of the match with ``seed`` (chosen at random, from the seed only)."""
    return _draw(f"arena/dealer/{seed}") % 3


class MatchDict(TypedDict):
    """:meth:`MatchResult.to_dict`."""

    seed: int | str
    rules: RulesDict
    first_dealer: int
    scores: list[int]
    winners: list[int]
    placements: list[int]
    hands: list[HandRecord]
    truncated: bool


@dataclass
class MatchResult:
    """A finished match. ``placements[s]`` is seat ``s``'s place (1 = first, ties share)."""

    seed: int | str
    rules: Rules
    first_dealer: int
    scores: list[int]
    winners: list[int]
    placements: list[int]
    hands: list[HandResult]
    truncated: bool = False

    def to_dict(self) -> MatchDict:
        """The whole match as JSON-ready data (every hand's full record included)."""
        return {
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "first_dealer": self.first_dealer,
            "scores": list(self.scores),
            "winners": list(self.winners),
            "placements": list(self.placements),
            "hands": [h.to_dict() for h in self.hands],
            "truncated": self.truncated,
        }

    @classmethod
    def from_dict(cls, data: MatchDict) -> MatchResult:
        """Inverse of :meth:`to_dict`."""
        return cls(
            seed=data["seed"],
            rules=Rules.from_dict(data["rules"]),
            first_dealer=data["first_dealer"],
            scores=list(data["scores"]),
            winners=list(data["winners"]),
            placements=list(data["placements"]),
            hands=[HandResult.from_dict(h) for h in data["hands"]],
            truncated=data["truncated"],
        )


class Match:
    """A match in progress (docs/rules.md sections 2 and 8): deals, dealers, scores, the end.

    Take each hand's starting :class:`~arena.game.GameState` from :meth:`next_hand`, play it
    to the end, give it back to :meth:`record`; :meth:`result` once :meth:`next_hand` returns
    ``None``. ``scores`` and ``dealer`` start a match mid-way (defaults: zeros and the seed's
    first dealer); the first hands' deals come from ``deals`` and, once it runs out, from the
    seed. After ``max_hands`` hands without a winner the match stops, ``truncated``.
    """

    def __init__(
        self,
        seed: int | str = 0,
        rules: Rules = DEFAULT_RULES,
        *,
        scores: Sequence[int] | None = None,
        dealer: int | None = None,
        deals: Iterable[Deal] | None = None,
        max_hands: int = DEFAULT_MAX_HANDS,
    ) -> None:
        self.seed = seed
        self.rules = rules
        self.scores = [0, 0, 0] if scores is None else _check_scores(scores)
        self.first_dealer = first_dealer(seed) if dealer is None else _check_seat(dealer, "dealer")
        self.max_hands = max_hands
        self.hands: list[HandResult] = []
        self.winners: list[int] = []
        self._given: Iterator[Deal] | None = iter(deals) if deals is not None else None
        self._history: list[PastHand] = []

    def is_over(self) -> bool:
        """Whether the match has a winner, or has stopped after ``max_hands`` hands."""
        return bool(self.winners) or len(self.hands) >= self.max_hands

    def next_hand(self) -> GameState | None:
        """The next hand, before its first decision; ``None`` once the match is over."""
        number = len(self.hands)
        if self.winners or number >= self.max_hands:
            return None
        deal = next(self._given, None) if self._given is not None else None
        if deal is None:
            self._given = None
            deal = deal_for(self.seed, number, self.rules)
        dealer = (self.first_dealer + number) % 3
        return GameState._of_match(deal, self.rules, dealer, self.scores, number, self._history)

    def record(self, hand: HandResult) -> None:
        """Count a finished hand: its points, the history the next hands show, the end rule."""
        self.hands.append(hand)
        self._history = [*self._history, hand.summary()]
        self.scores = [a + b for a, b in zip(self.scores, hand.points, strict=True)]
        self.winners = match_winners(self.scores, self.rules)

    def result(self) -> MatchResult:
        """The match as it stands (``truncated`` when it stopped without a winner)."""
        return MatchResult(
            seed=self.seed,
            rules=self.rules,
            first_dealer=self.first_dealer,
            scores=self.scores[:],
            winners=self.winners[:],
            placements=placements(self.scores),
            hands=self.hands,
            truncated=not self.winners,
        )


def _play(bots: Sequence[Bot], state: GameState) -> HandResult:
    """Ask the bots, in turn, until the hand is over."""
    observe, apply = state.observation, state.apply
    seat = state.turn
    while seat is not None:
        apply(bots[seat].act(observe(seat)))
        seat = state.turn
    return state.result()


def play_hand(
    bots: Sequence[Bot],
    deal: Deal,
    dealer: int = 0,
    scores: Sequence[int] = (0, 0, 0),
    rules: Rules = DEFAULT_RULES,
    *,
    hand_number: int = 0,
    history: Sequence[PastHand] = (),
) -> HandResult:
    """Play one hand of ``deal`` with ``dealer`` dealing and return what happened.

    ``scores`` and ``history`` are what the observations show as the match so far.
    Raises :class:`IllegalAction` when a bot answers with an action that is not legal, and
    :class:`InvalidDeal` when ``deal`` does not fit ``rules``.
    """
    _check_seat(dealer, "dealer")
    if len(bots) != 3:
        raise ValueError(f"a hand needs exactly three bots, got {len(bots)}")
    state = GameState(deal, rules, dealer, scores, hand_number=hand_number, history=history)
    return _play(bots, state)


def play_match(
    bots: Sequence[Bot],
    seed: int | str = 0,
    rules: Rules = DEFAULT_RULES,
    *,
    scores: Sequence[int] | None = None,
    dealer: int | None = None,
    deals: Iterable[Deal] | None = None,
    max_hands: int = DEFAULT_MAX_HANDS,
) -> MatchResult:
    """Play hands until the match ends (docs/rules.md section 8) and return the result.

    ``scores`` and ``dealer`` start a match mid-way (defaults: zeros and the seed's first
    dealer); the first hands' deals come from ``deals`` and, once it runs out, from the seed.
    A match that has not ended after ``max_hands`` hands stops with ``truncated=True`` and no
    winner (only bots that keep passing every hand get there).
    """
    if len(bots) != 3:
        raise ValueError(f"a match needs exactly three bots, got {len(bots)}")
    match = Match(seed, rules, scores=scores, dealer=dealer, deals=deals, max_hands=max_hands)
    while (state := match.next_hand()) is not None:
        match.record(_play(bots, state))
    return match.result()


QUESTIONS: Final = {
    "bid1": "Order up or pass?",
    "pickup": "Pick up the up-card?",
    "discard": "Discard which card?",
    "bid2": "Name trump or pass?",
    "alone": "Go alone? (without the dummy: more points if you make it)",
    "defend_alone": "Defend alone? (your fellow defender sits out; more points if you euchre)",
    "keep": "Take the dummy: keep which 5 cards?",
    "play": "Play which card?",
    "joker_trump": "The Joker is up: name trump.",
}
"""The question a person is asked in each phase (``defend_alone``: the ``alone`` phase of a
defender), as ``arena play`` asks it."""
