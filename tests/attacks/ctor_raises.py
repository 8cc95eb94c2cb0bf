"""Its constructor raises (a load fault)."""


class Bot:
    def __init__(self):
        print("RAN", flush=True)
        raise ValueError("no thanks")

    def act(self, obs):
        return obs["legal"][0]
