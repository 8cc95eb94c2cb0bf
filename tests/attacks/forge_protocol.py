"""Writes forged protocol lines on every descriptor it has, then answers (a protocol fault)."""

import json
import os


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        forged = json.dumps({"id": 999, "action": obs["legal"][-1], "protocol": 1}).encode() + b"\n"
        for fd in range(64):
            try:
                os.write(fd, forged)
            except OSError:
                pass
        return obs["legal"][0]
