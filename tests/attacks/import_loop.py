"""Loops forever at import time (a load fault)."""

while True:
    pass


class Bot:
    def act(self, obs):
        return obs["legal"][0]
