"""Steals CPU from the other bots: speaks the protocol itself from its constructor (reads the
requests on fd 3, answers at once on fd 4, so the host's loop never runs) and burns CPU until
the next request comes, i.e. while the others think.

It answers every request with the first legal action and prints nothing: all it wants is the
others' time. Under the old arena it was never stopped and the decision limit was wall clock,
so an honest neighbour on the same CPU timed out.
"""

import json
import os
import select

REQ, RESP = 3, 4


class Bot:
    def __init__(self):
        os.write(RESP, b'{"protocol": 1, "name": "thief"}\n')
        buf = b""
        while True:
            while b"\n" not in buf:
                while not select.select([REQ], [], [], 0)[0]:
                    for _ in range(20000):  # burn, looking up now and then for a request
                        pass
                chunk = os.read(REQ, 1 << 16)
                if not chunk:
                    os._exit(0)
                buf += chunk
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            answer = {"id": msg["id"], "action": msg["obs"]["legal"][0]}
            os.write(RESP, json.dumps(answer).encode() + b"\n")
