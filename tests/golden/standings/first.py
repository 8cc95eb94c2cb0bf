class Bot:
    name = "first"

    def act(self, obs):
        return obs["legal"][0]
