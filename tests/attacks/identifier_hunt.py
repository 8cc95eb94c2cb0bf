"""Hunts for identifiers (seed, tournament, round, opponents) everywhere a process can look.

Collects every string it can reach: environment, argv, its own path, cwd, uid/gid/pid, host
name, every directory it can list (and file names in them), /proc (cmdline, environ, status,
mountinfo of every pid it sees), every file descriptor, and every str/bytes object in its own
heap (what the zygote left in the memory it forked from). Each candidate is tried as the match
seed against the bot's own hand and the up-card (the deal algorithm is public); a hit would
let it predict every later hand. One hand is not proof: with ~2,000 candidates and 42,504
possible hands, some string deals the same hand a few times in a hundred runs (and with the
up-card about one in 500), so a candidate must deal the right cards in two hands before it
prints "FOUND SEED <s>". It also prints "CANDIDATES <n>" and the interesting strings it saw
("SAW ..."), which the tests check for the real seed and the opponents' names.
"""

import gc
import hashlib
import os
import re
import sys

from arena.cards import deck, sort_cards

LOOK = re.compile(r"[0-9a-fA-F]{16,}|\d{1,12}|[A-Za-z][A-Za-z0-9_.+-]{2,40}")


def my_cards(seed, hand, seat):
    """The seat's hand and the up-card that ``seed`` deals in hand number ``hand``."""
    cards = deck(24)
    x = int.from_bytes(hashlib.sha512(f"arena/deal/{seed}/{hand}".encode()).digest(), "big")
    for i in range(len(cards) - 1, 0, -1):
        x, j = divmod(x, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return sort_cards(cards[5 * seat : 5 * seat + 5]), cards[20]


def read(path, limit=1 << 16):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def gather():
    found = []
    found += [f"{k}={v}" for k, v in os.environ.items()]
    found += sys.argv + list(getattr(sys, "orig_argv", []))
    found += [__file__, os.getcwd(), os.uname().nodename]
    found += [str(x) for x in (os.getuid(), os.getgid(), os.getpid(), os.getppid())]
    for top in ("/", "/tmp", "/bot", "/arena", "/usr", "/dev", "/dev/shm", "/run", "/var"):
        try:
            for root, dirs, files in os.walk(top):
                found += [os.path.join(root, n) for n in dirs + files]
                if len(found) > 20000:
                    break
        except OSError:
            pass
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pids = []
    for pid in pids + ["self"]:
        for name in ("cmdline", "environ", "status", "mountinfo"):
            found.append(read(f"/proc/{pid}/{name}"))
    for fd in range(64):
        try:
            found.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    for obj in gc.get_objects():
        if obj is found:
            continue
        # A copy taken in one step: in the positive control (in-process, in a test worker)
        # another thread (pytest-xdist's) may change a dict while the hunt walks it.
        for value in (
            list(obj.values())
            if isinstance(obj, dict)
            else obj
            if isinstance(obj, (list, tuple))
            else [obj]
        ):
            if isinstance(value, str):
                found.append(value)
            elif isinstance(value, (bytes, bytearray)):
                found.append(bytes(value[:4096]).decode("utf-8", "replace"))
    return found


class Bot:
    def __init__(self):
        self.candidates = None
        self.hands_checked = set()

    def act(self, obs):
        if self.candidates is None:
            print("RAN")
            words = set()
            for text in gather():
                words.update(LOOK.findall(str(text)[:100000]))
            print("CANDIDATES", len(words))
            for w in sorted(words):
                if len(w) >= 16 or w.isdigit() and len(w) >= 4:
                    print("SAW", w)
            self.candidates = sorted(words)
        number = obs["hand_number"]
        # Before the dealer picks up, a hand is what was dealt.
        if obs["phase"] in ("bid1", "bid2") and number not in self.hands_checked:
            self.hands_checked.add(number)
            dealt = (sort_cards(obs["hand"]), obs["upcard"])
            self.candidates = [
                w for w in self.candidates if my_cards(w, number, obs["seat"]) == dealt
            ]
            if len(self.hands_checked) >= 2:
                for w in self.candidates:
                    print("FOUND SEED", w)
        return obs["legal"][0]
