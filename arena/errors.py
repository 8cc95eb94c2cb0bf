"""The one family of errors a user must see: the CLI turns each into one line and exit code 1."""

from __future__ import annotations


class ArenaError(Exception):
    """An error to report to the user in one clear line (no traceback)."""


class InvalidOption(ArenaError):
    """A setting outside its range, named by its command-line option (``--rounds``).

    A library caller gets it as any :class:`ArenaError`; the command line reports it as a
    usage error of that option (exit code 2).
    """

    def __init__(self, option: str, problem: str) -> None:
        super().__init__(f"{option} {problem}")
        self.option = option
        self.problem = problem
