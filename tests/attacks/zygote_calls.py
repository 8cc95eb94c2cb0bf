"""Makes, from the bot, every system call its zygote may make but a bot may not (the zygote's
allowlist: forking into a new pid namespace, the control socket's messages, a new session,
prctl, installing a filter, a Landlock domain, capabilities, dup2, close_range, setting a
limit): a match process keeps its zygote's filter and adds its own, so each must still fail.
Also reads its CPU affinity (which worker it is on, when workers are pinned).

Prints "ESCAPED <call>" for each call that does not fail with EPERM (x86_64 numbers).
"""

import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
buf = ctypes.create_string_buffer(256)
limit = (ctypes.c_uint64 * 2)(1 << 20, 1 << 20)
CALLS = {  # name: (number, arguments), harmless if they ran
    "clone newpid": (56, (0x20000000 | 17, 0, 0, 0, 0)),
    "clone fork": (56, (17, 0, 0, 0, 0)),
    "recvmsg": (47, (3, ctypes.addressof(buf), 0x40)),
    "recvfrom": (45, (3, ctypes.addressof(buf), 1, 0x40, 0, 0)),
    "sendmsg": (46, (4, ctypes.addressof(buf), 0)),
    "wait4": (61, (-1, 0, 1, 0)),
    "set_robust_list": (273, (0, 24)),
    "setsid": (112, ()),
    "prctl pdeathsig": (157, (1, 0, 0, 0, 0)),
    "seccomp": (317, (2, 0, ctypes.addressof(buf))),
    "landlock_restrict_self": (446, (-1, 0)),
    "capset": (126, (ctypes.addressof(buf), ctypes.addressof(buf))),
    "dup2": (33, (0, 9)),
    "close_range": (436, (100, 200, 0)),
    "prlimit64 set": (302, (0, 1, ctypes.addressof(limit), 0)),
    "sched_getaffinity": (204, (0, 128, ctypes.addressof(buf))),
}


class Bot:
    def __init__(self):
        print("RAN")
        for name, (number, args) in CALLS.items():
            rc = libc.syscall(number, *(ctypes.c_long(a) for a in args))
            if rc == 0 and name.startswith("clone"):
                os._exit(0)  # the child of a clone that worked
            err = ctypes.get_errno()
            if rc != -1 or err != 1:
                print("ESCAPED", name, rc, os.strerror(err))
            else:
                print("BLOCKED", name)

    def act(self, obs):
        return obs["legal"][0]
