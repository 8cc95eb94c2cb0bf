"""Starts a background thread that would spin while the other bots think."""

import threading


def spin():
    while True:
        pass


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            try:
                threading.Thread(target=spin, daemon=True).start()
                print("ESCAPED thread")
            except RuntimeError as e:
                print("BLOCKED thread", e)
            try:
                import _thread

                _thread.start_new_thread(spin, ())
                print("ESCAPED _thread")
            except RuntimeError as e:
                print("BLOCKED _thread", e)
        return obs["legal"][0]
