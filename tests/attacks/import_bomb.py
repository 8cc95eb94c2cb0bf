"""Grows memory without bound at import time (a load fault)."""

hoard = []
while True:
    hoard.append(bytearray(64 << 20))


class Bot:
    def act(self, obs):
        return obs["legal"][0]
