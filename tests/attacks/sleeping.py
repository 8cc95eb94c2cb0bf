"""Sleeps far past the decision limit (a timeout fault, charged without using CPU)."""

import time


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        time.sleep(3600)
        return obs["legal"][0]
