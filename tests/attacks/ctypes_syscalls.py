"""Raw system calls through ctypes (no audit hook sees these): socket, connect, open, io_uring."""

import ctypes
import struct

TCP_PORT = int("@@TCP_PORT@@")

SYS_SOCKET, SYS_CONNECT, SYS_OPENAT, SYS_IO_URING_SETUP, SYS_FORK = 41, 42, 257, 425, 57


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.syscall(SYS_SOCKET, 2, 1, 0)
            print("ESCAPED socket" if fd >= 0 else "BLOCKED socket", ctypes.get_errno())
            if fd >= 0:
                addr = struct.pack(
                    "<HH4s8x", 2, TCP_PORT >> 8 | (TCP_PORT & 255) << 8, bytes([127, 0, 0, 1])
                )
                rc = libc.syscall(SYS_CONNECT, fd, addr, len(addr))
                print("ESCAPED connect" if rc == 0 else "BLOCKED connect", ctypes.get_errno())
            for path in (b"/etc/passwd", b"@@DB@@"):
                rc = libc.syscall(SYS_OPENAT, -100, path, 0)
                print("ESCAPED open" if rc >= 0 else "BLOCKED open", path, ctypes.get_errno())
                rc = libc.syscall(SYS_OPENAT, -100, b"/tmp/arena-pwned-raw", 0o101, 0o644)
                print("ESCAPED create" if rc >= 0 else "BLOCKED create", ctypes.get_errno())
            params = ctypes.create_string_buffer(120)
            rc = libc.syscall(SYS_IO_URING_SETUP, 8, params)
            print("ESCAPED io_uring" if rc >= 0 else "BLOCKED io_uring", ctypes.get_errno())
            rc = libc.syscall(SYS_FORK)
            if rc == 0:
                libc.syscall(60, 0)  # the child: exit at once
            print("ESCAPED fork" if rc > 0 else "BLOCKED fork", ctypes.get_errno())
        return obs["legal"][0]
