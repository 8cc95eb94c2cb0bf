"""Moves itself onto other CPUs (sched_setaffinity) and plays with priorities and schedulers,
to take CPU from bots of other workers.

Prints "ESCAPED <what>" for each call that succeeds.
"""

import os


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            calls = [
                (
                    "sched_setaffinity",
                    lambda: os.sched_setaffinity(0, set(range(os.cpu_count() or 1))),
                ),
                ("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, 0, 5)),
                ("nice", lambda: os.nice(1)),
                (
                    "sched_setscheduler",
                    lambda: os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0)),
                ),
                ("sched_setparam", lambda: os.sched_setparam(0, os.sched_param(0))),
            ]
            for name, call in calls:
                try:
                    call()
                    print("ESCAPED", name)
                except OSError as e:
                    print("BLOCKED", name, e.errno)
        return obs["legal"][0]
