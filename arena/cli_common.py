"""What every ``arena`` command shares: the ``--db`` option and the one-line error report."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from arena.errors import ArenaError
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


def limit_option(fn: F) -> F:
    """The shared ``--limit N`` option of the listing commands."""
    return click.option(
        "--limit",
        type=click.IntRange(0),
        default=50,
        show_default=True,
        help="Show at most N (0: all).",
    )(fn)


def unsafe_option(fn: F) -> F:
    """The shared ``--unsafe-no-sandbox`` flag (trusted bots only)."""
    return click.option(
        "--unsafe-no-sandbox",
        "unsafe",
        is_flag=True,
        help="Run bots without the sandbox's isolation layers (trusted bots only).",
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


def source_cap(limits: dict[str, Any], override: int | None) -> int:
    """The largest bot file to read: ``--max-source-bytes``, else the limits' own."""
    from arena.entrants import source_limit

    return override if override is not None else source_limit(limits)
