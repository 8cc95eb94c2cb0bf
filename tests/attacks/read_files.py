"""Reads the results database, other bots' files, /etc/passwd, /etc/shadow, the arena's environ."""

import glob
import os


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            mine = os.path.realpath(__file__)
            paths = ["@@DB@@", "/etc/passwd", "/etc/shadow", "/proc/1/environ", "/root/.bashrc"]
            paths += [f"/proc/{os.getppid()}/environ", "/work/main/bots/random_bot.py"]
            paths += glob.glob("/tmp/arena-sandbox-*/bots/*/*.py")
            paths += glob.glob(os.path.dirname(os.path.dirname(mine)) + "/*/*.py")
            # What a bot may read: its own file, the host code and arena.cards, the system.
            allowed = ("/usr/", "/bin/", "/lib")
            shown = ("host.py", "hostwire.py", "confine.py", "__init__.py", "cards.py", "rules.py")
            shown += ("game.py", "worlds.py", "keeps.py")
            for path in paths:
                real = os.path.realpath(path)
                if real == mine or real.startswith(allowed) or os.path.basename(real) in shown:
                    continue
                try:
                    with open(path, "rb") as f:
                        data = f.read(64)
                    print("ESCAPED read", path, data[:20])
                except OSError as e:
                    print("BLOCKED", path, e.errno)
            try:
                print("ESCAPED listdir /tmp", os.listdir("/tmp")[:5])
            except OSError as e:
                print("BLOCKED listdir", e.errno)
        return obs["legal"][0]
