"""Returns a 4 MiB list of cards (an illegal fault, never a flooded arena)."""


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        return obs["legal"] * 200_000
