"""Recurses without bound with the recursion limit lifted: a C stack overflow (crash)."""

import sys


def down(n):
    return down(n + 1) + 1


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        sys.setrecursionlimit(10**8)
        return repr(down(0))
