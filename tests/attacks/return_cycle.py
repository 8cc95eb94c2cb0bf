"""Returns a self-referencing list and a dict subclass that lies about equality."""


class Liar(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


class Bot:
    def __init__(self):
        self.n = 0

    def act(self, obs):
        print("RAN", flush=True)
        self.n += 1
        if self.n == 1:
            return Liar("nonsense")  # serialises as "nonsense": not legal
        x = []
        x.append(x)
        return x
