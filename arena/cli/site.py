"""``arena render`` and ``arena serve``: the standings site, thin wrappers over
:func:`arena.site.publish_site` and :mod:`arena.site.serve`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena.cli.common import PathOf, db_option, reports_errors
from arena.errors import ArenaError


@click.command()
@db_option
@click.option(
    "--out",
    "out_dir",
    type=PathOf("folder"),
    default=None,
    help="Folder to write the site into  [default: the database's name with -site: "
    "arena-site/ for arena.db]",
)
@click.option(
    "--with-logs",
    is_flag=True,
    help="Publish excerpts of what the bots printed (untrusted text; off by default).",
)
@click.option(
    "--full",
    is_flag=True,
    help="Render every page, not only those whose results changed since the last render.",
)
@click.option(
    "--replays",
    type=click.IntRange(0),
    default=300,
    show_default=True,
    help="Replay pages kept as files per tournament (its latest matches); `arena serve` "
    "renders older ones on request.",
)
@reports_errors
def render(db_path: str, out_dir: str | None, with_logs: bool, full: bool, replays: int) -> None:
    """Write the HTML standings site: leaderboard, head-to-head, bots, matches, tournaments.

    The site is static (no network, no CDN): open index.html from disk or put the folder on
    any static host. Bot sources are never published.

    \b
    Example:
        arena render                      # arena.db into arena-site/
        arena render --db other.db --out /var/www/euchre
    """
    from arena.api import Arena

    with Arena(db_path, create=False) as arena:
        index = arena.render(out_dir, with_logs=with_logs, full=full, replays=replays)
    click.echo(f"Site written to {index}")


@click.command()
@db_option
@click.option(
    "--out",
    "out_dir",
    type=PathOf("folder"),
    default=None,
    help="Folder of a rendered site (rendered from --db first when it has none)  [default: "
    "the database's name with -site: arena-site/ for arena.db]",
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
def serve(db_path: str, out_dir: str | None, port: int, host: str, quiet: bool) -> None:
    """Serve the site on this machine only (127.0.0.1), until Ctrl-C.

    Serves the site already in --out; when there is none yet, renders it from --db first.
    Replays older than the site keeps as files, and whole match lists, are rendered on
    request from --db.

    \b
    Example:
        arena render && arena serve --port 8000
    """
    from arena.site import site_folder
    from arena.site.serve import check_loopback, make_server

    check_loopback(host)
    out_dir = str(out_dir or site_folder(db_path))
    if not (Path(out_dir) / "index.html").is_file():
        from arena.site import publish_site

        try:
            index = publish_site(db_path, out_dir)
        except ArenaError as e:
            raise ArenaError(f"no site in {out_dir} (no index.html) to serve: {e}") from None
        click.echo(f"Site written to {index}")
    server = make_server(out_dir, host, port, quiet=quiet, db_path=db_path)
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


COMMANDS = (render, serve)
