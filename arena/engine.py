"""The game engine: Three-Handed Euchre with a dummy, exactly as docs/rules.md says.

The engine knows nothing of processes, files or SQL. A *bot* is any object with
``act(obs) -> action``; the engine asks the bot whose turn it is, checks the answer against
``obs["legal"]`` and raises :class:`IllegalAction` when it is not legal.

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
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any, Final, Literal, Protocol

from arena import cards as _cards
from arena.cards import JOKER, SUITS, deck, parse_card, sort_cards

__all__ = [
    "Rules",
    "Deal",
    "HandResult",
    "MatchResult",
    "IllegalAction",
    "InvalidDeal",
    "Bot",
    "PHASES",
    "play_hand",
    "play_match",
    "deal_for",
    "first_dealer",
    "placements",
    "is_legal",
]

Phase = Literal["bid1", "pickup", "discard", "bid2", "alone", "keep", "play", "joker_trump"]
PHASES: Final = ("bid1", "pickup", "discard", "bid2", "alone", "keep", "play", "joker_trump")
"""Every observation phase, in the order they can occur within a hand (``joker_trump`` first)."""

DEFAULT_MAX_HANDS: Final = 200
"""A match that has not ended after this many hands stops with ``truncated=True``.

Real matches end long before (random bots: 7 hands on average, under 20 in 20,000 matches),
but degenerate players can play for ever: bots that never bid pass out every hand, and two
seats that never make trump score only together as defenders, so under ``play_on`` they stay
tied at the top. A faulty seat's fallback (first legal action) is such a player."""


class Bot(Protocol):
    """What the engine needs of a player: one decision per observation."""

    def act(self, obs: dict[str, Any]) -> Any:  # pragma: no cover - protocol
        """Return one element of ``obs["legal"]`` (in ``keep``: 5 cards in any order)."""


class IllegalAction(ValueError):
    """A bot returned an action that is not in ``obs["legal"]``; it was not played."""

    def __init__(self, seat: int, phase: str, action: object, legal: Sequence[object]):
        shown = legal if len(legal) <= 12 else [*legal[:12], f"... {len(legal) - 12} more"]
        super().__init__(f"seat {seat} answered {action!r} in phase {phase!r}; legal: {shown!r}")
        self.seat = seat
        self.phase = phase
        self.action = action
        self.legal = list(legal)


class InvalidDeal(ValueError):
    """A :class:`Deal` that does not fit the rules (wrong sizes, repeated or unknown cards)."""


_RULE_VALUES: Final[dict[str, tuple[object, ...]]] = {
    "deck": (24, 32, 25),
    "dealer_pickup": ("optional", "mandatory"),
    "round2_allow_turned_down": (False, True),
    "stick_the_dealer": (False, True),
    "both_alone_lead": ("lone_defender", "maker"),
    "lone_maker_march": (3, 4),
    "lone_defender_scoring": ("both", "lone_only"),
    "tie_policy": ("play_on", "shared_win"),
}


@dataclass(frozen=True)
class Rules:
    """The rule variants of docs/rules.md section 9; the defaults are the house rules."""

    deck: int = 24
    target: int = 10
    dealer_pickup: Literal["optional", "mandatory"] = "optional"
    round2_allow_turned_down: bool = False
    stick_the_dealer: bool = False
    both_alone_lead: Literal["lone_defender", "maker"] = "lone_defender"
    lone_maker_march: int = 3
    lone_defender_scoring: Literal["both", "lone_only"] = "both"
    tie_policy: Literal["play_on", "shared_win"] = "play_on"

    def __post_init__(self) -> None:
        for name, allowed in _RULE_VALUES.items():
            value = getattr(self, name)
            if value not in allowed or type(value) is not type(allowed[0]):
                raise ValueError(f"Rules.{name} must be one of {allowed!r}, not {value!r}")
        if type(self.target) is not int or self.target < 1:
            raise ValueError(f"Rules.target must be a positive int, not {self.target!r}")

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (the ``rules`` key of every observation)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; unknown keys are an error."""
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown Rules fields: {sorted(unknown)}")
        return cls(**data)

    @property
    def kitty_size(self) -> int:
        """Cards left after dealing 5 to each player and the dummy (the up-card included)."""
        return self.deck - 20


DEFAULT_RULES: Final = Rules()


@dataclass(frozen=True)
class Deal:
    """The cards of one hand: three hands by seat, the dummy, and the kitty (``kitty[0]`` is up)."""

    hands: tuple[tuple[str, ...], ...]
    dummy: tuple[str, ...]
    kitty: tuple[str, ...]

    def __init__(
        self, hands: Sequence[Iterable[str]], dummy: Iterable[str], kitty: Iterable[str]
    ) -> None:
        object.__setattr__(self, "hands", tuple(tuple(h) for h in hands))
        object.__setattr__(self, "dummy", tuple(dummy))
        object.__setattr__(self, "kitty", tuple(kitty))

    @property
    def upcard(self) -> str:
        """The kitty's top card, turned face up."""
        return self.kitty[0]

    def validate(self, rules: Rules = DEFAULT_RULES) -> Deal:
        """Return a canonical copy (parsed cards), or raise :class:`InvalidDeal`."""
        try:
            hands = [[parse_card(c) for c in h] for h in self.hands]
            dummy = [parse_card(c) for c in self.dummy]
            kitty = [parse_card(c) for c in self.kitty]
        except ValueError as e:
            raise InvalidDeal(str(e)) from None
        if len(hands) != 3 or any(len(h) != 5 for h in hands) or len(dummy) != 5:
            raise InvalidDeal("a deal has three hands and a dummy of 5 cards each")
        if len(kitty) != rules.kitty_size:
            raise InvalidDeal(
                f"a {rules.deck}-card deck leaves a kitty of {rules.kitty_size}, not {len(kitty)}"
            )
        every = [c for h in hands for c in h] + dummy + kitty
        if sorted(every) != sorted(deck(rules.deck)):
            missing = set(deck(rules.deck)) - set(every)
            extra = [c for c in every if c not in set(deck(rules.deck))]
            raise InvalidDeal(
                f"the deal is not one {rules.deck}-card deck (repeated or missing: "
                f"{sorted(missing)}, foreign: {extra})"
            )
        return Deal(hands, dummy, kitty)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"hands": [[...]x3], "dummy": [...], "kitty": [...]}``."""
        return {
            "hands": [list(h) for h in self.hands],
            "dummy": list(self.dummy),
            "kitty": list(self.kitty),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Deal:
        """Inverse of :meth:`to_dict`."""
        return cls(data["hands"], data["dummy"], data["kitty"])


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
    cards = _DECKS[rules.deck][:]
    x = _draw(f"arena/deal/{seed}/{hand_number}")
    for i in range(len(cards) - 1, 0, -1):
        x, j = divmod(x, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return Deal(
        (sort_cards(cards[0:5]), sort_cards(cards[5:10]), sort_cards(cards[10:15])),
        sort_cards(cards[15:20]),
        cards[20:],
    )


def first_dealer(seed: int | str) -> int:
    """The first dealer of the match with ``seed`` (chosen at random, from the seed only)."""
    return _draw(f"arena/dealer/{seed}") % 3


@dataclass
class HandResult:
    """Everything that happened in one hand, private cards included (a record, not a view).

    ``log`` lists every decision as ``(seat, phase, action)`` in order.
    """

    hand_number: int
    dealer: int
    deal: Deal
    scores_before: list[int]
    bids: list[dict[str, Any]]
    pickup: bool | None
    trump: str | None
    maker: int | None
    alone: list[int]
    sitting_out: int | None
    tricks: list[dict[str, Any]]
    tricks_won: list[int]
    points: list[int]
    discards: list[list[str]]
    log: list[tuple[int, str, Any]] = field(repr=False)

    @property
    def passed_out(self) -> bool:
        """True when every player passed both rounds: a dead hand, nobody scores."""
        return self.trump is None

    @property
    def upcard(self) -> str:
        """The up-card of this hand."""
        return self.deal.kitty[0]

    def summary(self) -> dict[str, Any]:
        """The public record of the hand (an entry of the observation's ``history``)."""
        return {
            "dealer": self.dealer,
            "trump": self.trump,
            "maker": self.maker,
            "alone": list(self.alone),
            "tricks_won": list(self.tricks_won),
            "points": list(self.points),
            "passed_out": self.trump is None,
            "sitting_out": self.sitting_out,
            "upcard": self.deal.kitty[0],
            "pickup": self.pickup,
        }

    def to_dict(self) -> dict[str, Any]:
        """The full record as JSON-ready data (private cards included)."""
        d = self.summary()
        d.update(
            hand_number=self.hand_number,
            deal=self.deal.to_dict(),
            scores_before=list(self.scores_before),
            bids=[dict(b) for b in self.bids],
            tricks=[
                {
                    "leader": t["leader"],
                    "cards": [list(p) for p in t["cards"]],
                    "winner": t["winner"],
                }
                for t in self.tricks
            ],
            discards=[list(x) for x in self.discards],
            log=[[s, p, a] for s, p, a in self.log],
        )
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandResult:
        """Inverse of :meth:`to_dict` (the summary-only keys are derived, not read)."""
        return cls(
            hand_number=data["hand_number"],
            dealer=data["dealer"],
            deal=Deal.from_dict(data["deal"]),
            scores_before=list(data["scores_before"]),
            bids=[dict(b) for b in data["bids"]],
            pickup=data["pickup"],
            trump=data["trump"],
            maker=data["maker"],
            alone=list(data["alone"]),
            sitting_out=data["sitting_out"],
            tricks=[
                {
                    "leader": t["leader"],
                    "cards": [list(p) for p in t["cards"]],
                    "winner": t["winner"],
                }
                for t in data["tricks"]
            ],
            tricks_won=list(data["tricks_won"]),
            points=list(data["points"]),
            discards=[list(x) for x in data["discards"]],
            log=[(s, p, a) for s, p, a in data["log"]],
        )


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

    def to_dict(self) -> dict[str, Any]:
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
    def from_dict(cls, data: dict[str, Any]) -> MatchResult:
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


def placements(scores: Sequence[int]) -> list[int]:
    """Competition ranking by score: 1 + the number of seats with a strictly higher score."""
    return [1 + sum(1 for o in scores if o > s) for s in scores]


_EFF: Final = {t: _cards.suit_table(t) for t in SUITS}
_POW: Final = {t: {led: _cards.power_table(t, led) for led in SUITS} for t in SUITS}
_BID1: Final = ("pass", "order")
_PICKUP: Final = ("pickup", "decline")
_ALONE: Final = ("alone", "pass")


def _keep_options(pool: list[str]) -> list[list[str]]:
    return list(map(list, combinations(sort_cards(pool), 5)))


def play_hand(
    bots: Sequence[Bot],
    deal: Deal,
    dealer: int = 0,
    scores: Sequence[int] = (0, 0, 0),
    rules: Rules = DEFAULT_RULES,
    *,
    hand_number: int = 0,
    history: Sequence[dict[str, Any]] = (),
) -> HandResult:
    """Play one hand of ``deal`` with ``dealer`` dealing and return what happened.

    ``scores`` and ``history`` are what the observations show as the match so far.
    Raises :class:`IllegalAction` when a bot answers with an action that is not legal, and
    :class:`InvalidDeal` when ``deal`` does not fit ``rules``.
    """
    if type(dealer) is not int or dealer not in (0, 1, 2):
        raise ValueError(f"dealer must be a seat 0, 1 or 2, not {dealer!r}")
    if len(bots) != 3:
        raise ValueError(f"a hand needs exactly three bots, got {len(bots)}")
    return _play_hand(
        bots, deal.validate(rules), dealer, _check_scores(scores), rules, hand_number, list(history)
    )


def _check_scores(scores: Sequence[int]) -> list[int]:
    """Three non-negative ints, or a ValueError."""
    try:
        ok = len(scores) == 3 and all(type(x) is int and x >= 0 for x in scores)
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"scores must be three non-negative ints, not {scores!r}")
    return list(scores)


def _play_hand(
    bots: Sequence[Bot],
    deal: Deal,
    dealer: int,
    scores: list[int],
    rules: Rules,
    hand_number: int,
    history: list[dict[str, Any]],
) -> HandResult:
    # The engine's own state lives in tuples and lists that no observation ever shares, so a
    # bot that mutates what it was shown (sorting ``legal`` in place, editing ``trick``) can
    # change neither the game nor its record.
    hands = [sort_cards(h) for h in deal.hands]
    dummy = list(deal.dummy)
    upcard = deal.kitty[0]
    rules_d = rules.to_dict() if rules is not DEFAULT_RULES else _DEFAULT_RULES_D
    # Earlier hands are rebuilt once per hand and their entries shared by this hand's
    # observations (rebuilding them for every decision would cost a quarter of the engine's
    # time); they are never the record's own dicts.
    past = [_fresh_summary(h) for h in history]
    bids: list[tuple[int, int, str]] = []
    log: list[tuple[int, str, Any]] = []
    alone: list[int] = []
    done: list[tuple[int, tuple[tuple[int, str], ...], int]] = []
    plays: list[tuple[int, str]] = []
    discards: list[list[str]] = [[], [], []]
    tricks_won = [0, 0, 0]
    pickup: bool | None = None
    trump: str | None = None
    maker: int | None = None
    sitting: int | None = None

    def ask(seat: int, phase: str, legal: list[Any], extra: dict[str, Any] | None = None) -> Any:
        obs = {
            "phase": phase,
            "seat": seat,
            "dealer": dealer,
            "scores": scores[:],
            "hand": hands[seat][:] if phase != "joker_trump" else [],
            "upcard": upcard,
            "bids": [{"seat": s, "round": r, "action": a} for s, r, a in bids],
            "pickup": pickup,
            "trump": trump,
            "maker": maker,
            "alone": alone[:],
            "sitting_out": sitting,
            "tricks": [
                {"leader": ld, "cards": [[s, c] for s, c in cs], "winner": w} for ld, cs, w in done
            ],
            "trick": [[s, c] for s, c in plays],
            "legal": legal[:] if phase != "keep" else legal,
            "rules": rules_d.copy(),
            "hand_number": hand_number,
            "history": past[:],
            "discards": discards[seat][:],
        }
        if extra:
            obs.update(extra)
        action = bots[seat].act(obs)
        if phase == "keep":
            action = _check_keep(seat, action, hands[seat] + dummy, legal)
        else:
            # Compare against the engine's own list, and record the engine's own string (a bot
            # may have edited obs["legal"], or answered with an equal object of another type).
            if not isinstance(action, str) or action not in legal:
                raise IllegalAction(seat, phase, action, legal)
            action = legal[legal.index(action)]
        log.append((seat, phase, action))
        return action

    order = ((dealer + 1) % 3, (dealer + 2) % 3, dealer)
    up_suit = upcard[1] if upcard != JOKER else None

    if up_suit is None:
        # Joker turned up: the dealer names trump blind, is the maker, and takes the Joker.
        trump = ask(dealer, "joker_trump", list(SUITS))
        bids.append((dealer, 0, trump))
        maker = dealer
        pickup = True
        hands[dealer] = sort_cards(hands[dealer] + [upcard])
    else:
        for s in order:
            a = ask(s, "bid1", list(_BID1))
            bids.append((s, 1, a))
            if a == "order":
                trump, maker = up_suit, s
                break
        if maker is not None:
            if maker == dealer or rules.dealer_pickup == "mandatory":
                pickup = True
            else:
                pickup = ask(dealer, "pickup", list(_PICKUP)) == "pickup"
            if pickup:
                hands[dealer] = sort_cards(hands[dealer] + [upcard])
                if maker != dealer:
                    d = ask(dealer, "discard", [c for c in hands[dealer] if c != upcard])
                    hands[dealer].remove(d)
                    discards[dealer].append(d)
        else:
            named = [x for x in SUITS if x != up_suit or rules.round2_allow_turned_down]
            for s in order:
                stuck = s == dealer and rules.stick_the_dealer
                a = ask(s, "bid2", named[:] if stuck else ["pass", *named])
                bids.append((s, 2, a))
                if a != "pass":
                    trump, maker = a, s
                    break

    bid_dicts = [{"seat": s, "round": r, "action": a} for s, r, a in bids]
    if trump is None or maker is None:
        return HandResult(
            hand_number,
            dealer,
            deal,
            scores,
            bid_dicts,
            pickup,
            None,
            None,
            [],
            None,
            [],
            [0, 0, 0],
            [0, 0, 0],
            discards,
            log,
        )

    # Going alone: the maker first (before seeing the dummy), then defenders clockwise.
    if ask(maker, "alone", list(_ALONE)) == "alone":
        alone.append(maker)
    for d in ((maker + 1) % 3, (maker + 2) % 3):
        if ask(d, "alone", list(_ALONE)) == "alone":
            alone.append(d)
            sitting = 3 - maker - d
            break

    maker_alone = maker in alone
    if not maker_alone:
        pool = hands[maker] + dummy
        kept = ask(maker, "keep", _keep_options(pool), {"dummy": dummy[:]})
        discards[maker].extend(c for c in sort_cards(pool) if c not in kept)
        hands[maker] = kept[:]  # the log keeps its own list
    elif len(hands[maker]) == 6:
        d = ask(maker, "discard", [c for c in hands[maker] if c != upcard])
        hands[maker].remove(d)
        discards[maker].append(d)

    # Clockwise among the active seats: seat s+1 is s's left; a sitter is skipped.
    nxt = [1, 2, 0]
    if sitting is not None:
        nxt[(sitting + 2) % 3] = (sitting + 1) % 3

    lone_def = alone[-1] if alone and alone[-1] != maker else None
    if lone_def is not None and maker_alone:
        leader = lone_def if rules.both_alone_lead == "lone_defender" else maker
    elif lone_def is not None:
        leader = nxt[lone_def]
    elif maker_alone:
        leader = nxt[maker]
    else:
        leader = nxt[dealer]

    eff = _EFF[trump]
    pow_by_led = _POW[trump]
    players = 2 if sitting is not None else 3
    for _ in range(5):
        plays = []
        seat = leader
        hand = hands[seat]
        c = ask(seat, "play", hand)
        hand.remove(c)
        plays.append((seat, c))
        led = eff[c]
        table = pow_by_led[led]
        winner, best = seat, table[c]
        for _ in range(players - 1):
            seat = nxt[seat]
            hand = hands[seat]
            c = ask(seat, "play", [x for x in hand if eff[x] == led] or hand)
            hand.remove(c)
            plays.append((seat, c))
            if table[c] > best:
                winner, best = seat, table[c]
        done.append((leader, tuple(plays), winner))
        tricks_won[winner] += 1
        leader = winner

    points = _score(rules, maker, maker_alone, lone_def, sitting, tricks_won)
    return HandResult(
        hand_number,
        dealer,
        deal,
        scores,
        bid_dicts,
        pickup,
        trump,
        maker,
        alone,
        sitting,
        [{"leader": ld, "cards": [[s, c] for s, c in cs], "winner": w} for ld, cs, w in done],
        tricks_won,
        points,
        discards,
        log,
    )


def _fresh_summary(h: dict[str, Any]) -> dict[str, Any]:
    """A copy of a history entry that shares no list with the original."""
    copy = dict(h)
    for key, value in h.items():
        if isinstance(value, list):
            copy[key] = value[:]
    return copy


_DEFAULT_RULES_D: Final = DEFAULT_RULES.to_dict()


def is_legal(obs: dict[str, Any], action: Any) -> bool:
    """Whether ``action`` is a legal answer to ``obs``: one of ``obs["legal"]`` or, in the
    ``keep`` phase, 5 distinct cards of ``hand`` + ``dummy`` in any order.

    The one statement of the rule, for anything that checks answers outside :func:`play_hand`
    (the sandbox's seat proxy checks a bot's answer before the engine sees it).
    """
    if obs["phase"] == "keep":
        return _is_keep(action, [*obs["hand"], *obs.get("dummy", ())])
    try:
        return isinstance(action, str) and action in obs["legal"]
    except Exception:  # an object whose == raises is not legal either
        return False


def _is_keep(action: Any, pool: Sequence[str]) -> bool:
    try:
        return (
            isinstance(action, list | tuple)
            and len(action) == 5
            and all(isinstance(c, str) for c in action)
            and len(set(action)) == 5
            and all(c in pool for c in action)
        )
    except Exception:
        return False


def _check_keep(seat: int, action: Any, pool: list[str], legal: list[list[str]]) -> list[str]:
    """A keep answer is legal when it is 5 distinct cards of hand + dummy, in any order."""
    if not _is_keep(action, pool):
        raise IllegalAction(seat, "keep", action, legal)
    return sort_cards(action)


def _score(
    rules: Rules,
    maker: int,
    maker_alone: bool,
    lone_def: int | None,
    sitting: int | None,
    tricks_won: list[int],
) -> list[int]:
    """Points of one hand by the table of docs/rules.md section 7."""
    points = [0, 0, 0]
    m = tricks_won[maker]
    defenders = [s for s in (0, 1, 2) if s != maker]
    if lone_def is not None and rules.lone_defender_scoring == "lone_only":
        defenders = [lone_def]
    if m == 5:
        points[maker] = rules.lone_maker_march if maker_alone else 3
    elif m >= 3:
        points[maker] = 1
    else:
        each = 4 if lone_def is not None and tricks_won[lone_def] == 5 else 2
        for d in defenders:
            points[d] = each
    return points


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
    score = [0, 0, 0] if scores is None else _check_scores(scores)
    first = first_dealer(seed) if dealer is None else dealer
    if type(first) is not int or first not in (0, 1, 2):
        raise ValueError(f"dealer must be a seat 0, 1 or 2, not {dealer!r}")
    given = iter(deals) if deals is not None else None
    hands: list[HandResult] = []
    history: list[dict[str, Any]] = []
    current = first
    target = rules.target
    for k in range(max_hands):
        deal = next(given, None) if given is not None else None
        if deal is None:
            given = None
            deal = deal_for(seed, k, rules)
        else:
            deal = deal.validate(rules)
        result = _play_hand(bots, deal, current, score[:], rules, k, history)
        hands.append(result)
        history = [*history, result.summary()]
        score = [a + b for a, b in zip(score, result.points, strict=True)]
        current = (current + 1) % 3
        top = max(score)
        if top >= target:
            leaders = [s for s in (0, 1, 2) if score[s] == top]
            if len(leaders) == 1 or rules.tie_policy == "shared_win":
                return MatchResult(seed, rules, first, score, leaders, placements(score), hands)
    return MatchResult(seed, rules, first, score, [], placements(score), hands, truncated=True)
