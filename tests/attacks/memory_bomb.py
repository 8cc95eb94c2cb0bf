"""Allocates and touches 8 GiB in act (uncaught MemoryError: a memory fault)."""


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        block = bytearray(8 << 30)
        print("ESCAPED allocated", len(block))
        return obs["legal"][0]
