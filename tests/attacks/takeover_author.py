"""Declares another author's bot name ("greedy"), to replace that author's bot."""


class Bot:
    name = "greedy"

    def act(self, obs):
        return obs["legal"][0]
