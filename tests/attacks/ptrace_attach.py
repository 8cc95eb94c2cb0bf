"""ptrace-attaches to its parent, the arena and pid 1; reads /proc/PID/mem; process_vm_readv."""

import ctypes
import os

ARENA_PID = int("@@ARENA_PID@@")
PTRACE_ATTACH, PTRACE_SEIZE = 16, 0x4206


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            libc = ctypes.CDLL(None, use_errno=True)
            for pid in (os.getppid(), ARENA_PID, 1):
                for req in (PTRACE_ATTACH, PTRACE_SEIZE):
                    rc = libc.ptrace(req, pid, 0, 0)
                    print(
                        "ESCAPED ptrace" if rc == 0 else "BLOCKED ptrace",
                        pid,
                        req,
                        ctypes.get_errno(),
                    )
                try:
                    with open(f"/proc/{pid}/mem", "rb") as f:
                        f.read(1)
                    print("ESCAPED mem", pid)
                except OSError as e:
                    print("BLOCKED mem", pid, e.errno)
            buf = ctypes.create_string_buffer(8)
            iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)
            rc = libc.process_vm_readv(ARENA_PID, iov, 1, iov, 1, 0)
            print("ESCAPED vm_readv" if rc >= 0 else "BLOCKED vm_readv", ctypes.get_errno())
        return obs["legal"][0]
