"""The one family of errors a user must see: the CLI turns each into one line and exit code 1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Self


class ArenaError(Exception):
    """An error to report to the user in one clear line (no traceback).

    A message that tells which setting to change names it as the library does, by its
    parameter in backquotes (```unsafe_no_sandbox```), and lists it in :attr:`settings`
    (:meth:`naming`): the command line shows its own option there instead (:meth:`spelled`),
    so the library never names a command-line option.
    """

    settings: tuple[str, ...] = ()
    """The settings (library parameter names) the message names in backquotes."""

    def naming(self, *settings: str) -> Self:
        """This error, marked as naming ``settings`` in its message (returned, to raise)."""
        self.settings = settings
        return self

    def spelled(self, spell: Callable[[str], str]) -> str:
        """The message with each setting it names written as ``spell(setting)`` (the command
        line's option for it)."""
        text = str(self)
        for name in self.settings:
            text = text.replace(f"`{name}`", spell(name))
        return text


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


class NotFound(ArenaError):
    """What was asked for is not in the database: a tournament, bot, match or ladder (by name,
    id or prefix), or the database file itself."""


class AlreadyRunning(ArenaError):
    """The tournament (or a ladder) is already being run on this database by another run; its
    run lock names it. Wait for it, or stop it, and run again."""


class BadBotFile(ArenaError):
    """A bot file that cannot be a bot: not readable, too large, not a bot's source, or a bot
    that faults when it is checked (loaded and played in the sandbox). Nothing is stored."""


class DatabaseBusy(ArenaError):
    """Another process holds the database's write lock; try again when it is done."""


class DatabaseDamaged(ArenaError):
    """The file is not a SQLite database, or SQLite found damaged pages or values in it."""
