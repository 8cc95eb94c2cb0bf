"""Returns an arbitrary object instead of an action (an illegal fault)."""


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        return object()
