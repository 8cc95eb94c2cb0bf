"""Forks as often as it can (os.fork, multiprocessing); any child would spin forever."""

import os


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            for _ in range(50):
                try:
                    pid = os.fork()
                except OSError as e:
                    print("BLOCKED fork", e.errno)
                    break
                if pid == 0:
                    while True:
                        pass
                print("ESCAPED fork", pid)
            try:
                import multiprocessing

                p = multiprocessing.Process(target=print)
                p.start()
                print("ESCAPED multiprocessing")
            except Exception as e:
                print("BLOCKED multiprocessing", type(e).__name__)
        return obs["legal"][0]
