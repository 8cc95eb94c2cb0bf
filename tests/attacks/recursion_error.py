"""Recurses past the default limit: RecursionError (a crash fault with a traceback)."""


def down(n):
    return down(n + 1)


class Bot:
    def act(self, obs):
        print("RAN", flush=True)
        return down(0)
