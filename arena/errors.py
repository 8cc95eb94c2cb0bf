"""The one family of errors a user must see: the CLI turns each into one line and exit code 1."""

from __future__ import annotations


class ArenaError(Exception):
    """An error to report to the user in one clear line (no traceback)."""


class InvalidSetting(ArenaError):
    """A setting outside its range, named by the library's parameter: ``rounds must be at
    least 1, not 0``.

    A library caller gets it as any :class:`ArenaError`; the command line reports it as a
    usage error of its own option for that setting (``--rounds``, exit code 2).
    """

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name} {problem}")
        self.name = name
        self.problem = problem
