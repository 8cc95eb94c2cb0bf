"""A valid, honest bot: the test pads a copy of it to 8 MB (a comment and a long literal), the
size that cost the arena 85 s and 4.8 GB before bot files were capped."""


class Bot:
    name = "huge_source"

    def act(self, obs):
        return obs["legal"][-1]
