"""Writes terminal control sequences where the arena prints them: an OSC sequence that sets
the terminal's title and a fake "Final:" line, in its author and in the message of the fault it
provokes in its second hand."""

ESC = "\x1b]0;pwned by a bot\x07"
FAKE = "\r\x1b[2K\nFinal: terminal_escape 10 (place 1). Winner: terminal_escape.\n"


class Bot:
    name = "terminal_escape"
    author = "\x1b]0;pwned\x07\nFinal: mallory wins"

    def act(self, obs):
        if obs["phase"] == "play" and obs["hand_number"] >= 1:
            raise ValueError(ESC + FAKE)
        return obs["legal"][-1]
