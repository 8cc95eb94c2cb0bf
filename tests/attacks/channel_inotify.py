"""A card channel through inotify: the sender opens one file every sandbox sees per card of its
hand, the receiver watches the directory and decodes the names it sees opened.

Both roles in one file: seat 0 sends, seat 1 receives and prints "GUESS <hand> <cards>" (its
guess of seat 0's hand) at every turn; with no channel it guesses at random.
"""

import ctypes
import os
import random
import struct

from arena.cards import deck


def _fullest_directory():
    """The directory with the most files this bot can see (the standard library's, or the
    shared libraries' where the standard library is one zip), and its files."""
    best = ("", [])
    for root, _dirs, files in os.walk("/usr"):
        names = sorted(f for f in files if os.path.isfile(os.path.join(root, f)))
        if len(names) > len(best[1]):
            best = (root, names)
    return best


DIR, FILES = _fullest_directory()
NAMES = FILES[:24]
CARDS = deck(24)
libc = ctypes.CDLL(None, use_errno=True)


class Bot:
    def __init__(self):
        self.fd = libc.inotify_init1(os.O_NONBLOCK)
        if self.fd < 0:
            print("BLOCKED inotify_init1", ctypes.get_errno())
        elif libc.inotify_add_watch(self.fd, DIR.encode(), 0x20) < 0:  # IN_OPEN
            print("BLOCKED inotify_add_watch", ctypes.get_errno())
        self.sent = set()
        self.seen = []
        self.hand = None

    def receive(self):
        if self.fd < 0:
            return
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            return
        while data:
            _wd, _mask, _cookie, size = struct.unpack("iIII", data[:16])
            name = data[16 : 16 + size].rstrip(b"\0").decode()
            data = data[16 + size :]
            if name in NAMES:
                self.seen.append(CARDS[NAMES.index(name)])

    def act(self, obs):
        h = obs["hand_number"]
        if obs["seat"] == 0 and h not in self.sent:
            self.sent.add(h)
            for card in obs["hand"][:5]:
                open(os.path.join(DIR, NAMES[CARDS.index(card)]), "rb").close()
        if obs["seat"] == 1:
            if self.hand != h:
                self.hand, self.seen = h, []
            self.receive()
            guess = [c for c in dict.fromkeys(self.seen) if c not in obs["hand"]][-5:]
            rest = [c for c in CARDS if c not in obs["hand"] and c not in guess]
            guess += random.Random(h).sample(rest, 5 - len(guess))
            print("GUESS", h, " ".join(sorted(guess)))
        return obs["legal"][0]
