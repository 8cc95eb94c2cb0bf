"""Hunts the other bots: every pid it can see in /proc or guess nearby gets SIGKILL/SIGSTOP."""

import os
import signal


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            me = os.getpid()
            try:
                seen = [int(p) for p in os.listdir("/proc") if p.isdigit()]
            except OSError:
                seen = []
            for pid in sorted(set(seen) | set(range(max(2, me - 64), me + 64))):
                if pid == me:
                    continue
                for sig in (signal.SIGSTOP, signal.SIGKILL):
                    try:
                        os.kill(pid, sig)
                        print("ESCAPED kill", pid, sig)
                    except OSError:
                        pass
            print("BLOCKED all kills")
        return obs["legal"][0]
