"""Floods stdout and stderr (print, sys.stdout, sys.__stderr__, os.write) with fake protocol."""

import os
import sys


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            line = '{"id": 0, "action": "order"}\n' * 4096
            for _ in range(200):
                print(line)
                sys.stdout.write(line)
                sys.__stderr__.write(line)
                for fd in (1, 2):
                    try:
                        os.write(fd, line.encode())
                    except OSError:
                        pass
            print("ESCAPED? flood done")
        return obs["legal"][0]
