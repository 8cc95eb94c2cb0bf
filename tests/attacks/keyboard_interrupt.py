"""Raises KeyboardInterrupt from act (a crash fault)."""


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        raise KeyboardInterrupt
