"""Steals CPU from the other bots: speaks the protocol itself from its constructor (reads the
requests on fd 3, answers at once on fd 4, so the host's loop never runs) and burns CPU until
the next request comes, i.e. while the others think.

It answers every request with the first legal action and prints nothing: all it wants is the
others' time. Under the old arena it was never stopped and the decision limit was wall clock,
so an honest neighbour on the same CPU timed out.
"""

import marshal
import os
import select

REQ, RESP = 3, 4


def read_exact(n):
    data = b""
    while len(data) < n:
        chunk = os.read(REQ, n - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data


class Bot:
    def __init__(self):
        os.write(RESP, b'{"ready": 1}\n')
        while True:
            while not select.select([REQ], [], [], 0)[0]:
                for _ in range(20000):  # burn, looking up now and then for a request
                    pass
            size = int.from_bytes(read_exact(4), "little")
            k, obs = marshal.loads(read_exact(size))
            os.write(
                RESP,
                b'{"i": %d, "a": %s}\n' % (k, repr(obs["legal"][0]).replace("'", '"').encode()),
            )
