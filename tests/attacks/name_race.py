"""Submitted under a name another author is submitting at the same moment ("frank"): if the
owner were checked only before the seconds of sandbox checks, whichever store came second
would land as the next version of the other author's bot."""


class Bot:
    name = "frank"

    def act(self, obs):
        return obs["legal"][0]
