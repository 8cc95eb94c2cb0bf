"""What one seat cannot see, and game states built from a guess of it (determinization).

A determinized search bot (perfect-information Monte Carlo) guesses where the cards it cannot
see are, consistently with everything its observation shows, builds the full game state of that
guess, and plays it out. This module does the bookkeeping, with the rules of
:mod:`arena.game`: :func:`unseen` lists the hidden cards and where they must go (how many each
seat holds, the dummy, voids shown, an up-card known to be in the dealer's hand);
:func:`determinize` (also :meth:`arena.game.GameState.from_observation`) builds the state of
one guess; :func:`sample_state` draws a guess uniformly at random among those that fit.

Pure (standard library, :mod:`arena.cards`, :mod:`arena.game`); staged by the sandbox, so bots
import it. Imports go one way: the card accounting (:class:`Unseen`, :func:`unseen` and the deal
of a guess) lives in :mod:`arena.cards`, below the game state, so that
:meth:`~arena.game.GameState.from_observation` needs nothing of this module.

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
from typing import Final

from arena.cards import Unseen, _hidden_places, suit_table, unseen
from arena.game import GameState
from arena.rules import Observation

__all__ = ["Unseen", "unseen", "determinize", "sample_state"]

_TRIES: Final = 24
"""Uniform draws tried before the greedy fallback when voids constrain the guess."""


def determinize(
    obs: Observation, hands: dict[int, Sequence[str]], dummy: Sequence[str] | None = None
) -> GameState:
    """The state of one guess of the hidden cards: see :meth:`GameState.from_observation`."""
    return GameState.from_observation(obs, hands, dummy)


def sample_state(obs: Observation, rng: random.Random) -> GameState:
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
