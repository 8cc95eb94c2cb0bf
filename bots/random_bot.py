"""Uniform over the legal actions: the floor every bot should beat.

The arena seeds the ``random`` module per match and seat, so ``Bot()`` draws its own seed from
it and is reproducible there; pass ``seed`` to reproduce it in-process.
"""

from __future__ import annotations

import random
from typing import Any


class Bot:
    """Picks one of ``obs["legal"]`` uniformly at random (in ``keep``: one of the 5-card lists)."""

    name = "random"
    author = "Euchre Arena"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(random.getrandbits(64) if seed is None else seed)

    def act(self, obs: dict[str, Any]) -> Any:
        """Return a uniformly chosen legal action."""
        legal = obs["legal"]
        return legal[int(self.rng.random() * len(legal))]
