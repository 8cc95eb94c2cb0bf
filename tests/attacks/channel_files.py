"""A card channel through the state of shared files: for each card of its hand the sender
locks a file every sandbox sees (a shared library, or a standard-library module where the
standard library is a directory; flock and a POSIX record lock), reads it (its access time)
and drops it from the page cache (fadvise); the receiver tests the locks, the access times and
which pages are resident (mincore) for the 24 files and decodes the cards.

Seat 0 sends, seat 1 receives and prints "GUESS <hand> <cards>"; with no channel it guesses at
random. It also prints which sub-channels were "BLOCKED".
"""

import ctypes
import errno
import fcntl
import mmap
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
NAMES = FILES[-24:]
PATHS = [os.path.join(DIR, n) for n in NAMES]
CARDS = deck(24)
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]


def blocked(what, e):
    print("BLOCKED", what, e)


def resident(path):
    """Whether the first page of ``path`` is in the page cache (mincore); None if unknown."""
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr is None or addr == ctypes.c_void_p(-1).value:
            return None
        vec = ctypes.create_string_buffer(1)
        rc = libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(4096), vec)
        err = ctypes.get_errno()
        libc.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(4096))
        if rc != 0:
            blocked("mincore", err)
            return None
        return bool(vec.raw[0] & 1)
    finally:
        os.close(fd)


class Bot:
    def __init__(self):
        self.atimes = [os.stat(p).st_atime_ns for p in PATHS]
        self.held = []
        self.sent = -1
        self.hand = -1

    def send(self, hand):
        for f in self.held:
            f.close()
        self.held = []
        for card in hand:
            f = open(PATHS[CARDS.index(card)], "rb")
            self.held.append(f)
            try:
                fcntl.flock(f, fcntl.LOCK_SH)
            except OSError as e:
                blocked("flock", e.errno)
            try:
                fcntl.lockf(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError as e:
                blocked("lockf", e.errno)
            f.read()
            try:
                os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
            except OSError as e:
                blocked("fadvise", e.errno)

    def receive(self):
        got = set()
        for i, path in enumerate(PATHS):
            with open(path, "rb") as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as e:
                    if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                        got.add(i)
                try:
                    lock = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
                    if (
                        struct.unpack("hhqqi", fcntl.fcntl(f, fcntl.F_GETLK, lock))[0]
                        != fcntl.F_UNLCK
                    ):
                        got.add(i)
                except OSError:
                    pass
            if os.stat(path).st_atime_ns != self.atimes[i]:
                got.add(i)
            if resident(path) is False:
                got.add(i)
        return [CARDS[i] for i in sorted(got)]

    def act(self, obs):
        h = obs["hand_number"]
        if obs["seat"] == 0 and self.sent != h:
            self.sent = h
            self.send(obs["hand"][:5])
        if obs["seat"] == 1:
            if self.hand != h:  # access times from now on belong to this hand
                self.hand = h
                self.atimes = [os.stat(p).st_atime_ns for p in PATHS]
            guess = [c for c in self.receive() if c not in obs["hand"]][:5]
            rest = [c for c in CARDS if c not in obs["hand"] and c not in guess]
            guess += random.Random(h).sample(rest, 5 - len(guess))
            print("GUESS", h, " ".join(sorted(guess)))
        return obs["legal"][0]
