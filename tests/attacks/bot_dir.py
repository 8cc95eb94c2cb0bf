"""Goes after its own files' tmpfs (/bot, mounted by its host for it alone): writes into it,
unmounts it to see what is below, remounts it read-write, makes a mount namespace of its own,
and looks for any other bot's file there."""

import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
SYS_MOUNT, SYS_UMOUNT2, SYS_UNSHARE = 165, 166, 272  # x86_64
MS_REMOUNT, MS_BIND = 32, 4096


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            mine = os.path.basename(__file__)
            others = [n for n in os.listdir(os.path.dirname(__file__)) if n != mine]
            print("ESCAPED other files" if others else "BLOCKED no other file", others)
            for flags in (os.O_WRONLY | os.O_CREAT, os.O_RDWR, os.O_WRONLY | os.O_TRUNC):
                try:
                    fd = os.open(os.path.join(os.path.dirname(__file__), "x.py"), flags, 0o644)
                    os.close(fd)
                    print("ESCAPED opened for writing", flags)
                except OSError as e:
                    print("BLOCKED open", flags, e.errno)
            calls = [
                (SYS_UMOUNT2, b"/bot", 2, 0, 0, 0),  # MNT_DETACH
                (SYS_MOUNT, None, b"/bot", None, MS_REMOUNT, None),
                (SYS_MOUNT, b"/bot", b"/bot", None, MS_REMOUNT | MS_BIND, None),
                (SYS_MOUNT, b"tmpfs", b"/bot", b"tmpfs", 0, None),
                (SYS_UNSHARE, 0x00020000, 0, 0, 0, 0),  # CLONE_NEWNS
            ]
            for nr, *args in calls:
                rc = _libc.syscall(nr, *args)
                if rc == 0:
                    print("ESCAPED syscall", nr, args[:2])
                else:
                    print("BLOCKED syscall", nr, ctypes.get_errno())
            print("listing after:", os.listdir(os.path.dirname(__file__)))
        return obs["legal"][0]
