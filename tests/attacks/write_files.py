"""Writes, creates, appends, deletes and fills memory-backed file systems anywhere it can."""

import os


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            here = os.path.dirname(os.path.abspath(__file__))
            targets = [
                "@@MARK_DIR@@/pwned",
                "/tmp/arena-pwned",
                "/dev/shm/arena-pwned",
                here + "/pwned",
                "/pwned",
                "@@DB@@",
                os.path.abspath(__file__),
            ]
            for path in targets:
                for mode in ("ab", "wb", "r+b"):
                    try:
                        with open(path, mode) as f:
                            f.write(b"x" * (1 << 20))
                        print("ESCAPED write", path, mode)
                    except OSError as e:
                        print("BLOCKED", path, mode, e.errno)
            for call, args in (
                (os.mkdir, ("/tmp/arena-pwned-dir",)),
                (os.unlink, (os.path.abspath(__file__),)),
                (os.chmod, (here, 0o777)),
                (os.symlink, ("/etc/passwd", here + "/link")),
            ):
                try:
                    call(*args)
                    print("ESCAPED", call.__name__)
                except OSError as e:
                    print("BLOCKED", call.__name__, e.errno)
            try:
                fd = os.memfd_create("fill")
                os.write(fd, b"x" * (64 << 20))
                print("ESCAPED memfd")
            except OSError as e:
                print("BLOCKED memfd", e.errno)
        return obs["legal"][0]
