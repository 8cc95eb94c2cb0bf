"""``arena web`` and ``arena authors``: the web service and its authors, thin wrappers over
:mod:`arena.web.app` and the authors' methods of :class:`arena.api.Arena` (docs/web.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli.common import PathOf, db_option, reports_errors
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.web.context import WebSettings

SECRET_BYTES = 32


@click.group()
def authors() -> None:
    """The authors who may upload bots through `arena web`, each with a token.

    \b
    Example:
        arena authors add alice           # prints alice's token on its last line, once
        arena authors list
        arena authors rotate alice        # a new token; the old one stops working
        arena authors revoke alice
    """


@authors.command("add")
@click.argument("name")
@db_option
@reports_errors
def authors_add(name: str, db_path: str) -> None:
    """Add author NAME and print their token (shown this once; the database keeps a hash).

    The token logs in to `arena web` and uploads bots (Authorization: Bearer TOKEN); it is
    also the owner key of the author's bots: ARENA_OWNER_KEY=TOKEN arena submit stores
    versions of the same names.
    """
    from arena.api import Arena

    with Arena(db_path) as arena:
        author, token = arena.add_author(name)
    click.echo(f"Added author {author.name}. Their token (shown only now; give it to them):")
    click.echo(token)


@authors.command("list")
@db_option
@reports_errors
def authors_list(db_path: str) -> None:
    """List the authors, their bots and whether their token is revoked."""
    from arena.api import Arena

    with Arena(db_path, create=False) as arena:
        rows = [(a, arena.author_bots(a.name)) for a in arena.authors()]
    if not rows:
        click.echo("No authors (arena authors add NAME adds one).")
    for author, bots in rows:
        state = f"revoked {author.revoked_at}" if author.revoked else "active"
        listed = ", ".join(bots) if bots else "no bots"
        click.echo(f"{author.name}  added {author.created_at}  {state}  {listed}")


@authors.command("rotate")
@click.argument("name")
@db_option
@reports_errors
def authors_rotate(name: str, db_path: str) -> None:
    """Give author NAME a new token and print it (shown this once).

    The old token stops working at once: logins, uploads, its sessions in every browser and
    ARENA_OWNER_KEY. The author's bots move to the new token.
    """
    from arena.api import Arena

    with Arena(db_path, create=False) as arena:
        author, token = arena.rotate_author(name)
    click.echo(f"New token for {author.name} (shown only now; the old one no longer works):")
    click.echo(token)


@authors.command("revoke")
@click.argument("name")
@db_option
@reports_errors
def authors_revoke(name: str, db_path: str) -> None:
    """Revoke author NAME's token: it logs in and uploads no more (their bots stay)."""
    from arena.api import Arena

    with Arena(db_path, create=False) as arena:
        _, changed = arena.revoke_author(name)
    click.echo(f"Revoked {name}'s token." if changed else f"{name}'s token was already revoked.")


def read_secret(path: Path) -> bytes:
    """The session-signing secret kept in ``path`` (made, mode 0600, when missing)."""
    import os
    import secrets

    if not path.exists():
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        except OSError as e:
            raise ArenaError(f"cannot create the secret file {path}: {e.strerror}") from None
        else:
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(secrets.token_hex(SECRET_BYTES) + "\n")
    try:
        if path.stat().st_mode & 0o077:
            raise ArenaError(f"the secret file {path} is open to other users (chmod 600 {path})")
        text = path.read_text(encoding="ascii").strip()
        secret = bytes.fromhex(text)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ArenaError(f"cannot read the secret file {path}: {e}") from None
    if len(secret) < 16:
        raise ArenaError(f"the secret file {path} holds under 16 bytes (delete it: one is made)")
    return secret


@click.command()
@db_option
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind. Anything but loopback needs --tls-cert/--tls-key or --behind-proxy.",
)
@click.option("--tls-cert", type=PathOf("file"), default=None, help="TLS certificate (PEM).")
@click.option("--tls-key", type=PathOf("file"), default=None, help="TLS private key (PEM).")
@click.option(
    "--behind-proxy",
    is_flag=True,
    help="A reverse proxy on this machine terminates TLS (Caddy): trust its X-Forwarded-For "
    "and mark the session cookie Secure.",
)
@click.option(
    "--server-name",
    "server_names",
    multiple=True,
    metavar="NAME",
    help="A host name the service answers to (the Host header), e.g. arena.example.org; "
    "repeatable. On loopback, localhost and 127.0.0.1 always work.",
)
@click.option(
    "--play",
    type=click.Choice(["anyone", "authors", "off"]),
    default="anyone",
    show_default=True,
    help="Who may play the bots in the browser.",
)
@click.option(
    "--secret-file",
    type=PathOf("file"),
    default=None,
    help="Keep the session-signing secret in this file (made when missing) so sessions "
    "survive a restart  [default: a new secret each start]",
)
@reports_errors
def web(
    db_path: str,
    port: int,
    host: str,
    tls_cert: str | None,
    tls_key: str | None,
    behind_proxy: bool,
    server_names: tuple[str, ...],
    play: str,
    secret_file: str | None,
) -> None:
    """Serve the arena as a web service: authors upload bots, everyone watches, people play.

    Runs until Ctrl-C, beside `arena ladder` on the same database. Binds 127.0.0.1 by default;
    on any other address it needs TLS: its own (--tls-cert, --tls-key) or a reverse proxy's
    (--behind-proxy). See docs/web.md.

    \b
    Example:
        arena web --db arena.db --port 8000
        arena web --behind-proxy --server-name arena.example.org
    """
    from arena.api import Arena

    try:
        from arena.web.app import serve
        from arena.web.context import WebSettings
    except ImportError as e:
        raise ArenaError(
            f"arena web needs the web extra ({e.name} is missing): pip install 'euchre-arena[web]'"
        ) from None
    from arena.web.guard import is_loopback_address

    tls = _tls(tls_cert, tls_key)
    loopback = is_loopback_address(host)
    if not loopback and tls is None and not behind_proxy:
        raise ArenaError(
            f"refusing to serve on {host} without TLS: give --tls-cert and --tls-key, or run "
            "behind a reverse proxy that terminates TLS with --behind-proxy (docs/web.md)"
        )
    if (behind_proxy or not loopback) and not server_names:
        raise ArenaError(
            "give the public name the browsers use with --server-name (e.g. --server-name "
            "arena.example.org): requests for any other name are refused"
        )
    Arena(db_path, create=False).close()  # a missing or foreign database: one line, now
    settings = WebSettings(
        Path(db_path), host=host, port=port, play=play,  # type: ignore[arg-type]
        server_names=server_names, https=tls is not None or behind_proxy,
        behind_proxy=behind_proxy,
    )  # fmt: skip
    if secret_file is not None:
        settings = _with_secret(settings, Path(secret_file))
    scheme = "https" if tls else "http"
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"Serving {db_path} at {scheme}://{shown}:{port}/ (Ctrl-C stops)")
    try:
        serve(settings, tls=tls)
    except KeyboardInterrupt:  # uvicorn stopped cleanly, then raised the signal again
        pass


def _tls(cert: str | None, key: str | None) -> tuple[Path, Path] | None:
    if (cert is None) != (key is None):
        raise ArenaError("give both --tls-cert and --tls-key, or neither")
    return None if cert is None or key is None else (Path(cert), Path(key))


def _with_secret(settings: WebSettings, path: Path) -> WebSettings:
    import dataclasses

    return dataclasses.replace(settings, secret_key=read_secret(path))


COMMANDS = [authors, web]
