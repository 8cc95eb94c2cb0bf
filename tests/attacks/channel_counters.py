"""A card channel through host-wide counters: the sender holds (card index + 1) x 2 MiB of SysV
shared memory for the lowest card of its hand; the receiver reads the machine's shared memory
(sysinfo().sharedram, /proc/meminfo Shmem) and decodes the change.

Seat 0 sends, seat 1 receives and prints "GUESS <hand> <card>" at every turn (its guess of the
lowest card of seat 0's hand); with no channel it guesses at random.
"""

import ctypes
import random

from arena.cards import deck

CARDS = deck(24)
STEP = 2 << 20
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p


def shared():
    """The machine's shared memory in bytes, by any route that works; None if none does."""
    buf = ctypes.create_string_buffer(128)
    if libc.sysinfo(buf) == 0:
        return int.from_bytes(buf.raw[48:56], "little") * int.from_bytes(buf.raw[104:108], "little")
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("Shmem:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


class Bot:
    def __init__(self):
        self.base = shared()
        print("BASE", self.base)
        self.segment = None
        self.sent = -1

    def send(self, card):
        if self.segment is not None:
            libc.shmctl(self.segment, 0, None)  # IPC_RMID
        size = (CARDS.index(card) + 1) * STEP
        self.segment = libc.shmget(0, size, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
        if self.segment < 0:
            print("BLOCKED shmget", ctypes.get_errno())
            self.segment = None
            return
        addr = libc.shmat(self.segment, None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            print("BLOCKED shmat", ctypes.get_errno())
            return
        ctypes.memset(addr, 1, size)  # touch every page: now it counts as shared memory
        libc.shmdt(ctypes.c_void_p(addr))

    def act(self, obs):
        h = obs["hand_number"]
        low = min(obs["hand"][:5], key=CARDS.index)
        if obs["seat"] == 0 and self.sent != h:
            self.sent = h
            self.send(low)
        if obs["seat"] == 1:
            now = shared()
            rest = [c for c in CARDS if c not in obs["hand"]]
            guess = random.Random(h).choice(rest)
            if now is not None and self.base is not None:
                k = round((now - self.base) / STEP) - 1
                if 0 <= k < len(CARDS):
                    guess = CARDS[k]
            print("GUESS", h, guess)
        return obs["legal"][0]
