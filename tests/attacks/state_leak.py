"""Tries to leave state for its next match: module globals of arena.cards, builtins, random."""

import builtins
import random

import arena.cards as cards


class Bot:
    def __init__(self):
        seen = [
            getattr(cards, "LEAKED", None),
            getattr(builtins, "LEAKED", None),
            getattr(Bot, "leaked", None),
        ]
        print("SEEN", seen, "FIRST", random.random())
        cards.LEAKED = builtins.LEAKED = Bot.leaked = "leak"
        random.seed(0)

    def act(self, obs):
        return obs["legal"][0]
