"""Cards of Three-Handed Euchre: parsing, formatting, suits under a trump, trick ranking, and
the cards one seat has not seen.

This module is standalone (it imports nothing else of ``arena``): bots import it inside the
sandbox. A card is a two-character string, rank then suit (``"JH"``, ``"TD"``, ``"9C"``), or
``"JK"`` for the Joker of the 25-card deck. Who wins a trick is stated here once
(:func:`winning_play`): the referee's :class:`arena.game.GameState`, the bundled bots and the
solver's bit layout (:class:`arena.solver.Layout`) all take it from here.

The last part is the card accounting of determinization, below the game state so that
:meth:`arena.game.GameState.from_observation` needs nothing above it: what one seat has not
seen and where those cards must be (:class:`Unseen`, :func:`unseen`, both documented with
:mod:`arena.worlds`), and the deal of one guess of them.

>>> effective_suit("JD", "H")          # the left bower belongs to trump
'H'
>>> beats("JD", "AH", trump="H", led="H")
True
>>> trick_winner([(0, "AS"), (1, "9H"), (2, "KS")], trump="H")
1
>>> winning_play([(0, "AS"), (1, "9H")], trump="H")
(1, '9H')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple, cast

if TYPE_CHECKING:  # types only: at run time cards imports nothing of arena (bots import it)
    from arena.rules import Observation, SeatCard

__all__ = [
    "SUITS",
    "plays",
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
    "winning_play",
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


def winning_play(plays: Sequence[tuple[int, str]] | Sequence[list], trump: str) -> tuple[int, str]:
    """The ``(seat, card)`` that wins (or so far holds) a trick given as ``[(seat, card), ...]``
    in play order: the highest :func:`power` under ``trump`` and the suit led.

    The one statement of the rule: the referee, the bots and the solver use it.
    """
    first = plays[0][1]
    table = _POWER[trump][_EFFECTIVE[trump][first]]
    best_seat, best_card = plays[0][0], first
    best = table[first]
    for seat, card in plays:
        if table[card] > best:
            best_seat, best_card, best = seat, card, table[card]
    return best_seat, best_card


def trick_winner(plays: Sequence[tuple[int, str]] | Sequence[list], trump: str) -> int:
    """The seat that wins a trick given as ``[(seat, card), ...]`` in play order."""
    return int(winning_play(plays, trump)[0])


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
_DECKS: Final = {n: tuple(deck(n)) for n in (24, 25, 32)}

# Tables of arena.game's card play (here, beside the power table they come from).
_PLAYED: Final = tuple({c: ((s, "play", c), (s, c)) for c in _KEY} for s in (0, 1, 2))
"""``_PLAYED[seat][card]``: the log entry and the trick's ``(seat, card)`` of a card play, made
once (tuples, shared by every state; a rollout allocates neither)."""
_PAIRS: Final = tuple(pair for table in _PLAYED for _, pair in table.values())


def _winner_table(trump: str) -> dict[str, Callable[[tuple[int, str]], int]]:
    effective = suit_table(trump)
    by_led = {
        led: {pair: power[pair[1]] for pair in _PAIRS}.__getitem__
        for led, power in _POWER[trump].items()
        if led is not None
    }
    return {c: by_led[effective[c]] for c in effective if effective[c] in by_led}


_WINNER: Final = {t: _winner_table(t) for t in SUITS}
"""``_WINNER[trump][lead](pair)``: the power of a ``(seat, card)`` of ``_PLAYED`` in a trick
led by ``lead`` (so ``max(trick, key=...)`` finds the winning play in C)."""


# ----- what one seat has not seen (arena.worlds and GameState.from_observation) -----


class Unseen(NamedTuple):
    """The cards one seat cannot see at one observation, and what it knows of their places.

    ``cards`` are in canonical (deck) order. ``holders`` maps each seat whose hand holds
    unseen cards to how many (the observer too, when the Joker's dealer names trump blind);
    ``known`` lists cards of another seat's hand that are public but not in ``cards`` (the
    up-card a dealer picked up and has not played); ``dummy`` is 5 while a dummy is still to be
    taken, else 0; ``voids`` holds, for each seat in ``holders``, the suits (effective, under
    trump) it has shown it lacks; ``maybe`` lists cards of ``cards`` that are either in that
    seat's hand or among its discards, nowhere else (the up-card of a dealer-maker who took
    the dummy: the keep may have thrown it away). The rest, :attr:`dead`, are out of play for
    good: the face-down kitty, others' discards, a lone maker's dummy.
    """

    cards: tuple[str, ...]
    holders: dict[int, int]
    known: dict[int, tuple[str, ...]]
    dummy: int
    voids: dict[int, frozenset[str]]
    maybe: dict[int, tuple[str, ...]]

    @property
    def dead(self) -> int:
        """How many unseen cards nobody will play."""
        return len(self.cards) - sum(self.holders.values()) - self.dummy


def plays(pairs: Iterable[SeatCard]) -> list[tuple[int, str]]:
    """``[seat, card]`` pairs (a trick's ``cards``, the observation's ``trick``) as
    ``(seat, card)`` tuples, checked: a ValueError for a pair that is not an int and a str."""
    out = []
    for seat, card in pairs:
        if not isinstance(seat, int) or not isinstance(card, str):
            raise ValueError(f"not a [seat, card] pair: {[seat, card]!r}")
        out.append((seat, card))
    return out


def _plays(obs: Observation) -> list[list[tuple[int, str]]]:
    """The tricks of ``obs`` so far (the one in progress last) as ``(seat, card)`` lists."""
    tricks = [[(s, c) for s, c in _pairs(t["cards"])] for t in obs["tricks"]]
    return [*tricks, [(s, c) for s, c in _pairs(obs["trick"])]]


def _pairs(plays: list[SeatCard]) -> list[list[Any]]:
    """``plays``, each ``[seat, card]`` (an int and a str, in a JSON pair), as read."""
    return cast("list[list[Any]]", plays)


def _held(obs: Observation, seat: int) -> int:
    """How many cards ``seat`` held before its plays of this hand."""
    phase, dealer, maker = obs["phase"], obs["dealer"], obs["maker"]
    # Everyone plays from 5; before play a dealer who took the up-card holds 6 until the
    # discard (a dealer-maker keeps 6 until the keep or the lone discard).
    if phase != "play" and obs["pickup"] and seat == dealer:
        if maker == dealer or phase == "discard":
            return 6
    return 5


def unseen(obs: Observation) -> Unseen:
    """What the seat of ``obs`` cannot see now, and where those cards must be."""
    me, phase, trump, dealer = obs["seat"], obs["phase"], obs["trump"], obs["dealer"]
    up = obs["upcard"]
    seen = {*obs["hand"], *obs["discards"], *obs.get("dummy", ()), up}
    played = [0, 0, 0]
    voids: tuple[set[str], ...] = (set(), set(), set())
    up_played = False
    if phase == "play":
        eff = suit_table(cast(str, trump))  # trump is named before play
        for trick in (*(_pairs(t["cards"]) for t in obs["tricks"]), _pairs(obs["trick"])):
            if trick:
                led = eff[trick[0][1]]
                for seat, card in trick:
                    played[seat] += 1
                    seen.add(card)
                    up_played = up_played or card == up
                    if eff[card] != led:
                        voids[seat].add(led)
    holders: dict[int, int] = {}
    known: dict[int, tuple[str, ...]] = {}
    maybe: dict[int, tuple[str, ...]] = {}
    # Where a picked-up up-card is: the dealer holds it until played, except that a
    # dealer-maker with the dummy may have discarded it in the keep.
    up_with_dealer = obs["pickup"] and not up_played and dealer != me
    if up_with_dealer and _kept_with_dummy(obs, dealer):
        seen.discard(up)
        maybe[dealer] = (up,)
        up_with_dealer = False
    for seat in (0, 1, 2):
        if seat == me and phase != "joker_trump":
            continue
        count = _held(obs, seat) - played[seat]
        if up_with_dealer and seat == dealer:
            known[seat] = (up,)
            count -= 1
        holders[seat] = count
    live_dummy = "dummy" not in obs and phase != "play" and obs["maker"] not in obs["alone"]
    return Unseen(
        tuple([c for c in _DECKS[obs["rules"]["deck"]] if c not in seen]),
        holders,
        known,
        5 if live_dummy else 0,
        {seat: frozenset(voids[seat]) for seat in holders},
        maybe,
    )


def _kept_with_dummy(obs: Observation, seat: int) -> bool:
    """Whether ``seat`` is a maker who has taken the dummy and kept 5 (its discards hidden)."""
    return obs["phase"] == "play" and seat == obs["maker"] and seat not in obs["alone"]


def _placed(obs: Observation, info: Unseen, hands: dict[int, Sequence[str]]) -> list[list[str]]:
    """Every seat's current hand: the observer's own, and the guessed ones (checked)."""
    current: list[list[str]] = [[], [], []]
    if obs["phase"] != "joker_trump":
        current[obs["seat"]] = list(obs["hand"])
    strays = set(hands) - set(info.holders)
    if strays:
        raise ValueError(f"seat {obs['seat']} sees every card of seat {min(strays)}: no guess")
    free = set(info.cards)
    for seat, count in info.holders.items():
        if seat not in hands:
            raise ValueError(f"a guess needs the hand of seat {seat}")
        cards = [parse_card(c) for c in hands[seat]]
        known = info.known.get(seat, ())
        guessed = [c for c in cards if c not in known]
        if len(guessed) != count or len(cards) != count + len(known):
            raise ValueError(f"seat {seat} holds {count + len(known)} cards now, not {len(cards)}")
        for card in guessed:
            if card not in free:
                raise ValueError(f"{card} cannot be in seat {seat}'s hand: seen or placed twice")
            if any(card in cs for other, cs in info.maybe.items() if other != seat):
                raise ValueError(f"{card} can only be in the hand or discards of its taker")
            free.discard(card)
        current[seat] = sort_cards(cards)
    return current


def _hidden_places(obs: Observation, rules_kitty: int) -> list[tuple[str, int, int]]:
    """Places of dead unseen cards, in filling order: ``(what, seat, how many)``."""
    me, phase, dealer, maker = obs["seat"], obs["phase"], obs["dealer"], obs["maker"]
    pickup, alone = obs["pickup"], obs["alone"]
    places = []
    if maker is not None and maker in alone and "dummy" not in obs:
        places.append(("dummy", -1, 5))  # a lone maker's dummy stays face down
    if pickup and dealer != me and maker != dealer and phase in ("alone", "keep", "play"):
        places.append(("discards", dealer, 1))
    if maker is not None and maker != me and phase == "play":
        took_up = pickup and maker == dealer
        if maker not in alone:
            places.append(("discards", maker, 6 if took_up else 5))
        elif took_up:
            places.append(("discards", maker, 1))
    places.append(("kitty", -1, rules_kitty - 1))
    return places


class _Guess(NamedTuple):
    """The deal of one guess of the hidden cards, and what to replay from it: every seat's
    hand now (``current``), its cards played so far and its discards."""

    hands: list[list[str]]
    dummy: list[str]
    kitty: list[str]
    current: list[list[str]]
    played: list[list[str]]
    discards: list[list[str]]


def _guess_deal(
    obs: Observation,
    hands: dict[int, Sequence[str]],
    dummy: Sequence[str] | None,
    kitty_size: int,
) -> _Guess:
    """The deal of one guess (checked against ``obs``): see
    :meth:`arena.game.GameState.from_observation`, which makes the state of it."""
    info = unseen(obs)
    dealer, up = obs["dealer"], obs["upcard"]
    current = _placed(obs, info, hands)
    taken = {c for seat in info.holders for c in current[seat]}
    table_dummy = list(obs.get("dummy", ()))
    if info.dummy:
        if dummy is None:
            raise ValueError("a guess needs the dummy while it is still to be taken")
        table_dummy = [parse_card(c) for c in dummy]
        maybe = {c for cs in info.maybe.values() for c in cs}
        unfit = [c for c in table_dummy if c not in info.cards or c in taken or c in maybe]
        if len(table_dummy) != 5 or len(set(table_dummy)) != 5 or unfit:
            raise ValueError(f"the dummy must be 5 unseen cards not placed elsewhere: {dummy!r}")
        taken.update(table_dummy)
    elif dummy is not None:
        raise ValueError("no dummy is left to guess at this point of the hand")
    rest = [c for c in info.cards if c not in taken]
    discards, kitty, face_down = _dead(obs, info, rest, kitty_size)
    table_dummy = face_down or table_dummy
    played: list[list[str]] = [[], [], []]
    for trick in _plays(obs):
        for seat, card in trick:
            played[seat].append(card)
    dealt = [current[s] + played[s] + discards[s] for s in (0, 1, 2)]
    if obs["pickup"]:
        dealt[dealer].remove(up)
    maker = obs["maker"]
    if maker is not None and len(dealt[maker]) == 10:  # the maker took the dummy: split it off
        pool = sort_cards(dealt[maker])
        dealt[maker], table_dummy = pool[:5], pool[5:]
    hands_dealt = [sort_cards(h) for h in dealt]
    return _Guess(hands_dealt, sort_cards(table_dummy), kitty, current, played, discards)


def _dead(
    obs: Observation, info: Unseen, rest: list[str], kitty_size: int
) -> tuple[list[list[str]], list[str], list[str]]:
    """Place the unseen cards nobody holds: discards by seat, the kitty (up-card first) and a
    lone maker's face-down dummy (empty when there is none)."""
    discards: list[list[str]] = [[], [], []]
    discards[obs["seat"]] = list(obs["discards"])
    for seat, cards in info.maybe.items():  # not kept, so thrown away by the keep
        discards[seat] = [c for c in cards if c in rest]
        rest = [c for c in rest if c not in cards]
    kitty, face_down = [obs["upcard"]], []
    for what, seat, count in _hidden_places(obs, kitty_size):
        if what == "discards":
            count -= len(discards[seat])
        chunk, rest = rest[:count], rest[count:]
        if what == "dummy":
            face_down = chunk
        elif what == "discards":
            discards[seat] += chunk
        else:
            kitty += chunk
    if rest or len(kitty) != kitty_size:
        raise ValueError("the observation does not fit one deal of its deck")
    return discards, kitty, face_down


def _replay(
    state: Any,
    obs: Observation,
    current: list[list[str]],
    played: list[list[str]],
    discards: list[list[str]],
) -> None:
    """Apply the observation's public actions (and the guessed private ones) up to its decision."""
    bids = iter([b["action"] for b in obs["bids"]])
    plays = iter([card for trick in _plays(obs) for _, card in trick])
    target = (obs["phase"], obs["seat"], len(obs["bids"]), len(obs["tricks"]), len(obs["trick"]))
    for _ in range(64):  # a hand has at most 6 bids, 6 other calls and 15 plays
        phase, seat = state.phase, state.turn
        if (phase, seat, len(state.bids), len(state.tricks), len(state.trick)) == target:
            if state.alone == obs["alone"]:
                return
        if seat is None:  # the hand is over
            break
        action: Any
        if phase in ("bid1", "bid2", "joker_trump"):
            action = next(bids, None)
        elif phase == "pickup":
            action = "pickup" if obs["pickup"] else "decline"
        elif phase == "discard":
            action = discards[seat][0] if discards[seat] else None
        elif phase == "alone":
            action = "alone" if seat in obs["alone"] else "pass"
        elif phase == "keep":
            action = current[seat] + played[seat]
        else:
            action = next(plays, None)
        try:
            state.apply(action)
        except ValueError as e:  # IllegalAction, from arena.rules
            raise ValueError(f"the guess does not fit what seat {obs['seat']} saw: {e}") from None
    raise ValueError(f"the observation of seat {obs['seat']} is not a position of this hand")
