"""The rules of Three-Handed Euchre as values: variants, deals, hand records, scoring, order.

Pure (standard library and :mod:`arena.cards` only) and staged by the sandbox beside
``arena.cards``, so bots import the same statement of the rules the referee uses:
:class:`Rules` (docs/rules.md section 9), :class:`Deal`, :class:`HandResult`, the scoring table
(:func:`hand_points`, section 7), the order of play (:func:`next_seat`, :func:`opening_leader`,
section 6) and the end of a match (:func:`match_winners`, section 8). The state machine that
steps a hand is :class:`arena.game.GameState`.

>>> hand_points(Rules(), maker=1, alone=[], tricks_won=[0, 4, 1])
[0, 1, 0]
>>> opening_leader(Rules(), dealer=0, maker=1, alone=[2], sitting_out=0)
1
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final, Literal, NotRequired, TypedDict, cast

from arena.cards import JOKER, SUITS, deck, parse_card

__all__ = [
    "PHASES", "Rules", "DEFAULT_RULES", "Deal", "InvalidDeal", "HandResult", "IllegalAction",
    "MalformedAction", "is_legal", "rules_of", "hand_points", "lone_defender", "next_seat",
    "opening_leader", "bidding_order", "match_winners", "placements", "Observation",
    "RulesDict", "DealDict", "Bid", "SeatCard", "TrickRecord", "PastHand", "HandRecord",
]  # fmt: skip

Phase = Literal["bid1", "pickup", "discard", "bid2", "alone", "keep", "play", "joker_trump"]
PHASES: Final = ("bid1", "pickup", "discard", "bid2", "alone", "keep", "play", "joker_trump")
"""Every observation phase, in the order they can occur within a hand (``joker_trump`` first)."""


class RulesDict(TypedDict):
    """:meth:`Rules.to_dict`: the ``rules`` key of every observation."""

    deck: int
    target: int
    dealer_pickup: Literal["optional", "mandatory"]
    round2_allow_turned_down: bool
    stick_the_dealer: bool
    both_alone_lead: Literal["lone_defender", "maker"]
    lone_maker_march: int
    lone_defender_scoring: Literal["both", "lone_only"]
    tie_policy: Literal["play_on", "shared_win"]


class DealDict(TypedDict):
    """:meth:`Deal.to_dict`."""

    hands: list[list[str]]
    dummy: list[str]
    kitty: list[str]


class Bid(TypedDict):
    """One bid of the hand: ``round`` 1 or 2, or 0 for the Joker's dealer naming trump."""

    seat: int
    round: int
    action: str


SeatCard = list[int | str]  # [seat, card]: a card played and who played it (a JSON pair)


class TrickRecord(TypedDict):
    """A completed trick: who led, the ``[seat, card]`` plays in order, who won."""

    leader: int
    cards: list[SeatCard]
    winner: int


class PastHand(TypedDict):
    """:meth:`HandResult.summary`: the public record of a hand, an entry of the
    observation's ``history``."""

    dealer: int
    trump: str | None
    maker: int | None
    alone: list[int]
    tricks_won: list[int]
    points: list[int]
    passed_out: bool
    sitting_out: int | None
    upcard: str
    pickup: bool | None


class HandRecord(PastHand):
    """:meth:`HandResult.to_dict`: the whole hand, private cards included."""

    hand_number: int
    deal: DealDict
    scores_before: list[int]
    bids: list[Bid]
    tricks: list[TrickRecord]
    discards: list[list[str]]
    log: list[list[int | str | list[str]]]  # [seat, phase, action] by decision


class Observation(TypedDict):
    """What a seat is shown at a decision (docs/protocol.md): a plain JSON-like dict, the
    argument of every bot's ``act``. ``legal`` holds words or cards (in ``keep``, 5-card
    lists), ``discards`` the seat's own this hand; ``dummy`` is shown to the maker in ``keep``."""

    phase: str
    seat: int
    dealer: int
    scores: list[int]
    hand: list[str]
    upcard: str
    bids: list[Bid]
    pickup: bool | None
    trump: str | None
    maker: int | None
    alone: list[int]
    sitting_out: int | None
    tricks: list[TrickRecord]
    trick: list[SeatCard]
    legal: list[str] | list[list[str]]
    rules: RulesDict
    hand_number: int
    history: list[PastHand]
    discards: list[str]
    dummy: NotRequired[list[str]]


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

    def to_dict(self) -> RulesDict:
        """The fields as a plain dict (the ``rules`` key of every observation)."""
        return cast(RulesDict, asdict(self))

    @classmethod
    def from_dict(cls, data: RulesDict) -> Rules:
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


class InvalidDeal(ValueError):
    """A :class:`Deal` that does not fit the rules (wrong sizes, repeated or unknown cards)."""


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

    def checked(self, rules: Rules = DEFAULT_RULES) -> Deal:
        """This deal with every card in canonical form, or :class:`InvalidDeal`.

        Checking is remembered: a deal already checked for a deck of this size (as every
        deal from :func:`arena.engine.deal_for` is) is returned as it is.
        """
        if self.__dict__.get("_checked_deck") == rules.deck:
            return self
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
        return Deal(hands, dummy, kitty)._mark_checked(rules)

    def validate(self, rules: Rules = DEFAULT_RULES) -> Deal:
        """Deprecated name of :meth:`checked` (it returns the checked deal)."""
        return self.checked(rules)

    def _mark_checked(self, rules: Rules) -> Deal:
        """Record that this deal fits ``rules`` (only for deals correct by construction)."""
        object.__setattr__(self, "_checked_deck", rules.deck)
        return self

    @classmethod
    def _of_deck(
        cls,
        hands: tuple[tuple[str, ...], ...],
        dummy: tuple[str, ...],
        kitty: tuple[str, ...],
        rules: Rules,
    ) -> Deal:
        """A deal of ``rules``' deck dealt by :func:`arena.engine.deal_for`: tuples of cards,
        hands and dummy sorted; checked and sorted by construction, so never again."""
        deal = cls.__new__(cls)
        deal.__dict__.update(
            hands=hands, dummy=dummy, kitty=kitty, _checked_deck=rules.deck, _sorted_hands=True
        )
        return deal

    def to_dict(self) -> DealDict:
        """JSON form: ``{"hands": [[...]x3], "dummy": [...], "kitty": [...]}``."""
        return {
            "hands": [list(h) for h in self.hands],
            "dummy": list(self.dummy),
            "kitty": list(self.kitty),
        }

    @classmethod
    def from_dict(cls, data: DealDict) -> Deal:
        """Inverse of :meth:`to_dict`."""
        return cls(data["hands"], data["dummy"], data["kitty"])


def _trick_dicts(tricks: Iterable[TrickRecord]) -> list[TrickRecord]:
    """Fresh copies of trick records (``cards`` as lists of ``[seat, card]``)."""
    return [
        {"leader": t["leader"], "cards": [list(p) for p in t["cards"]], "winner": t["winner"]}
        for t in tricks
    ]


@dataclass
class HandResult:
    """Everything that happened in one hand, private cards included (a record, not a view).

    ``log`` lists every decision as ``(seat, phase, action)`` in order.
    """

    hand_number: int
    dealer: int
    deal: Deal
    scores_before: list[int]
    bids: list[Bid]
    pickup: bool | None
    trump: str | None
    maker: int | None
    alone: list[int]
    sitting_out: int | None
    tricks: list[TrickRecord]
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

    def summary(self) -> PastHand:
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

    def to_dict(self) -> HandRecord:
        """The full record as JSON-ready data (private cards included)."""
        return {
            **self.summary(),
            "hand_number": self.hand_number,
            "deal": self.deal.to_dict(),
            "scores_before": list(self.scores_before),
            "bids": [b.copy() for b in self.bids],
            "tricks": _trick_dicts(self.tricks),
            "discards": [list(x) for x in self.discards],
            "log": [[s, p, a] for s, p, a in self.log],
        }

    @classmethod
    def from_dict(cls, data: HandRecord) -> HandResult:
        """Inverse of :meth:`to_dict` (the summary-only keys are derived, not read)."""
        return cls(
            hand_number=data["hand_number"],
            dealer=data["dealer"],
            deal=Deal.from_dict(data["deal"]),
            scores_before=list(data["scores_before"]),
            bids=[b.copy() for b in data["bids"]],
            pickup=data["pickup"],
            trump=data["trump"],
            maker=data["maker"],
            alone=list(data["alone"]),
            sitting_out=data["sitting_out"],
            tricks=_trick_dicts(data["tricks"]),
            tricks_won=list(data["tricks_won"]),
            points=list(data["points"]),
            discards=[list(x) for x in data["discards"]],
            log=[(cast(int, s), cast(str, p), a) for s, p, a in data["log"]],
        )


class IllegalAction(ValueError):
    """An action that is not legal here (not in ``obs["legal"]``); it was not played."""

    def __init__(self, seat: int, phase: str, action: object, legal: Sequence[object]):
        shown = legal if len(legal) <= 12 else [*legal[:12], f"... {len(legal) - 12} more"]
        super().__init__(f"seat {seat} answered {action!r} in phase {phase!r}; legal: {shown!r}")
        self.seat = seat
        self.phase = phase
        self.action = action
        self.legal = list(legal)


class MalformedAction(IllegalAction):
    """An answer that is no action of its phase at all: not a card, not a bid, not 5 cards.

    A subclass of :class:`IllegalAction`, so code that catches every refused answer still does;
    catch this one first to tell a typo from a move the rules forbid here.
    """


_BID1: Final = ("pass", "order")
_PICKUP: Final = ("pickup", "decline")
_ALONE: Final = ("alone", "pass")
_BID_ENTRY: Final = tuple(
    tuple(
        {a: Bid(seat=s, round=r, action=a) for a in actions}
        for r, actions in ((0, SUITS), (1, _BID1), (2, ("pass", *SUITS)))
    )
    for s in (0, 1, 2)
)
"""``_BID_ENTRY[seat][round][action]``: a bid's entry in a state's ``bids``, made once, shared
by every :class:`~arena.game.GameState` and never changed (observations and records copy it)."""
_CARDS: Final = frozenset(deck(32)) | {JOKER}
_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "bid1": _BID1,
    "pickup": _PICKUP,
    "alone": _ALONE,
    "bid2": ("pass", *SUITS),
    "joker_trump": SUITS,
}
_RULES_DICTS: dict[Rules, RulesDict] = {}
_DEFAULT_RULES_DICT: Final = DEFAULT_RULES.to_dict()
_RULES_BY_ITEMS: dict[tuple[tuple[str, Any], ...], Rules] = {}


def _malformed(phase: str, action: Any) -> bool:
    """Whether ``action`` is no action of ``phase`` at all (whatever the position)."""
    try:
        if phase == "keep":
            return not (
                isinstance(action, _LIST_OR_TUPLE)
                and len(action) == 5
                and all(isinstance(c, str) and c in _CARDS for c in action)
            )
        if not isinstance(action, str):
            return True
        return action not in (_CARDS if phase in ("discard", "play") else _WORDS[phase])
    except Exception:  # an object whose == or hash raises is no action either
        return True


def _refuse(seat: int, phase: str, action: Any, legal: Sequence[object]) -> IllegalAction:
    kind = MalformedAction if _malformed(phase, action) else IllegalAction
    return kind(seat, phase, action, legal)


def is_legal(obs: Observation, action: Any) -> bool:
    """Whether ``action`` is a legal answer to ``obs``: one of ``obs["legal"]`` or, in the
    ``keep`` phase, 5 distinct cards of ``hand`` + ``dummy`` in any order.

    The one statement of the rule, for anything that checks answers without a state (the
    sandbox's seat proxy checks a bot's answer before the referee sees it).
    """
    if obs["phase"] == "keep":
        return _is_keep(action, [*obs["hand"], *obs.get("dummy", ())])
    try:
        return isinstance(action, str) and action in obs["legal"]
    except Exception:  # an object whose == raises is not legal either
        return False


def _is_keep(action: Any, pool: Sequence[str]) -> bool:
    """Whether ``action`` is 5 different cards of ``pool`` (strings, in any order), as a list
    or a tuple. Built-in loops only (``map``, sets): rollouts check a keep per hand."""
    try:
        return (
            isinstance(action, _LIST_OR_TUPLE)
            and len(action) == 5
            and all(map(isinstance, action, _FIVE_STR))
            and len(chosen := set(action)) == 5
            and chosen.issubset(pool)
        )
    except Exception:
        return False


_FIVE_STR: Final = (str,) * 5
_LIST_OR_TUPLE: Final = (list, tuple)  # not ``list | tuple``: that makes a new union per call


def rules_dict(rules: Rules) -> RulesDict:
    """``rules.to_dict()``, made once per distinct rules (treat as read-only)."""
    if rules is DEFAULT_RULES:
        return _DEFAULT_RULES_DICT
    found = _RULES_DICTS.get(rules)
    if found is None:
        found = _RULES_DICTS[rules] = rules.to_dict()
    return found


def rules_of(obs: Observation) -> Rules:
    """The :class:`Rules` of an observation (``Rules.from_dict(obs["rules"])``, cached)."""
    key = tuple(obs["rules"].items())
    found = _RULES_BY_ITEMS.get(key)
    if found is None:
        found = _RULES_BY_ITEMS[key] = Rules.from_dict(obs["rules"].copy())
    return found


def _fresh_summary(summary: PastHand) -> PastHand:
    """A copy of a history entry that shares no list with the original."""
    items = summary.items()
    return cast(PastHand, {k: v[:] if isinstance(v, list) else v for k, v in items})


def _check_scores(scores: Sequence[int]) -> list[int]:
    """Three non-negative ints, or a ValueError."""
    try:
        first, second, third = scores
        ok = type(first) is type(second) is type(third) is int
        ok = ok and first >= 0 and second >= 0 and third >= 0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"scores must be three non-negative ints, not {scores!r}")
    return [first, second, third]


def _check_seat(seat: object, what: str) -> int:
    """``seat`` if it is a seat (the int 0, 1 or 2), else a ValueError naming ``what``."""
    if type(seat) is not int or seat not in (0, 1, 2):
        raise ValueError(f"{what} must be a seat 0, 1 or 2, not {seat!r}")
    return seat


def lone_defender(maker: int, alone: Sequence[int]) -> int | None:
    """The defender who went alone, if one did (at most one can: the other then sits out)."""
    for seat in alone:
        if seat != maker:
            return seat
    return None


def hand_points(
    rules: Rules, maker: int, alone: Sequence[int], tricks_won: Sequence[int]
) -> list[int]:
    """Points of one hand by the table of docs/rules.md section 7 (``alone``: who went alone)."""
    points = [0, 0, 0]
    made = tricks_won[maker]
    lone_def = lone_defender(maker, alone)
    if made == 5:
        points[maker] = rules.lone_maker_march if maker in alone else 3
    elif made >= 3:
        points[maker] = 1
    else:
        each = 4 if lone_def is not None and tricks_won[lone_def] == 5 else 2
        if lone_def is not None and rules.lone_defender_scoring == "lone_only":
            points[lone_def] = each
        else:
            for defender in (0, 1, 2):
                if defender != maker:
                    points[defender] = each
    return points


def next_seat(seat: int, sitting_out: int | None = None) -> int:
    """The next active seat clockwise (seat ``s + 1`` is ``s``'s left; a sitter is skipped)."""
    following = (seat + 1) % 3
    return (following + 1) % 3 if following == sitting_out else following


def bidding_order(dealer: int) -> tuple[int, int, int]:
    """Who is asked to bid, in order, in both rounds: the dealer's left first, the dealer last."""
    return ((dealer + 1) % 3, (dealer + 2) % 3, dealer)


def opening_leader(
    rules: Rules, dealer: int, maker: int, alone: Sequence[int], sitting_out: int | None
) -> int:
    """Who leads the first trick (docs/rules.md section 6.1)."""
    lone_def = lone_defender(maker, alone)
    if lone_def is not None and maker in alone:
        return lone_def if rules.both_alone_lead == "lone_defender" else maker
    if lone_def is not None:
        return next_seat(lone_def, sitting_out)
    if maker in alone:
        return next_seat(maker, sitting_out)
    return next_seat(dealer, sitting_out)


def match_winners(scores: Sequence[int], rules: Rules = DEFAULT_RULES) -> list[int]:
    """The seats that have won a match standing at ``scores``; ``[]`` while it goes on.

    docs/rules.md section 8: the highest score must reach the target and be held by one seat
    alone (under ``tie_policy="shared_win"`` the tied leaders all win).
    """
    top = max(scores)
    if top < rules.target:
        return []
    leaders = [seat for seat in (0, 1, 2) if scores[seat] == top]
    if len(leaders) == 1 or rules.tie_policy == "shared_win":
        return leaders
    return []


def placements(scores: Sequence[int]) -> list[int]:
    """Competition ranking by score: 1 + the number of seats with a strictly higher score."""
    return [1 + sum(1 for o in scores if o > s) for s in scores]
