"""Lists everything it was handed: every open descriptor (kind, status flags, inode) from the
inside, then waits a moment in its first decision so the test can read its mappings and
``fdinfo`` from the outside. A match must hold only what was made for it: its own standard
input, its own log (1, 2) and its own request and reply pipes (3, 4)."""

import fcntl
import os
import stat
import time


def descriptors():
    found = []
    for fd in range(1024):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        kind = "chr" if stat.S_ISCHR(st.st_mode) else "fifo" if stat.S_ISFIFO(st.st_mode) else "reg"
        if not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode) or stat.S_ISREG(st.st_mode)):
            kind = oct(stat.S_IFMT(st.st_mode))
        found.append((fd, kind, fcntl.fcntl(fd, fcntl.F_GETFL) & 0o3, st.st_ino))
    return found


class Bot:
    def __init__(self):
        print("FDS", descriptors())
        self.waited = False

    def act(self, obs):
        if not self.waited:
            self.waited = True
            time.sleep(float("@@WAIT@@"))
        return obs["legal"][0]
