"""One hand of Three-Handed Euchre as a steppable game state: the rules, stated once.

:class:`GameState` holds a hand in progress: whose :attr:`~GameState.turn` it is and in which
:attr:`~GameState.phase`, :meth:`~GameState.legal_actions`, :meth:`~GameState.apply` (raises
:class:`IllegalAction`), :meth:`~GameState.observation`, :meth:`~GameState.copy`,
:meth:`~GameState.is_over`, :meth:`~GameState.result`. The referee (:mod:`arena.engine`), the
bots and ``arena play`` step this one state: the rules are here and in :mod:`arena.rules` only.

The module is pure (standard library, :mod:`arena.cards` and :mod:`arena.rules` only, no I/O) and
staged beside ``arena.cards``: a bot may ``import arena.game``. A search bot rebuilds a state from
its observation and a guess of the unseen cards (:meth:`GameState.from_observation`;
:func:`arena.worlds.unseen` says what to guess, :func:`arena.worlds.sample_state` guesses uniformly)
and plays it out with ``copy``, ``legal_actions`` and ``apply`` (no observations).

>>> from arena.rules import Deal
>>> state = GameState(Deal(
...     hands=[["JD", "9C", "TC", "KS", "QS"], ["JH", "AH", "KC", "QC", "9S"],
...            ["KH", "AD", "KD", "QD", "TS"]],
...     dummy=["QH", "TH", "AS", "AC", "9D"], kitty=["9H", "TD", "JC", "JS"]))
>>> state.phase, state.turn, state.legal_actions()
('bid1', 1, ['pass', 'order'])
>>> state.apply("order")
>>> state.phase, state.turn, state.legal_actions()
('pickup', 0, ['pickup', 'decline'])
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Sequence
from typing import Any, Final

from arena.cards import _PLAYED, _WINNER, JOKER, SUITS, _guess_deal, _replay, sort_cards, suit_table
from arena.keeps import ORDER as _KEY
from arena.keeps import KeepOptions, keep, keep_options, option_lists
from arena.rules import (
    _ALONE,
    _BID1,
    _BID_ENTRY,
    _PICKUP,
    DEFAULT_RULES,
    Bid,
    Deal,
    HandResult,
    IllegalAction,
    InvalidDeal,
    MalformedAction,
    Observation,
    PastHand,
    Rules,
    _check_scores,
    _check_seat,
    _fresh_summary,
    _refuse,
    hand_points,
    is_legal,
    next_seat,
    opening_leader,
    rules_dict,
    rules_of,
)

__all__ = ["OVER", "GameState", "IllegalAction", "MalformedAction", "is_legal", "rules_of"]

OVER: Final = "over"
"""The :attr:`GameState.phase` of a finished hand (never an observation's phase)."""


# The fixed answers, as the lists the state offers: shared, never changed (callers get copies).
_BID1_LEGAL: Final = list(_BID1)
_ALONE_LEGAL: Final = list(_ALONE)
_PICKUP_LEGAL: Final = list(_PICKUP)
_FIXED: Final = {"bid1": _BID1_LEGAL, "alone": _ALONE_LEGAL, "pickup": _PICKUP_LEGAL}
_CLOCKWISE: Final = tuple(next_seat(s) for s in (0, 1, 2))
"""``_CLOCKWISE[s]`` is the seat after ``s`` (its left) when nobody sits out."""
_FOLLOW: Final = {
    t: {c: frozenset(d for d in e if e[d] == e[c]).__contains__ for c in e}
    for t, e in ((t, suit_table(t)) for t in SUITS)
}
"""``_FOLLOW[trump][lead]``: whether a card follows the card ``lead`` (filtered in C by play)."""

Trick = tuple[int, tuple[tuple[int, str], ...], int]
"""A finished trick: ``(leader, ((seat, card), ...), winner)``."""


class GameState:
    """One hand in progress under ``rules``: the position, its legal actions, and the record.

    Attributes are for reading (change the state only through :meth:`apply`): :attr:`phase`
    (one of :data:`~arena.rules.PHASES`, or :data:`OVER`), :attr:`turn` (the seat to act,
    ``None`` once over), ``hands`` (current cards by seat, sorted), ``dummy``, ``upcard``,
    ``bids`` (``{"seat", "round", "action"}`` dicts, as observations show them), ``pickup``,
    ``trump``, ``maker``, ``alone``, ``sitting_out``, ``tricks`` (:data:`Trick` tuples),
    ``trick`` (``(seat, card)`` so far), ``tricks_won``, ``discards`` by seat and ``log``
    (every decision as ``(seat, phase, action)``). ``scores``, ``hand_number`` and
    ``history`` are the match so far, as the observations show it.

    Raises :class:`~arena.rules.InvalidDeal` for a deal that does not fit ``rules`` and
    ``ValueError`` for a dealer or scores out of range.
    """

    __slots__ = (
        "rules",
        "deal",
        "dealer",
        "scores",
        "hand_number",
        "history",
        "phase",
        "turn",
        "hands",
        "dummy",
        "upcard",
        "bids",
        "pickup",
        "trump",
        "maker",
        "alone",
        "sitting_out",
        "tricks",
        "trick",
        "tricks_won",
        "discards",
        "log",
        "_legal",
        "_options",
        "_asked",
        "_follows",
        "_next",
        "_players",
        "_rules_dict",
    )

    def __init__(
        self,
        deal: Deal,
        rules: Rules = DEFAULT_RULES,
        dealer: int = 0,
        scores: Sequence[int] = (0, 0, 0),
        *,
        hand_number: int = 0,
        history: Sequence[PastHand] = (),
    ) -> None:
        _check_seat(dealer, "dealer")
        self._start(deal.checked(rules), rules, dealer, _check_scores(scores), hand_number)
        # Earlier hands are copied once per hand and their entries shared by this hand's
        # observations (copying them for every decision would cost a quarter of the referee's
        # time); they are never the caller's own dicts.
        self.history = [_fresh_summary(h) for h in history]

    @classmethod
    def _of_match(
        cls,
        deal: Deal,
        rules: Rules,
        dealer: int,
        scores: list[int],
        hand_number: int,
        history: list[PastHand],
    ) -> GameState:
        """A hand of a running :class:`arena.engine.Match`: its values are checked already,
        and its history entries are :meth:`HandResult.summary` dicts, whose lists are known."""
        state = cls.__new__(cls)
        state._start(deal.checked(rules), rules, dealer, scores[:], hand_number)
        state.history = copies = []
        for summary in history:
            copy = summary.copy()
            copy["alone"] = copy["alone"][:]
            copy["tricks_won"] = copy["tricks_won"][:]
            copy["points"] = copy["points"][:]
            copies.append(copy)
        return state

    def _start(
        self, deal: Deal, rules: Rules, dealer: int, scores: list[int], hand_number: int
    ) -> None:
        """The state before the first decision (``deal`` already checked)."""
        self.rules = rules
        self._rules_dict = rules_dict(rules)
        self.deal = deal
        self.dealer = dealer
        self.scores = scores
        self.hand_number = hand_number
        # The state's lists are its own: no observation or record ever shares one, so a bot
        # that mutates what it was shown changes neither the game nor its record.
        if deal.__dict__.get("_sorted_hands"):
            self.hands = list(map(list, deal.hands))
        else:
            self.hands = [sort_cards(h) for h in deal.hands]
        self.dummy = list(deal.dummy)
        self.upcard = deal.kitty[0]
        self.bids: list[Bid] = []
        self.pickup: bool | None = None
        self.trump: str | None = None
        self.maker: int | None = None
        self.alone: list[int] = []
        self.sitting_out: int | None = None
        self.tricks: list[Trick] = []
        self.trick: list[tuple[int, str]] = []
        self.tricks_won = [0, 0, 0]
        self.discards: list[list[str]] = [[], [], []]
        self.log: list[tuple[int, str, Any]] = []
        self._legal: list[Any] | None = None
        self._options: KeepOptions | None = None  # the keep's, once asked for
        self._follows: dict[str, Callable[[object], bool]] | None = None
        self._asked = 0  # seats asked about going alone so far
        self._next: Sequence[int] = _CLOCKWISE
        self._players = 3
        self.phase: str
        self.turn: int | None
        if self.upcard == JOKER:  # the dealer names trump blind (docs/rules.md 5.4)
            self.phase, self.turn = "joker_trump", dealer
        else:
            self.phase, self.turn, self._legal = "bid1", _CLOCKWISE[dealer], _BID1_LEGAL

    # ----- queries -----

    def is_over(self) -> bool:
        """Whether the hand is finished (all five tricks played, or passed out)."""
        return self.turn is None

    def legal_actions(self) -> list[Any]:
        """The actions the seat to act may take, as ``obs["legal"]`` lists them (a new list).

        In ``keep``: every 5-card subset of hand + dummy, each a sorted *tuple* (observations
        show them as lists; tuples are half the cost to make and can key a dict; :meth:`apply`
        takes 5 cards in any order, as a list or a tuple), as a
        :class:`~arena.keeps.KeepOptions`: a list whose items are made when read (a random
        pick by index makes one tuple, not 252). Empty once the hand is over.
        """
        legal = self._legal
        if legal is not None:
            return legal[:]
        legal = self._compute_legal()
        return legal[:] if legal is self._legal else legal  # keep options: made fresh already

    def _compute_legal(self) -> list[Any]:
        """The legal actions, kept in ``_legal`` until the next :meth:`apply` (not the keep
        options: they are many, asked for once, and never compared against)."""
        phase = self.phase
        if phase == "play":
            hand = self.hands[self.turn]  # type: ignore[index]
            trick = self.trick
            if trick:
                legal = [*filter(self._follows[trick[0][1]], hand)] or hand  # type: ignore[index]
            else:
                legal = hand
        elif phase == "keep":
            pool = self.hands[self.turn] + self.dummy  # type: ignore[index]
            self._options = options = keep_options(tuple(sorted(pool, key=_KEY)))
            return options
        elif phase == OVER:
            return []
        else:
            legal = _FIXED.get(phase) or self._other_legal(phase)
        self._legal = legal
        return legal

    def _keep_lists(self) -> list[list[str]]:
        return option_lists(self.hands[self.turn] + self.dummy)  # type: ignore[index]

    def _other_legal(self, phase: str) -> list[str]:
        seat = self.turn
        if phase == "bid2":
            up_suit = self.upcard[1]
            allowed = self.rules.round2_allow_turned_down
            named = [suit for suit in SUITS if suit != up_suit or allowed]
            stuck = seat == self.dealer and self.rules.stick_the_dealer
            return named if stuck else ["pass", *named]
        if phase == "discard":
            return [c for c in self.hands[seat] if c != self.upcard]  # type: ignore[index]
        return list(SUITS)  # joker_trump

    def observation(self, seat: int) -> Observation:
        """What ``seat`` is shown now: the protocol's observation dict (docs/protocol.md).

        Nothing private to another seat. For the seat to act it is exactly what a bot is
        asked with; for another seat ``legal`` is empty. Shares nothing with the state
        (entries of ``history`` are shared between the observations of one hand).
        """
        turn = self.turn
        if seat == turn:
            legal = self._legal
            if legal is None:
                legal = self._keep_lists() if self.phase == "keep" else self._compute_legal()
        elif turn is None:
            raise ValueError("the hand is over: no seat has a decision to observe")
        else:
            legal = []
        phase = self.phase
        obs: Observation = {
            "phase": phase,
            "seat": seat,
            "dealer": self.dealer,
            "scores": self.scores[:],
            # The Joker's dealer names trump before seeing the hand.
            "hand": self.hands[seat][:] if phase != "joker_trump" or seat != turn else [],
            "upcard": self.upcard,
            "bids": [b.copy() for b in self.bids],
            "pickup": self.pickup,
            "trump": self.trump,
            "maker": self.maker,
            "alone": self.alone[:],
            "sitting_out": self.sitting_out,
            "tricks": [
                {"leader": ld, "cards": [[s, c] for s, c in cs], "winner": w}
                for ld, cs, w in self.tricks
            ]
            if self.tricks
            else [],
            "trick": [[s, c] for s, c in self.trick] if self.trick else [],
            "legal": legal[:],
            "rules": self._rules_dict.copy(),
            "hand_number": self.hand_number,
            "history": self.history[:],
            "discards": self.discards[seat][:],
        }
        if phase == "keep" and seat == turn:
            obs["dummy"] = self.dummy[:]
        return obs

    def points(self) -> list[int]:
        """Points of the finished hand by seat (docs/rules.md section 7)."""
        if self.turn is not None:
            raise ValueError("the hand is not over")
        if self.maker is None:
            return [0, 0, 0]
        return hand_points(self.rules, self.maker, self.alone, self.tricks_won)

    def result(self) -> HandResult:
        """The record of the finished hand (a new :class:`~arena.rules.HandResult`)."""
        return HandResult(
            hand_number=self.hand_number,
            dealer=self.dealer,
            deal=self.deal,
            scores_before=self.scores[:],
            bids=[b.copy() for b in self.bids],
            pickup=self.pickup,
            trump=self.trump,
            maker=self.maker,
            alone=self.alone[:],
            sitting_out=self.sitting_out,
            tricks=[
                {"leader": ld, "cards": [[s, c] for s, c in cs], "winner": w}
                for ld, cs, w in self.tricks
            ],
            tricks_won=self.tricks_won[:],
            points=self.points(),
            discards=[self.discards[0][:], self.discards[1][:], self.discards[2][:]],
            log=self.log[:],
        )

    def copy(self) -> GameState:
        """An independent copy: applying actions to one never changes the other."""
        new = GameState.__new__(GameState)
        new.rules = self.rules
        new._rules_dict = self._rules_dict
        new.deal = self.deal
        new.dealer = self.dealer
        new.scores = self.scores
        new.hand_number = self.hand_number
        new.history = self.history
        new.phase = self.phase
        new.turn = self.turn
        new.hands = [self.hands[0][:], self.hands[1][:], self.hands[2][:]]
        new.dummy = self.dummy
        new.upcard = self.upcard
        new.bids = self.bids[:]
        new.pickup = self.pickup
        new.trump = self.trump
        new.maker = self.maker
        new.alone = self.alone  # these two are replaced, never changed in place (rare)
        new.sitting_out = self.sitting_out
        new.tricks = self.tricks[:]
        new.trick = self.trick[:]
        new.tricks_won = self.tricks_won[:]
        new.discards = self.discards
        new.log = self.log[:]
        legal = self._legal  # the fixed answers are shared (copied on the way out)
        new._legal = legal if legal is _FIXED.get(self.phase) else None
        new._options = self._options
        new._asked = self._asked
        new._next = self._next
        new._players = self._players
        new._follows = self._follows
        return new

    def __repr__(self) -> str:
        return (
            f"<GameState hand {self.hand_number}, dealer {self.dealer}, {self.phase}, "
            f"turn {self.turn}, trump {self.trump}, maker {self.maker}, "
            f"{len(self.tricks)} tricks>"
        )

    # ----- stepping -----

    def apply(self, action: Any) -> None:
        """Play ``action`` for the seat to act and move on.

        Raises :class:`IllegalAction` (:class:`MalformedAction` when it is no action of this
        phase at all) and leaves the state unchanged. A ``keep`` is 5 cards in any order.
        """
        legal = self._legal
        if legal is None:
            if self.phase == "keep":
                self._keep(self.turn, action)  # type: ignore[arg-type]
                return
            if self.turn is None:
                raise ValueError("the hand is over: no action can be applied")
            legal = self._compute_legal()
        seat: int = self.turn  # type: ignore[assignment]
        if action.__class__ is not str and not isinstance(action, str) or action not in legal:
            raise _refuse(seat, self.phase, action, legal)
        phase = self.phase
        if phase != "play":
            # Record a plain str (the answer may be an equal str of another type).
            card = action if action.__class__ is str else legal[legal.index(action)]
            self.log.append((seat, phase, card))
            self._legal = None
            _STEPS[phase](self, seat, card)
            return
        # Playing a card, inline: rollouts spend most of their time here.
        entry, play = _PLAYED[seat][action]
        self.log.append(entry)
        self.hands[seat].remove(action)
        trick = self.trick
        trick.append(play)
        if len(trick) < self._players:
            # The next seat's legal cards, now: it is asked for them next, whoever steps.
            turn = self.turn = self._next[seat]
            hand = self.hands[turn]
            self._legal = [*filter(self._follows[trick[0][1]], hand)] or hand  # type: ignore[index]
            return
        winner = max(trick, key=_WINNER[self.trump][trick[0][1]])[0]  # type: ignore[index]
        self.tricks.append((trick[0][0], tuple(trick), winner))
        self.tricks_won[winner] += 1
        self.trick = []
        if len(self.tricks) == 5:
            self.phase, self.turn, self._legal = OVER, None, None
        else:
            self.turn = winner
            self._legal = self.hands[winner]  # a lead may be any card

    def _bid1(self, seat: int, action: str) -> None:
        self.bids.append(_BID_ENTRY[seat][1][action])
        if action == "order":
            self.trump, self.maker, self._follows = (up := self.upcard[1]), seat, _FOLLOW[up]
            if seat == self.dealer or self.rules.dealer_pickup == "mandatory":
                self._take_upcard()
            else:
                self.phase, self.turn, self._legal = "pickup", self.dealer, _PICKUP_LEGAL
        elif seat == self.dealer:  # all passed: the up-card is turned down
            self.phase, self.turn = "bid2", _CLOCKWISE[seat]
        else:  # nobody sits out while bidding
            self.turn, self._legal = _CLOCKWISE[seat], _BID1_LEGAL

    def _bid2(self, seat: int, action: str) -> None:
        self.bids.append(_BID_ENTRY[seat][2][action])
        if action != "pass":
            self._make(action, seat)
            self._ask_alone()
        elif seat == self.dealer:  # passed out: a dead hand
            self.phase, self.turn = OVER, None
        else:
            self.turn = _CLOCKWISE[seat]

    def _joker_trump(self, seat: int, suit: str) -> None:
        self.bids.append(_BID_ENTRY[seat][0][suit])
        self._make(suit, seat)
        self._take_upcard()

    def _make(self, trump: str, maker: int) -> None:
        self.trump, self.maker = trump, maker
        self._follows = _FOLLOW[trump]

    def _pickup(self, seat: int, action: str) -> None:
        if action == "pickup":
            self._take_upcard()
        else:
            self.pickup = False
            self._ask_alone()

    def _take_upcard(self) -> None:
        dealer, up = self.dealer, self.upcard
        self.pickup = True
        insort(hand := self.hands[dealer], up, key=_KEY)  # kept sorted
        if self.maker != dealer:
            self.phase, self.turn, self._legal = "discard", dealer, hand[:]
            self._legal.remove(up)  # any card but the up-card
        else:  # a dealer-maker gets back to 5 later: by the keep, or a discard if alone
            self._ask_alone()

    def _discard(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        self.discards = d = [*self.discards]  # new lists: copies share the old ones
        d[seat] = [*d[seat], card]
        if self._asked:  # a lone dealer-maker's discard, after the alone calls
            self._start_play()
        else:
            self._ask_alone()

    def _ask_alone(self) -> None:
        # The maker first (before seeing the dummy), then defenders clockwise.
        self.phase, self.turn, self._legal, self._asked = "alone", self.maker, _ALONE_LEGAL, 0

    def _alone(self, seat: int, action: str) -> None:
        self._asked += 1
        if action == "alone":
            self.alone = [*self.alone, seat]  # a new list: copies share the old one
            if seat != self.maker:  # the other defender sits out; nobody else is asked
                self.sitting_out = 3 - self.maker - seat  # type: ignore[operator]
                self._asked = 3
        if self._asked < 3:  # the sitter, if any, is known only once all are asked
            self.turn, self._legal = _CLOCKWISE[seat], _ALONE_LEGAL
            return
        maker: int = self.maker  # type: ignore[assignment]
        if maker not in self.alone:
            self.phase, self.turn = "keep", maker
        elif len(self.hands[maker]) == 6:
            self.phase, self.turn = "discard", maker
        else:
            self._start_play()

    def _keep(self, seat: int, action: Any) -> None:
        done = keep(self._options, action, self.hands[seat] + self.dummy)
        if done is None:
            raise _refuse(seat, "keep", action, self._keep_lists())
        kept, rest = done
        self.log.append((seat, "keep", kept))
        self.discards = d = [*self.discards]  # new lists, as in _discard
        d[seat] = [*d[seat], *rest]
        self.hands[seat] = kept[:]  # the log keeps its own list
        self._start_play()

    def _start_play(self) -> None:
        sitting = self.sitting_out
        if sitting is not None:  # the seat before the sitter passes to the seat after it
            self._next = tuple(next_seat(s, sitting) for s in (0, 1, 2))
            self._players = 2
        alone = self.alone
        if alone:
            leader = opening_leader(self.rules, self.dealer, self.maker, alone, sitting)  # type: ignore[arg-type]
        else:
            leader = _CLOCKWISE[self.dealer]  # the dealer's left
        self.phase, self.turn, self._legal = "play", leader, self.hands[leader]

    # ----- determinization -----

    @classmethod
    def from_observation(
        cls,
        obs: Observation,
        hands: dict[int, Sequence[str]],
        dummy: Sequence[str] | None = None,
    ) -> GameState:
        """A state consistent with everything ``obs``'s seat has seen, and with a guess.

        ``hands`` maps each seat in ``unseen(obs).holders`` to its whole current hand (a card
        it is known to hold, such as a picked-up up-card, included); ``dummy`` is the guessed
        dummy while one is still to be taken (``unseen(obs).dummy == 5``). The other unseen
        cards go to the places nobody will see again (face-down kitty, others' discards). The
        state is the hand replayed from such a deal with the same public actions: it is at
        ``obs``'s decision, with ``obs``'s legal actions.

        Raises ``ValueError`` when the guess does not fit the observation (a card seen or
        placed twice, wrong counts, a card of a suit its holder showed void in).
        """
        rules = rules_of(obs)
        guess = _guess_deal(obs, hands, dummy, rules.kitty_size)
        try:
            deal = Deal(guess.hands, guess.dummy, guess.kitty).checked(rules)
        except InvalidDeal as e:
            raise ValueError(f"the guess makes no deal of the deck: {e}") from None
        state = cls.__new__(cls)
        state._start(deal, rules, obs["dealer"], list(obs["scores"]), obs["hand_number"])
        state.history = list(obs["history"])
        _replay(state, obs, guess.current, guess.played, guess.discards)
        me = obs["seat"]
        if obs["phase"] != "joker_trump" and state.hands[me] != sort_cards(obs["hand"]):
            raise ValueError(f"the guess does not give seat {me} the hand it sees")
        return state


_STEPS: Final[dict[str, Callable[[GameState, int, Any], None]]] = {
    "bid1": GameState._bid1,
    "pickup": GameState._pickup,
    "discard": GameState._discard,
    "bid2": GameState._bid2,
    "alone": GameState._alone,
    "joker_trump": GameState._joker_trump,
}
