"""What every ``arena`` command shares: the ``--db`` option and the one-line error report."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click
from rich.console import Console, RenderableType
from rich.text import Text

from arena.errors import ArenaError, InvalidOption
from arena.untrusted import clean_line

F = TypeVar("F", bound=Callable[..., Any])


def db_option(fn: F) -> F:
    """The shared ``--db PATH`` option (default ``arena.db`` in the working directory)."""
    return click.option(
        "--db",
        "db_path",
        type=click.Path(dir_okay=False),
        default="arena.db",
        show_default=True,
        envvar="ARENA_DB",
        help="SQLite database file.",
    )(fn)


def reports_errors(fn: F) -> F:
    """Turn an :class:`ArenaError` into one line on stderr and exit code 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ArenaError as e:
            # One line, whatever bot-controlled text the message quotes.
            click.echo(f"Error: {clean_line(str(e), 1000)}", err=True)
            sys.exit(1)

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
            except InvalidOption as e:
                raise click.BadParameter(e.problem) from None
            except ArenaError as e:
                raise click.BadParameter(str(e)) from None
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


def show(items: Iterable[RenderableType], console: Console | None = None) -> None:
    """Print what :mod:`arena.views` made: lines (:class:`~rich.text.Text`) unwrapped, so a
    long one stays one line; tables and plain strings as rich lays them out. No markup:
    paths and names are printed as they are ("results[1].db" included)."""
    console = console or Console(markup=False)
    for item in items:
        console.print(item, soft_wrap=isinstance(item, Text))
