# coding: unicode_escape
"""Reads as a bot that plays the first legal action, but its coding cookie says the bytes are
unicode_escape: compiled from the raw bytes, the comment in act holds an escaped newline and a
hidden line of code runs. The arena compiles exactly the UTF-8 text it read and showed."""


class Bot:
    def act(self, obs):
        print("RAN")
        # play the first legal action \u000a        print("ESCAPED hidden code ran")
        return obs["legal"][0]
