"""Signals the arena (its pid is known to it), its parent, its process group and pid 1."""

import os
import signal

ARENA_PID = int("@@ARENA_PID@@")


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            for pid in (ARENA_PID, os.getppid(), 1):
                for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM):
                    try:
                        os.kill(pid, sig)
                        print("ESCAPED kill", pid, sig)
                    except OSError as e:
                        print("BLOCKED kill", pid, sig, e.errno)
            for pgid in (ARENA_PID, 0):
                if pgid == 0:
                    continue  # its own group: nothing to prove
                try:
                    os.killpg(pgid, signal.SIGKILL)
                    print("ESCAPED killpg", pgid)
                except OSError as e:
                    print("BLOCKED killpg", pgid, e.errno)
        return obs["legal"][0]
