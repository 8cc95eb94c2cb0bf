"""Kernel memory outside every limit (issue 33): a bot looks up hundreds of thousands of fresh
names in every directory it can see. In a disk directory each miss leaves a negative dentry
(about 200 bytes of kernel slab) that outlives the match and counts against no limit of the
bot's. It prints "DIRS <n>" and "LOOKED <n>"; ``@@SECONDS@@`` is its CPU time for the flood.
"""

import os
import sys
import time

SECONDS = float("@@SECONDS@@")


def directories():
    roots = ["/", "/dev", "/usr", os.path.dirname(os.path.abspath(__file__)), *sys.path]
    out, todo = [], [r for r in roots if r and os.path.isdir(r)]
    while todo and len(out) < 200:
        d = os.path.normpath(todo.pop(0))
        if d in out:
            continue
        out.append(d)
        try:
            todo += [os.path.join(d, n) for n in sorted(os.listdir(d))]
        except OSError:
            pass
        todo = [p for p in todo if os.path.isdir(p) and not os.path.islink(p)]
    return out


class Bot:
    def __init__(self):
        dirs = directories()
        print("DIRS", len(dirs))
        looked, end = 0, time.process_time() + SECONDS
        while time.process_time() < end:
            prefix = os.urandom(8).hex()
            for d in dirs:
                for i in range(50):
                    try:
                        os.stat(f"{d}/{prefix}{i}")
                    except OSError:
                        pass
                looked += 50
        print("LOOKED", looked)

    def act(self, obs):
        return obs["legal"][0]
