"""Writes a forged 1 MiB load line, full of terminal escapes, on its reply pipe at import time:
the stored fault message must come out short and clean."""

import json
import os

os.write(
    4,
    (
        json.dumps(
            {"error": "load", "message": "\x1b]0;pwned\x07\x1b[2J" + "A" * ((1 << 20) - 100)}
        )
        + "\n"
    ).encode(),
)


class Bot:
    def act(self, obs):
        return obs["legal"][0]
