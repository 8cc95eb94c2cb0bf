"""Connects to a unix socket on the file system and to an abstract one; tries a socketpair."""

import socket


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            for addr in ("@@UNIX_PATH@@", "\0@@UNIX_ABSTRACT@@"):
                try:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.connect(addr)
                    s.sendall(b"PWNED")
                    print("ESCAPED unix", repr(addr))
                except OSError as e:
                    print("BLOCKED unix", repr(addr), e.errno)
            try:
                socket.socketpair()
                print("ESCAPED socketpair")
            except OSError as e:
                print("BLOCKED socketpair", e.errno)
        return obs["legal"][0]
