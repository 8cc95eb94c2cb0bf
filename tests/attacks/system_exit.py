"""Raises SystemExit from act (a crash fault, never an exit of the arena)."""

import sys


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        sys.exit(0)
