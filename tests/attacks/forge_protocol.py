"""Writes forged protocol lines on every descriptor it has, then answers (a protocol fault)."""

import json
import os


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        forged = json.dumps({"i": 999, "a": obs["legal"][-1], "ready": 1}).encode() + b"\n"
        for fd in range(64):
            try:
                os.write(fd, forged)
            except OSError:
                pass
        return obs["legal"][0]
