"""Uniform over the legal actions: the floor every bot should beat.

The arena seeds the ``random`` module per match and seat, so ``Bot()`` draws its own seed from
it and is reproducible there; pass ``seed`` to reproduce it in-process.
"""

import random


class Bot:
    name = "random"
    author = "Euchre Arena"

    def __init__(self, seed=None):
        self.rng = random.Random(random.getrandbits(64) if seed is None else seed)

    def act(self, obs):
        legal = obs["legal"]
        return legal[int(self.rng.random() * len(legal))]
