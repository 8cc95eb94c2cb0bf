"""The ``arena`` command line: a thin click layer over the library (no game logic here).

Every command takes ``--db`` (default ``arena.db``), exits 0 on success, 1 on a reported
:class:`~arena.errors.ArenaError` (one line, no traceback) and 2 on a usage error.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from arena import __version__
from arena.errors import ArenaError

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
            click.echo(f"Error: {e}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Euchre Arena: Three-Handed (Cutthroat) Euchre tournaments for sandboxed bots.

    \b
    Example:
        arena submit my_bot.py
        arena run --rounds 4
        arena standings
    """


@main.command()
@click.option("--seed", type=int, default=1, show_default=True, help="Match seed.")
@click.argument("bot_files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@reports_errors
def demo(seed: int, bot_files: tuple[str, ...]) -> None:
    """Play one match in-process and print it hand by hand (trusted bots only).

    With no BOT_FILES, three copies of the bundled random bot play.

    \b
    Example:
        arena demo --seed 7
    """
    from arena.demo import run_demo

    click.echo(run_demo(seed, list(bot_files)))


# --- sandbox commands ---

# --- tournament commands ---

# --- site commands ---


if __name__ == "__main__":  # pragma: no cover
    main()
