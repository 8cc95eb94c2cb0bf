"""What every ``arena`` command shares: the ``--db`` option and the one-line error report."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final, TypeVar

import click

from arena.errors import ArenaError, InvalidSetting
from arena.untrusted import clean_line

if TYPE_CHECKING:  # imported where used: `arena --help` needs neither
    from rich.console import Console, RenderableType

F = TypeVar("F", bound=Callable[..., Any])


OPTIONS: Final = {
    "certs": "--cluster-certs DIR",
    "insecure": "--insecure-cluster",
    "source_bytes": "--max-source-bytes",
    "clock_bank_seconds": "--clock-bank",
    "clock_increment_seconds": "--clock-increment",
}
"""The option of each library setting whose option is not its name (``unsafe_no_sandbox``:
``--unsafe-no-sandbox``)."""


def option_of(setting: str) -> str:
    """The command line's option for a library setting (:data:`OPTIONS`, else its name)."""
    return OPTIONS.get(setting, "--" + setting.replace("_", "-"))


def report(error: ArenaError) -> None:
    """Print ``error`` as the one line every command fails with, the settings it names as
    this command line's options, and exit with code 1."""
    # One line, whatever bot-controlled text the message quotes.
    click.echo(f"Error: {clean_line(error.spelled(option_of), 1000)}", err=True)
    sys.exit(1)


class Group(click.Group):
    """The ``arena`` group: an :class:`ArenaError` raised while a command's arguments are read
    (a path of the wrong kind, :class:`PathOf`) is reported like one raised by the command.

    ``lazy`` maps command names to ``"module:attribute"``: such a command's module is imported
    when the command is looked up (to run it, or for ``--help``'s list), so that a command
    loads its own module only, not every other command's options and imports."""

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, the lazy ones' included, sorted."""
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``, its module imported first when it is a lazy one."""
        if cmd_name in self.lazy and cmd_name not in self.commands:
            import importlib

            module, attribute = self.lazy[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command, reporting an :class:`ArenaError` in one line (exit code 1)."""
        try:
            return super().invoke(ctx)
        except ArenaError as e:
            report(e)


class PathOf(click.ParamType):
    """A path that must be a ``"file"`` or a ``"folder"`` when it exists (and exist, with
    ``exists``). A wrong one is a problem with the file system, not with the command line: one
    ``Error:`` line and exit code 1, like every other error of a file."""

    name = "path"

    def __init__(self, kind: str, *, exists: bool = False) -> None:
        self.kind = kind
        self.exists = exists

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The path as given (a string), after checking what is there."""
        import os

        text = os.fspath(value)
        label = clean_line(text, 200)
        if isinstance(param, click.Option):
            label = f"{param.opts[0]} {label}"
        if not os.path.lexists(text):
            if self.exists:
                raise ArenaError(f"{label}: no such {self.kind}")
            return text
        is_dir = os.path.isdir(text)
        if self.kind == "file" and is_dir:
            raise ArenaError(f"{label} is a folder, not a file")
        if self.kind == "folder" and not is_dir:
            raise ArenaError(f"{label} is a file, not a folder")
        return text


def db_option(fn: F) -> F:
    """The shared ``--db PATH`` option (default ``arena.db`` in the working directory)."""
    return click.option(
        "--db",
        "db_path",
        type=PathOf("file"),
        default="arena.db",
        show_default=True,
        envvar="ARENA_DB",
        help="SQLite database file.",
    )(fn)


def reports_errors(fn: F) -> F:
    """Turn an :class:`ArenaError` into one line on stderr and exit code 1; so too a SQLite
    error that escaped the store (:class:`arena.store.Store` turns those met while it is
    open into ArenaErrors), naming the command's ``--db``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        import sqlite3

        try:
            return fn(*args, **kwargs)
        except ArenaError as e:
            report(e)
        except sqlite3.Error as e:
            from pathlib import Path

            from arena.store.dbfile import explain

            report(ArenaError(explain(Path(kwargs.get("db_path") or "arena.db"), e)))

    return wrapper  # type: ignore[return-value]


Callback = Callable[[click.Context, click.Parameter, Any], Any]


def checked_by(check: Callable[[Any], object]) -> Callback:
    """A click callback running the library's own check of an option's value (None: not
    given), so that each check is written once: a value it refuses is a usage error of the
    option (exit code 2)."""

    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is not None:
            try:
                check(value)
            except InvalidSetting as e:
                raise click.BadParameter(e.problem) from None
            except ArenaError as e:
                raise click.BadParameter(e.spelled(option_of)) from None
        return value

    return callback


def limit_option(fn: F) -> F:
    """The shared ``--limit N`` option of the listing commands."""
    return click.option(
        "--limit",
        type=click.IntRange(0),
        default=50,
        show_default=True,
        help="Show at most N (0: all).",
    )(fn)


def wide_option(fn: F) -> F:
    """The shared ``--wide`` flag of the listing commands: every column, nothing cut (their
    tables fit 80 columns without it)."""
    return click.option(
        "--wide", is_flag=True, help="Show every column, whole (the default fits 80 columns)."
    )(fn)


def show(items: Iterable[RenderableType], console: Console | None = None) -> None:
    """Print what :mod:`arena.views.terminal` made: lines (:class:`~rich.text.Text`) unwrapped, so a
    long one stays one line; tables and plain strings as rich lays them out. No markup:
    paths and names are printed as they are ("results[1].db" included)."""
    from rich.console import Console
    from rich.text import Text

    console = console or Console(markup=False)
    for item in items:
        console.print(item, soft_wrap=isinstance(item, Text))


def unsafe_option(fn: F) -> F:
    """The shared ``--unsafe-no-sandbox`` flag (trusted bots only)."""
    return click.option(
        "--unsafe-no-sandbox",
        "unsafe",
        is_flag=True,
        help="Run bots without the sandbox's isolation layers (trusted bots only).",
    )(fn)


def _check_worker_count(workers: int) -> None:
    from arena.tournaments.tournament import check_worker_count

    check_worker_count(workers)


def workers_option(fn: F) -> F:
    """The shared ``--workers N`` option of the commands that play matches locally."""
    return click.option(
        "--workers",
        type=int,
        default=None,
        callback=checked_by(_check_worker_count),
        help="Worker processes  [default: usable cores]",
    )(fn)


def log_option(fn: F) -> F:
    """The shared ``--log FILE`` option of the commands that run matches."""
    return click.option(
        "--log",
        "log_path",
        type=PathOf("file"),
        default=None,
        help="Log file of the run, worker processes included  [default: the database's name "
        "with .log]",
    )(fn)


def source_bytes_option(fn: F) -> F:
    """The shared ``--max-source-bytes N`` option: the largest bot file read."""
    return click.option(
        "--max-source-bytes",
        "max_source_bytes",
        type=click.IntRange(1, 1 << 30),
        default=None,
        help="Refuse bot files larger than this  [default: 1048576]",
    )(fn)
