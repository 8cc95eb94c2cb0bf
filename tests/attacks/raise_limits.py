"""Tries to raise its rlimits (address space, CPU, processes), then allocates 8 GiB anyway."""

import resource


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            for name in (
                "RLIMIT_AS",
                "RLIMIT_CPU",
                "RLIMIT_NPROC",
                "RLIMIT_FSIZE",
                "RLIMIT_NOFILE",
            ):
                res = getattr(resource, name)
                soft, hard = resource.getrlimit(res)
                try:
                    resource.setrlimit(res, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
                    print("ESCAPED raised", name)
                except (ValueError, OSError) as e:
                    print("BLOCKED raise", name, e)
                try:
                    resource.prlimit(0, res, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
                    print("ESCAPED prlimit", name)
                except (ValueError, OSError) as e:
                    print("BLOCKED prlimit", name, e)
            try:
                block = bytearray(8 << 30)
                print("ESCAPED allocated", len(block))
            except MemoryError:
                print("BLOCKED 8 GiB")
        return obs["legal"][0]
