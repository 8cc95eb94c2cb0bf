"""Sleeps just under the per-decision wall backstop (5 s: 5 x the 1 s decision limit) at every
decision it is asked: no CPU, so no CPU limit ever ends it, and no single decision times out.
Before the match clock it was never faulted and held its worker about 4.6 s a decision (minutes
a match); the match clock ends it once its bank and increments are spent, charging its
opponents nothing. It prints "RAN" before each sleep and "WOKE" after: a turn the clock cut
short never wakes.
"""

import time

SECONDS = 4.6


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        time.sleep(SECONDS)
        print("WOKE", flush=True)
        return obs["legal"][0]
