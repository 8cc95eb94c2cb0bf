"""Writes a correct answer itself (the request's id read from the host's frame), then a second
line for the next request, a guess, before the host writes its own: two lines for one request
(a protocol fault)."""

import json
import os
import sys


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        n = sys._getframe(1).f_locals.get("n", 0)
        ours = {"id": n, "action": obs["legal"][0]}
        guess = {"id": n + 1, "action": obs["legal"][-1]}
        os.write(4, (json.dumps(ours) + "\n" + json.dumps(guess) + "\n").encode())
        return obs["legal"][0]
