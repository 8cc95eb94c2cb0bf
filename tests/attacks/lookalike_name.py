"""Takes a name that renders as another bot's: markup that prints as "heuristic"."""


class Bot:
    name = "heuristic[i][/i]"

    def act(self, obs):
        return obs["legal"][0]
