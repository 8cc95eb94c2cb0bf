"""Takes names that read like a bundled bot's at a glance: a capital I for an l, rn for m, a
trailing dot or .py (the test submits it under each). Every one is refused in one line."""


class Bot:
    name = "montecarIo"

    def act(self, obs):
        return obs["legal"][0]
