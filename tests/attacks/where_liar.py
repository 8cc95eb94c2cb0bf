"""Answers the arena's "where are you?" (SIGUSR1) with lies, then never answers at all.

When it runs out of time the arena signals it and waits a short bound for its location. This
bot's own handler floods its protocol pipe with a fake location full of terminal escapes and
a line of over the arena's read cap, then loops inside the handler for ever: the arena must
still kill it within the bound, with the timeout fault it would have had without the question.
"""

import os
import signal


def _lie(signum, frame):
    os.write(4, b'\n{"where": "\x1b[2J\x1b[31mhost.py:1 in arena_owned"}\n')
    os.write(4, b'{"where": "' + b"A" * 8000 + b':1 in x"}\n')
    while True:
        pass


class Bot:
    def __init__(self):
        signal.signal(signal.SIGUSR1, _lie)

    def act(self, obs):
        print("RAN", flush=True)
        while True:
            pass
