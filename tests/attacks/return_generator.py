"""Returns a generator over the legal actions (an illegal fault)."""


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        return (a for a in obs["legal"])
