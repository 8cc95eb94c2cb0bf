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


@main.command()
@db_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="site",
    show_default=True,
    help="Folder to write the site into.",
)
@click.option(
    "--with-logs",
    is_flag=True,
    help="Publish excerpts of what the bots printed (untrusted text; off by default).",
)
@reports_errors
def render(db_path: str, out_dir: str, with_logs: bool) -> None:
    """Write the HTML standings site: leaderboard, head-to-head, bots, matches, tournaments.

    The site is static (no network, no CDN): open index.html from disk or put the folder on
    any static host. Bot sources are never published.

    \b
    Example:
        arena render --out site/
        arena serve --out site/
    """
    from arena.site import render_site

    index = render_site(db_path, out_dir, with_logs=with_logs)
    click.echo(f"Site written to {index}")


@main.command()
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="site",
    show_default=True,
    help="Folder of a rendered site.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Loopback address to listen on; any other address is refused.",
)
@click.option("--quiet", is_flag=True, help="Do not log each request.")
@reports_errors
def serve(out_dir: str, port: int, host: str, quiet: bool) -> None:
    """Serve a rendered site on this machine only (127.0.0.1), until Ctrl-C.

    \b
    Example:
        arena render && arena serve --port 8000
    """
    from arena.site.serve import make_server

    server = make_server(out_dir, host, port, quiet=quiet)
    bound_host, bound_port = (str(a) for a in server.server_address[:2])
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    click.echo(f"Serving {out_dir} at http://{shown}:{bound_port}/ (Ctrl-C to stop)")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":  # pragma: no cover
    main()
