"""Synthetic duplicate tournaments for the ratings tests: Plackett-Luce matches, plus bots that
always lose, always fault, always win or always tie.

Every (set of three, round) draws from its own seeded generator, so a tournament with one
more bot contains exactly the matches of the tournament without it, plus the new bot's: the
tests compare the two.
"""

from __future__ import annotations

import itertools
import random
from typing import Literal

from arena.stats import SeatResult

Behaviour = Literal["lose", "fault", "win"]


def tournament(
    strength: dict[int, float],
    rounds: int,
    seed: int = 0,
    *,
    correlated: bool = False,
    special: dict[int, Behaviour] | None = None,
    ties: bool = False,
) -> list[SeatResult]:
    """A duplicate round robin: every set of three bots, ``rounds`` rounds, six seatings.

    ``strength`` maps bot id to Plackett-Luce strength (bots in ``special`` need none).
    With ``correlated`` the six seatings of a unit copy one sampled placing (the extreme of
    luck shared by the deal); with ``ties`` every match is a three-way tie. A bot that
    loses or faults is always last (two of them share it), one that wins always first.
    """
    special = special or {}
    bots = sorted(set(strength) | set(special))
    out: list[SeatResult] = []
    for members in itertools.combinations(bots, 3):
        for rnd in range(rounds):
            rng = random.Random(f"{seed}/{members}/{rnd}")
            shared = _placing(members, strength, special, rng)
            for k, perm in enumerate(itertools.permutations(members)):
                place = shared if correlated else _placing(members, strength, special, rng)
                mid = f"{','.join(map(str, members))}/{rnd}/{k}"
                for b in perm:
                    out.append(
                        SeatResult(
                            mid,
                            f"{members}/{rnd}",
                            b,
                            1 if ties else place[b],
                            special.get(b) == "fault",
                        )
                    )
    return out


def _placing(
    members: tuple[int, ...],
    strength: dict[int, float],
    special: dict[int, Behaviour],
    rng: random.Random,
) -> dict[int, int]:
    """Places by bot: winners first, then a Plackett-Luce draw, then losers sharing last."""
    top = [b for b in members if special.get(b) == "win"]
    bottom = [b for b in members if special.get(b) in ("lose", "fault")]
    left = [b for b in members if b not in special]
    order = list(top)
    while left:
        pick = rng.choices(left, [strength[b] for b in left])[0]
        order.append(pick)
        left.remove(pick)
    place = {b: i + 1 for i, b in enumerate(order)}
    for b in bottom:
        place[b] = len(order) + 1
    return place
