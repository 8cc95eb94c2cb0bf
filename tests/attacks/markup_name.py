"""Takes a name that is rich markup: a closing tag with nothing open made the CLI crash
(MarkupError) in run, standings and tournaments."""


class Bot:
    name = "[/oops]"
    author = "[bold red]mallory[/]"

    def act(self, obs):
        return obs["legal"][0]
