"""Closes its own protocol pipes and stops reading: a protocol fault, nobody else affected."""

import os


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        for fd in range(3, 64):
            try:
                os.close(fd)
            except OSError:
                pass
        return obs["legal"][0]
