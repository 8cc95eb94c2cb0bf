"""Runs programs: subprocess, os.system, posix_spawn, exec, and _posixsubprocess without audit."""

import os
import subprocess


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            attempts = [
                ("subprocess", lambda: subprocess.run(["/bin/sh", "-c", "id"], timeout=1)),
                ("system", lambda: os.system("id") == 0 or (_ for _ in ()).throw(OSError(1, "x"))),
                ("posix_spawn", lambda: os.posix_spawn("/bin/sh", ["sh", "-c", "id"], {})),
            ]
            for name, call in attempts:
                try:
                    call()
                    print("ESCAPED", name)
                except Exception as e:
                    print("BLOCKED", name, type(e).__name__, e)
            try:
                import _imp
                import importlib.machinery

                spec = importlib.machinery.ModuleSpec("_posixsubprocess", None)
                ps = _imp.create_builtin(spec)
                print("loaded", ps)
            except Exception as e:
                print("BLOCKED _posixsubprocess", type(e).__name__)
            try:
                os.execv("/bin/sh", ["sh", "-c", "id"])
            except OSError as e:
                print("BLOCKED exec", e.errno)
        return obs["legal"][0]
