"""Answers on its protocol pipe itself, with an id that is not the request's (a protocol
fault: an answer is taken only for the request it names)."""

import json
import os


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        os.write(4, json.dumps({"id": 12345, "action": obs["legal"][0]}).encode() + b"\n")
        return obs["legal"][0]
