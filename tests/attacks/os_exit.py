"""Calls os._exit in act: the process disappears without a word (a crash fault)."""

import os


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        os._exit(3)
