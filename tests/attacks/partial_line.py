"""Answers once, then writes half a protocol line and goes silent (a timeout fault)."""

import os
import time


class Bot:
    def __init__(self):
        self.n = 0

    def act(self, obs):
        print("RAN", flush=True)
        self.n += 1
        if self.n == 1:
            return obs["legal"][0]
        os.write(4, b"x" * 100)  # half a line, then silence: the arena must not wait forever
        time.sleep(3600)
