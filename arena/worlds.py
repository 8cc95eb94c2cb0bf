"""What one seat cannot see, and game states built from a guess of it (determinization).

A determinized search bot (perfect-information Monte Carlo) guesses where the cards it cannot
see are, consistently with everything its observation shows, builds the full game state of that
guess, and plays it out. This module does the bookkeeping, with the rules of
:mod:`arena.game`: :func:`unseen` lists the hidden cards and where they must go (how many each
seat holds, the dummy, voids shown, an up-card known to be in the dealer's hand);
:func:`determinize` (also :meth:`arena.game.GameState.from_observation`) builds the state of
one guess; :func:`sample_state` draws a guess uniformly at random among those that fit.

Pure (standard library, :mod:`arena.cards`, :mod:`arena.rules`, :mod:`arena.game`); staged by
the sandbox, so bots import it.

>>> import random
>>> from arena.engine import deal_for
>>> from arena.game import GameState
>>> obs = GameState(deal_for(7, 0)).observation(1)
>>> info = unseen(obs)
>>> len(info.cards), info.holders, info.dummy, info.dead
(18, {0: 5, 2: 5}, 5, 3)
>>> world = sample_state(obs, random.Random(1))
>>> world.turn, world.hands[1] == obs["hand"]
(1, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final, NamedTuple

from arena.cards import deck, parse_card, sort_cards, suit_table
from arena.game import OVER, GameState, IllegalAction, rules_of
from arena.rules import Deal, InvalidDeal, Rules

__all__ = ["Unseen", "unseen", "determinize", "sample_state"]

_DECKS: Final = {n: tuple(deck(n)) for n in (24, 25, 32)}
_TRIES: Final = 24
"""Uniform draws tried before the greedy fallback when voids constrain the guess."""


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


def _plays(obs: dict[str, Any]) -> list[list[tuple[int, str]]]:
    """The tricks of ``obs`` so far (the one in progress last) as ``(seat, card)`` lists."""
    tricks = [[(s, c) for s, c in t["cards"]] for t in obs["tricks"]]
    return [*tricks, [(s, c) for s, c in obs["trick"]]]


def _held(obs: dict[str, Any], seat: int) -> int:
    """How many cards ``seat`` held before its plays of this hand."""
    phase, dealer, maker = obs["phase"], obs["dealer"], obs["maker"]
    # Everyone plays from 5; before play a dealer who took the up-card holds 6 until the
    # discard (a dealer-maker keeps 6 until the keep or the lone discard).
    if phase != "play" and obs["pickup"] and seat == dealer:
        if maker == dealer or phase == "discard":
            return 6
    return 5


def unseen(obs: dict[str, Any]) -> Unseen:
    """What the seat of ``obs`` cannot see now, and where those cards must be."""
    me, phase, trump, dealer = obs["seat"], obs["phase"], obs["trump"], obs["dealer"]
    up = obs["upcard"]
    seen = {*obs["hand"], *obs["discards"], *obs.get("dummy", ()), up}
    played = [0, 0, 0]
    voids: tuple[set[str], ...] = (set(), set(), set())
    up_played = False
    if phase == "play":
        eff = suit_table(trump)
        for trick in (*(t["cards"] for t in obs["tricks"]), obs["trick"]):
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


def _kept_with_dummy(obs: dict[str, Any], seat: int) -> bool:
    """Whether ``seat`` is a maker who has taken the dummy and kept 5 (its discards hidden)."""
    return obs["phase"] == "play" and seat == obs["maker"] and seat not in obs["alone"]


def _placed(obs: dict[str, Any], info: Unseen, hands: dict[int, Sequence[str]]) -> list[list[str]]:
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


def _hidden_places(obs: dict[str, Any], rules_kitty: int) -> list[tuple[str, int, int]]:
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


def determinize(
    obs: dict[str, Any], hands: dict[int, Sequence[str]], dummy: Sequence[str] | None = None
) -> GameState:
    """The state of one guess of the hidden cards: see :meth:`GameState.from_observation`."""
    info = unseen(obs)
    rules = rules_of(obs)
    me, dealer, up = obs["seat"], obs["dealer"], obs["upcard"]
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
    discards, kitty, face_down = _dead(obs, info, [c for c in info.cards if c not in taken])
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
    deal = _deal(dealt, table_dummy, kitty, rules)
    state = GameState.__new__(GameState)
    state._start(deal, rules, dealer, list(obs["scores"]), obs["hand_number"])
    state.history = list(obs["history"])
    _replay(state, obs, current, played, discards)
    if obs["phase"] != "joker_trump" and state.hands[me] != sort_cards(obs["hand"]):
        raise ValueError(f"the guess does not give seat {me} the hand it sees")
    return state


def _dead(
    obs: dict[str, Any], info: Unseen, rest: list[str]
) -> tuple[list[list[str]], list[str], list[str]]:
    """Place the unseen cards nobody holds: discards by seat, the kitty (up-card first) and a
    lone maker's face-down dummy (empty when there is none)."""
    rules = rules_of(obs)
    discards: list[list[str]] = [[], [], []]
    discards[obs["seat"]] = list(obs["discards"])
    for seat, cards in info.maybe.items():  # not kept, so thrown away by the keep
        discards[seat] = [c for c in cards if c in rest]
        rest = [c for c in rest if c not in cards]
    kitty, face_down = [obs["upcard"]], []
    for what, seat, count in _hidden_places(obs, rules.kitty_size):
        if what == "discards":
            count -= len(discards[seat])
        chunk, rest = rest[:count], rest[count:]
        if what == "dummy":
            face_down = chunk
        elif what == "discards":
            discards[seat] += chunk
        else:
            kitty += chunk
    if rest or len(kitty) != rules.kitty_size:
        raise ValueError("the observation does not fit one deal of its deck")
    return discards, kitty, face_down


def _deal(hands: list[list[str]], dummy: list[str], kitty: list[str], rules: Rules) -> Deal:
    try:
        return Deal([sort_cards(h) for h in hands], sort_cards(dummy), kitty).checked(rules)
    except InvalidDeal as e:
        raise ValueError(f"the guess makes no deal of the deck: {e}") from None


def _replay(
    state: GameState,
    obs: dict[str, Any],
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
        if seat is None or phase == OVER:
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
        except IllegalAction as e:
            raise ValueError(f"the guess does not fit what seat {obs['seat']} saw: {e}") from None
    raise ValueError(f"the observation of seat {obs['seat']} is not a position of this hand")


def sample_state(obs: dict[str, Any], rng: random.Random) -> GameState:
    """A state drawn uniformly among the guesses that fit ``obs`` (voids included).

    Uniform by rejection; when voids make that slow, a greedy fill that still fits them.
    """
    info = unseen(obs)
    maybe = {c: seat for seat, cs in info.maybe.items() for c in cs}
    cards = [c for c in info.cards if c not in maybe]
    eff = suit_table(obs["trump"]) if obs["trump"] else {}
    voids = {seat: suits for seat, suits in info.voids.items() if suits}
    slots = {seat: count for what, seat, count in _hidden_places(obs, 0) if what == "discards"}
    for _ in range(_TRIES):
        rng.shuffle(cards)
        hands: dict[int, Sequence[str]] = {}
        at = 0
        for seat, count in info.holders.items():
            # A card that is in this hand or its discards: each of those places alike.
            mine = [
                c
                for c, s in maybe.items()
                if s == seat and rng.random() * (count + slots[seat]) < count
            ]
            hands[seat] = [*info.known.get(seat, ()), *mine, *cards[at : at + count - len(mine)]]
            at += count - len(mine)
        if all(eff[c] not in suits for seat, suits in voids.items() for c in hands[seat]):
            return determinize(obs, hands, cards[at : at + 5] if info.dummy else None)
    hands, rest = _fit_voids(cards, info, eff, voids)
    return determinize(obs, hands, rest[:5] if info.dummy else None)


def _fit_voids(
    cards: list[str], info: Unseen, eff: dict[str, str], voids: dict[int, frozenset[str]]
) -> tuple[dict[int, Sequence[str]], list[str]]:
    """Fill the void-constrained seats first, each taking first the cards no later seat may.

    Taking a card only this seat can hold never leaves a later seat short, so this finds a
    fit whenever one exists.
    """
    rest = cards[:]
    hands: dict[int, Sequence[str]] = {}
    order = sorted(voids, key=lambda seat: -len(voids[seat]))
    for i, seat in enumerate(order):
        later = order[i + 1 :]
        fits = [c for c in rest if eff[c] not in voids[seat]]
        fits.sort(key=lambda c: any(eff[c] not in voids[other] for other in later))
        take = fits[: info.holders[seat]]
        if len(take) < info.holders[seat]:
            raise ValueError(f"no deal of the unseen cards fits the voids of seat {seat}")
        hands[seat] = [*info.known.get(seat, ()), *take]
        rest = [c for c in rest if c not in take]
    for seat, count in info.holders.items():
        if seat not in hands:
            hands[seat] = [*info.known.get(seat, ()), *rest[:count]]
            rest = rest[count:]
    return hands, rest
