"""Tries to leave a mark for a later match, or for a copy running beside it, in every piece of
state a process can set: status flags, owner and signal of its descriptions (``fcntl``
F_SETFL, F_SETOWN_EX, F_SETSIG: the old host gave every match a copy of one ``/dev/null``
description), pipe sizes, file offsets, umask, working directory, rlimits, timer slack,
personality, priority, scheduling, signal dispositions; and what it cannot set but could count
with: its pid and its parent's (a zygote's children would otherwise be numbered in the order
they were forked), its capabilities, its CPU affinity (a pinned worker's CPU).

At load it prints ``SEEN`` and everything it can read of that state; in its first decision it
sets all of it to values taken from its cards (what a cheater would pass on) and prints
``SET``. The test plays it in consecutive matches of one zygote and in two workers at once:
every ``SEEN`` line must be the same, whatever ran before or beside it (a match starts from the
same state).
"""

import ctypes
import fcntl
import os
import resource
import signal

libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.restype = ctypes.c_int
libc.personality.restype = ctypes.c_int
F_SETSIG, F_GETSIG, F_SETOWN_EX, F_GETOWN_EX = 10, 11, 15, 16
F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032
PR_SET_TIMERSLACK, PR_GET_TIMERSLACK = 29, 30


def attempt(f, *args):
    """What ``f(*args)`` gave, or the error number it failed with."""
    try:
        return f(*args)
    except OSError as e:
        return f"E{e.errno}"
    except BaseException as e:
        return type(e).__name__


def c_call(f, *args):
    r = f(*args)
    return f"E{ctypes.get_errno()}" if r == -1 else r


def read_state():
    seen = {}
    for fd in range(5):
        seen[f"fl{fd}"] = attempt(fcntl.fcntl, fd, fcntl.F_GETFL)
        seen[f"own{fd}"] = attempt(fcntl.fcntl, fd, fcntl.F_GETOWN)
        seen[f"sig{fd}"] = attempt(fcntl.fcntl, fd, F_GETSIG)
        seen[f"ownex{fd}"] = attempt(lambda fd=fd: fcntl.fcntl(fd, F_GETOWN_EX, bytes(8)).hex())
    for fd in (3, 4):
        seen[f"pipesz{fd}"] = attempt(fcntl.fcntl, fd, F_GETPIPE_SZ)
    seen["pos0"] = attempt(os.lseek, 0, 0, os.SEEK_CUR)
    seen["umask"] = attempt(os.umask, 0o022)
    seen["cwd"] = attempt(os.getcwd)
    for name in ("RLIMIT_NOFILE", "RLIMIT_AS", "RLIMIT_STACK", "RLIMIT_CORE", "RLIMIT_FSIZE"):
        seen[name] = attempt(resource.getrlimit, getattr(resource, name))
    seen["slack"] = c_call(libc.prctl, PR_GET_TIMERSLACK, 0, 0, 0, 0)
    seen["personality"] = c_call(libc.personality, ctypes.c_ulong(0xFFFFFFFF))
    seen["nice"] = attempt(os.getpriority, os.PRIO_PROCESS, 0)
    seen["sched"] = attempt(os.sched_getscheduler, 0)
    # The handler by name, not by address: each zygote (one per worker) loads the host's
    # handler at its own address, which is no state a match left behind.
    handler = signal.getsignal(signal.SIGUSR1)
    seen["sigusr1"] = str(handler) if isinstance(handler, int) else handler.__qualname__
    seen["pid"] = os.getpid()
    seen["ppid"] = os.getppid()
    seen["pgid"] = attempt(os.getpgid, 0)
    seen["sid"] = attempt(os.getsid, 0)
    seen["affinity"] = attempt(lambda: sorted(os.sched_getaffinity(0)))
    seen["cpu_count"] = attempt(os.cpu_count)
    seen["proc_self"] = attempt(os.readlink, "/proc/self")
    try:
        with open("/proc/self/status") as f:
            seen["caps"] = [line.split()[1] for line in f if line.startswith("Cap")]
    except OSError as e:
        seen["caps"] = f"E{e.errno}"
    return seen


def set_state(secret):
    done = {}
    for fd in range(5):
        done[f"fl{fd}"] = attempt(fcntl.fcntl, fd, fcntl.F_SETFL, os.O_NONBLOCK | os.O_APPEND)
        done[f"own{fd}"] = attempt(fcntl.fcntl, fd, fcntl.F_SETOWN, 100 + secret)
        done[f"sig{fd}"] = attempt(fcntl.fcntl, fd, F_SETSIG, 1 + secret % 30)
        owner = (1).to_bytes(4, "little") + (200 + secret).to_bytes(4, "little")
        done[f"ownex{fd}"] = attempt(fcntl.fcntl, fd, F_SETOWN_EX, owner)
    for fd in (3, 4):
        done[f"pipesz{fd}"] = attempt(fcntl.fcntl, fd, F_SETPIPE_SZ, 4096 << (secret % 4))
    done["pos0"] = attempt(os.lseek, 0, secret, os.SEEK_SET)
    done["umask"] = attempt(os.umask, secret & 0o777)
    done["cwd"] = attempt(os.chdir, "/usr")
    done["nofile"] = attempt(resource.setrlimit, resource.RLIMIT_NOFILE, (8 + secret % 4,) * 2)
    done["slack"] = c_call(libc.prctl, PR_SET_TIMERSLACK, 1000 + secret, 0, 0, 0)
    done["personality"] = c_call(libc.personality, ctypes.c_ulong(0x0040000))
    done["nice"] = attempt(os.setpriority, os.PRIO_PROCESS, 0, 1 + secret % 19)
    done["sched"] = attempt(os.sched_setscheduler, 0, os.SCHED_BATCH, os.sched_param(0))
    done["sigusr1"] = attempt(signal.signal, signal.SIGUSR1, signal.SIG_IGN)
    return done


class Bot:
    def __init__(self):
        print("RAN")
        print("SEEN", sorted(read_state().items()))
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            cards = sorted(obs.get("hand") or [])
            secret = sum(ord(c) for c in "".join(cards)) % 97
            print("SET", secret, sorted(set_state(secret).items()))
        return obs["legal"][0]
