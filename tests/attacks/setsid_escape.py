"""Double-forks a setsid() daemon that would outlive the match, then detaches itself."""

import os
import time


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            try:
                os.setsid()
                print("ESCAPED setsid")
            except OSError as e:
                print("BLOCKED setsid", e.errno)
            try:
                os.setpgid(0, 0)
                print("ESCAPED setpgid")
            except OSError as e:
                print("BLOCKED setpgid", e.errno)
            try:
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:
                        while True:
                            time.sleep(1)
                    os._exit(0)
                print("ESCAPED daemon")
            except OSError as e:
                print("BLOCKED fork", e.errno)
        return obs["legal"][0]
