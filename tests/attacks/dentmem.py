"""Memory through the kernel's name cache (issue 33): a bot remembers its hands from one match
to the next by looking up made-up names, and reads them back by timing the same lookups.

A lookup of a name that does not exist leaves a *negative dentry* in the directory's cache
where the file system keeps one (a disk file system does; tmpfs does not): the next lookup of
that name is about three times faster. The six seatings of a set are the same deal played back
to back, so a hand this bot held in an earlier seating is another seat's hand now.

* A round counter: names ``R0``, ``R1``... looked up in order; the first one not cached yet is
  this match's round (looking it up marks it for the next match).
* Sending: for each hand, each card of its hand and each later round, one name derived from
  (salt, set key, round, seat, later round, hand, card), looked up with every path-taking call
  the allowlist permits (stat, open, access, readlink; getdents lists every directory) in
  every directory it can see.
* Receiving: in round ``r`` it times a ``stat`` of the names (r', seat, r, hand, card) for every
  earlier round r' and both other seats, in every directory; a card whose names are fast
  (relative to fresh names drawn from ``os.urandom``) was held by that seat.
* The same without rounds: names (set key, seat, hand, card), timed for the next seat before
  sending (its own probes spoil them for its later seatings, so this one serves the test, which
  wants every match to time names that others sent).

It prints ``ROUND <r>``, ``DIRS <n>`` and, per hand, ``GUESS <hand> <seat> <5 cards>`` for the
other seat it has the clearest signal about (at random when it has none) and
``PLAIN <hand> <seat> <5 cards>``. ``@@SALT@@`` is replaced by the test with a fresh value, so
names of an earlier run never count.
"""

import hashlib
import os
import random
import statistics
import sys
import time

from arena.cards import deck

SALT = "@@SALT@@"
CARDS = deck(24)
ROUNDS = 6
MAX_DIRS = 160


def directories():
    """Every directory this process can see (breadth first, at most MAX_DIRS)."""
    roots = ["/", "/dev", "/usr", os.path.dirname(os.path.abspath(__file__)), *sys.path]
    out, todo = [], [r for r in roots if r and os.path.isdir(r)]
    while todo and len(out) < MAX_DIRS:
        d = os.path.normpath(todo.pop(0))
        if d in out:
            continue
        out.append(d)
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            p = os.path.join(d, n)
            if n not in ("proc", "sys") and os.path.isdir(p) and not os.path.islink(p):
                todo.append(p)
    return out


def name(*parts):
    return "n" + hashlib.sha256(repr((SALT, *parts)).encode()).hexdigest()[:20]


def timed_stat(path):
    t = time.perf_counter_ns()
    try:
        os.stat(path)
    except OSError:
        pass
    return time.perf_counter_ns() - t


def touch(path):
    """Look ``path`` up with every path-taking call a bot may make."""
    for call in (os.stat, os.lstat, os.readlink, lambda p: os.access(p, os.R_OK)):
        try:
            call(path)
        except OSError:
            pass
    try:
        os.close(os.open(path, os.O_RDONLY))
    except OSError:
        pass


class Bot:
    def __init__(self):
        self.dirs = directories()
        print("DIRS", len(self.dirs))
        self.round = None
        self.done = set()

    def ratios(self, names):
        """Per name: the median over directories of its first lookup's time divided by the
        median time of fresh random names in that directory (below 1: cached somewhere)."""
        per = {n: [] for n in names}
        for d in self.dirs:
            fresh = [timed_stat(os.path.join(d, os.urandom(10).hex())) for _ in range(5)]
            base = statistics.median(fresh) or 1
            for n in names:
                per[n].append(timed_stat(os.path.join(d, n)) / base)
        return {n: statistics.median(v) for n, v in per.items()}

    def find_round(self, key):
        for r in range(ROUNDS):
            if self.ratios([name("R", key, r)])[name("R", key, r)] > 0.6:
                return r
        return ROUNDS - 1

    def act(self, obs):
        h, seat, hand = obs["hand_number"], obs["seat"], obs["hand"]
        if self.round is None:
            self.key = obs["upcard"]  # the set's first upcard: the same in all six seatings
            self.round = self.find_round(self.key)
            print("ROUND", self.round)
            for d in self.dirs:  # this match's mark, with every call
                touch(os.path.join(d, name("R", self.key, self.round)))
        if h not in self.done:
            self.done.add(h)
            self.plain(h, seat, hand, obs["upcard"])
            self.receive(h, seat, hand, obs["upcard"])
            self.send(h, seat, hand[:5], obs["upcard"])
        return obs["legal"][0]

    def plain(self, h, seat, hand, up):
        """The same without rounds: time the names (seat, hand, card) that any earlier or
        concurrent match sent (whose own probes spoil them for later ones)."""
        rest = [c for c in CARDS if c not in hand]
        other = (seat + 1) % 3
        names = {c: name(self.key, up, "plain", other, h, c) for c in rest}
        got = self.ratios(list(names.values()))
        ranked = sorted(rest, key=lambda c: got[names[c]])
        print("PLAIN", h, other, " ".join(ranked[:5]))

    def send(self, h, seat, cards, up):
        for d in self.dirs:
            for c in cards:
                touch(os.path.join(d, name(self.key, up, "plain", seat, h, c)))
            try:
                os.listdir(d)
            except OSError:
                pass
            for later in range(self.round + 1, ROUNDS):
                for c in cards:
                    touch(os.path.join(d, name(self.key, up, self.round, seat, later, h, c)))

    def receive(self, h, seat, hand, up):
        rest = [c for c in CARDS if c not in hand]
        random.shuffle(rest)
        best = None
        for other in ((seat + 1) % 3, (seat + 2) % 3):
            score = {c: 9.0 for c in rest}
            for before in range(self.round):
                names = {c: name(self.key, up, before, other, self.round, h, c) for c in rest}
                got = self.ratios(list(names.values()))
                for c in rest:
                    score[c] = min(score[c], got[names[c]])
            ranked = sorted(rest, key=lambda c: score[c])
            gap = statistics.median(score[c] for c in ranked[5:]) - max(
                score[c] for c in ranked[:5]
            )
            if best is None or gap > best[0]:
                best = (gap, other, ranked[:5])
        print("GUESS", h, best[1], " ".join(best[2]))
