"""A ready line whose name is another bot's, full of control characters and terminal escapes,
and far too long: the name is informational, so the bot plays on without a fault, and nothing
of it reaches a fault message, a log line or the terminal unclean (``arena check`` reports it)."""


class Bot:
    name = "heuristic\x1b[2J\x1b]0;pwned\x07\r\n" + "A" * 5000

    def act(self, obs):
        print("RAN", flush=True)
        return obs["legal"][0]
