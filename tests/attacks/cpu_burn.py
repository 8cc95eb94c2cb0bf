"""Spins 0.25 s of CPU per decision: each decision is within its limit, the match budget is not."""

import time


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        end = time.process_time() + 0.25
        while time.process_time() < end:
            pass
        return obs["legal"][0]
