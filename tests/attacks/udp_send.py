"""Sends UDP datagrams to the arena's machine (Landlock does not cover UDP)."""

import socket

UDP_PORT = int("@@UDP_PORT@@")


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            try:
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.sendto(b"PWNED", ("127.0.0.1", UDP_PORT))
                print("ESCAPED udp")
            except OSError as e:
                print("BLOCKED udp", e.errno)
        return obs["legal"][0]
