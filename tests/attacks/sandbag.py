"""Forfeits every match on purpose (an illegal answer at its first decision): a ladder entry
that loses everything, hoping to drag the honest bots' ratings. It used to work: the scale was
centred on every bot, and this bot's prior-made number fell with every loss."""


class Bot:
    name = "sandbag"

    def act(self, obs):
        print("RAN", flush=True)
        return "surely not a legal action"
