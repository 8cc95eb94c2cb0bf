"""Meets its other copies on a futex word of a file every sandbox maps (the interpreter).

A futex on a shared file mapping is keyed by inode and offset, machine-wide, so two sandboxes
with different uids and namespaces that both map the interpreter read-only and shared meet on
the same words: with the seatings of one deal in two workers at once, each copy could tell
the other its hand. This bot only tries to meet: for a while it wakes the word and waits on
it in turn; a wake that woke someone, or a wait ended by a wake, means another process was
there. ``ESCAPED`` then; ``BLOCKED`` when mapping or the shared futex is refused.

:func:`meet` is also run unsandboxed by the test, as the positive control.
"""

import ctypes
import errno
import os
import platform
import sys
import time

SYS_FUTEX = {"x86_64": 202, "aarch64": 98}.get(platform.machine(), 202)
FUTEX_WAIT, FUTEX_WAKE = 0, 1
PROT_READ, MAP_SHARED = 1, 1
OFFSET = 1024  # a word of the ELF header area: the same in every process that maps the file

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def meet(seconds):
    """Wake and wait on the shared word for ``seconds``: one line saying what happened."""
    try:
        fd = os.open(os.path.realpath(sys.executable), os.O_RDONLY)
    except OSError as e:
        return f"BLOCKED open {e.errno}"
    addr = libc.mmap(None, 4096, PROT_READ, MAP_SHARED, fd, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        return f"BLOCKED mmap shared {errno.errorcode.get(ctypes.get_errno(), '?')}"
    word = addr + OFFSET
    value = ctypes.c_uint32.from_address(word).value
    wait = Timespec(0, 3_000_000)
    woke = woken = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        n = libc.syscall(SYS_FUTEX, ctypes.c_void_p(word), FUTEX_WAKE, 1, None, None, 0)
        if n < 0:
            return f"BLOCKED futex wake {errno.errorcode.get(ctypes.get_errno(), '?')}"
        woke += n
        r = libc.syscall(
            SYS_FUTEX, ctypes.c_void_p(word), FUTEX_WAIT, value, ctypes.byref(wait), None, 0
        )
        if r == 0:
            woken += 1
        elif ctypes.get_errno() not in (errno.ETIMEDOUT, errno.EAGAIN, errno.EINTR):
            return f"BLOCKED futex wait {errno.errorcode.get(ctypes.get_errno(), '?')}"
    if woke or woken:
        return f"ESCAPED met another copy: woke {woke}, woken {woken}"
    return "ALONE the futex works but no other copy was there"


def shared_futex():
    """A shared (not FUTEX_PRIVATE_FLAG) futex call on a word of its own: allowed or not."""
    word = ctypes.c_uint32(0)
    n = libc.syscall(SYS_FUTEX, ctypes.byref(word), FUTEX_WAKE, 1, None, None, 0)
    if n < 0:
        return f"BLOCKED shared futex {errno.errorcode.get(ctypes.get_errno(), '?')}"
    return "ALLOWED shared futex"


class Bot:
    def __init__(self):
        print("RAN")
        print(meet(float("@@SECONDS@@")))
        print(shared_futex())

    def act(self, obs):
        return obs["legal"][0]
