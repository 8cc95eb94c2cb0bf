"""Connects to a TCP listener of the arena's machine and tries to listen itself."""

import socket

TCP_PORT = int("@@TCP_PORT@@")


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            for host in ("127.0.0.1", "::1", "localhost"):
                try:
                    s = socket.create_connection((host, TCP_PORT), timeout=0.2)
                    s.sendall(b"PWNED")
                    print("ESCAPED tcp", host)
                except OSError as e:
                    print("BLOCKED tcp", host, e.errno)
            try:
                s = socket.socket()
                s.bind(("0.0.0.0", 0))
                s.listen()
                print("ESCAPED listen", s.getsockname())
            except OSError as e:
                print("BLOCKED listen", e.errno)
        return obs["legal"][0]
