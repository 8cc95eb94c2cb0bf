"""Returns NaN (not valid JSON, not an action: an illegal fault)."""


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        return float("nan")
