"""Holds memory outside RLIMIT_AS: SysV shared memory segments (detached, they stay counted
nowhere but the machine), POSIX message queues, pipes stretched to their maximum size.

Prints "ESCAPED <what> <MiB>" for every MiB it manages to hold beyond its address space.
"""

import ctypes
import fcntl
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
CHUNK = 256 << 20


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            held = 0
            for _ in range(12):  # 3 GiB, far over a 512 MiB address-space limit
                shm = libc.shmget(0, CHUNK, 0o1000 | 0o600)
                if shm < 0:
                    print("BLOCKED shmget", ctypes.get_errno())
                    break
                addr = libc.shmat(shm, None, 0)
                if addr in (None, ctypes.c_void_p(-1).value):
                    print("BLOCKED shmat", ctypes.get_errno())
                    break
                ctypes.memset(addr, 1, CHUNK)
                libc.shmdt(ctypes.c_void_p(addr))
                held += CHUNK >> 20
            if held:
                print("ESCAPED shm", held)
            if libc.mq_open(b"/arena-hoard", 0o100 | 0o2, 0o600, None) >= 0:
                print("ESCAPED mq_open")
            else:
                print("BLOCKED mq_open", ctypes.get_errno())
            pipes = 0
            try:
                while True:
                    r, w = os.pipe()
                    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 1 << 20)
                    os.set_blocking(w, False)
                    try:
                        while True:
                            os.write(w, b"x" * 65536)
                    except BlockingIOError:
                        pass
                    pipes += 1
            except OSError as e:
                print("PIPES", pipes, "stopped by", e.errno)
            if pipes > 8:
                print("ESCAPED pipes", pipes)
        return obs["legal"][0]
