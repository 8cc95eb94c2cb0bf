"""Hunts for identifiers (seed, tournament, round, opponents) everywhere a process can look.

Collects every string it can reach: environment, argv, its own path, cwd, uid/gid/pid, host
name, every directory it can list (and file names in them), /proc (cmdline, environ, status,
mountinfo of every pid it sees), every file descriptor, and every str/bytes object in its own
heap (what the zygote left in the memory it forked from). Each candidate is tried as the match
seed against the bot's own first hand (the deal algorithm is public); a hit would let it
predict every later hand. It prints "CANDIDATES <n>", "FOUND SEED <s>" on a hit and the
interesting strings it saw ("SAW ..."), which the tests check for the real seed and the
opponents' names.
"""

import gc
import hashlib
import os
import re
import sys

from arena.cards import deck, sort_cards

LOOK = re.compile(r"[0-9a-fA-F]{16,}|\d{1,12}|[A-Za-z][A-Za-z0-9_.+-]{2,40}")


def my_hand(seed, hand, seat):
    cards = deck(24)
    x = int.from_bytes(hashlib.sha512(f"arena/deal/{seed}/{hand}".encode()).digest(), "big")
    for i in range(len(cards) - 1, 0, -1):
        x, j = divmod(x, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return sort_cards(cards[5 * seat : 5 * seat + 5])


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
        for value in (
            obj.values()
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
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            words = set()
            for text in gather():
                words.update(LOOK.findall(str(text)[:100000]))
            print("CANDIDATES", len(words))
            hand = sorted(obs["hand"]) if obs["phase"] != "discard" else None
            for w in sorted(words):
                if hand is not None and sorted(my_hand(w, obs["hand_number"], obs["seat"])) == hand:
                    print("FOUND SEED", w)
            for w in sorted(words):
                if len(w) >= 16 or w.isdigit() and len(w) >= 4:
                    print("SAW", w)
        return obs["legal"][0]
