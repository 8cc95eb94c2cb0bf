"""Steals CPU between its moves: interval timers and alarm() with a spinning signal handler."""

import signal
import time


def handler(signum, frame):
    end = time.monotonic() + 0.05
    while time.monotonic() < end:
        pass


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            signal.signal(signal.SIGALRM, handler)
            signal.signal(signal.SIGPROF, handler)
            signal.signal(signal.SIGVTALRM, handler)
            for which in (signal.ITIMER_REAL, signal.ITIMER_PROF, signal.ITIMER_VIRTUAL):
                try:
                    signal.setitimer(which, 0.01, 0.01)
                    print("ESCAPED setitimer", which)
                except OSError as e:
                    print("BLOCKED setitimer", which, e.errno)
            try:
                signal.alarm(1)  # alarm() has no error return: look whether a timer runs
                if signal.getitimer(signal.ITIMER_REAL)[0] > 0:
                    print("ESCAPED alarm")
                else:
                    print("BLOCKED alarm")
            except OSError as e:
                print("BLOCKED alarm", e.errno)
        return obs["legal"][0]
