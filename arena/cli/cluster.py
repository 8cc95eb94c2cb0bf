"""``arena cluster init`` and the options every cluster command shares (``--cluster-certs``,
``--insecure-cluster``): thin wrappers over :mod:`arena.cluster.security` (docs/cluster.md)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from arena.cli.common import reports_errors

F = TypeVar("F", bound=Callable[..., Any])


def cluster_options(fn: F) -> F:
    """Add ``--cluster-certs DIR`` and ``--insecure-cluster`` to a command with ``--cluster``."""
    fn = click.option(
        "--insecure-cluster",
        is_flag=True,
        help="Accept a plain tcp:// cluster: anyone who reaches its ports can run code on the "
        "workers and read the bots and deals (a warning says so).",
    )(fn)
    return click.option(
        "--cluster-certs",
        metavar="DIR",
        type=click.Path(file_okay=False, path_type=Path),
        envvar="ARENA_CLUSTER_CERTS",
        default=None,
        help="The certificates of `arena cluster init` (ca.pem, client.pem, client.key, "
        "revoked.pem) for a tls:// cluster  [env: ARENA_CLUSTER_CERTS]",
    )(fn)


def play_on_cluster_options(fn: F) -> F:
    """``--cluster ADDR`` (play on a Dask cluster instead of local worker processes) with
    :func:`cluster_options`: the commands that play matches (``arena run``, ``arena ladder``);
    :func:`cluster_executor` opens what they give."""
    fn = cluster_options(fn)
    fn = click.option(
        "--cross-check",
        metavar="FRACTION",
        type=click.FloatRange(0.0, 1.0),
        default=0.0,
        show_default=True,
        help="With --cluster: play this share of all matches again on another worker (or "
        "here) and compare the records; a worker whose record differs is dropped and named.",
    )(fn)
    return click.option(
        "--cluster",
        metavar="ADDR",
        default=None,
        help="Play on the Dask cluster whose scheduler is ADDR (tls://HOST:8786) instead of "
        "local worker processes; see docs/cluster.md.",
    )(fn)


def cluster_executor(
    cluster: str | None, certs: Path | None, insecure: bool, unsafe: bool, cross_check: float = 0.0
) -> Any | None:
    """The executor of the cluster ``--cluster`` names (None: play locally), opened and
    checked before anything is played, so a cluster that cannot play fails in one line."""
    if cluster is None:
        if cross_check:
            raise click.UsageError("--cross-check checks a cluster's workers: give --cluster too")
        return None
    from arena.cluster.client import open_executor  # Dask: loaded only when asked for

    # The terminal shows the arena's own lines: Dask's client warns on stderr when a result it
    # fetched is refused or lost ("Couldn't gather ..., rescheduling"), which the arena handles
    # and logs itself (arena.log); Dask's errors still show.
    # Dask gives some of its loggers a level and a handler of their own when it is imported
    # (just above): "distributed.client" warns through its own, which a level on "distributed"
    # does not reach. Every Dask logger there is is set.
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] == "distributed"]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(logging.ERROR)
    return open_executor(
        cluster, certs=certs, insecure=insecure, unsafe_no_sandbox=unsafe, cross_check=cross_check
    )


@click.group()
def cluster() -> None:
    """Set up a Dask cluster that arena can trust (docs/cluster.md)."""


@cluster.command("init")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--host", required=True, help="The scheduler's private address (IP or name).")
@click.option("--port", type=int, default=8786, show_default=True, help="The scheduler's port.")
@click.option(
    "--worker",
    "names",
    metavar="NAME",
    multiple=True,
    help="Issue a worker certificate named NAME too (repeat for more; later: add-worker).",
)
@reports_errors
def init(directory: Path, host: str, port: int, names: tuple[str, ...]) -> None:
    """Make a CA and TLS certificates in DIRECTORY (mode 0700) and print the exact commands.

    Copy ca.pem with scheduler.* to the scheduler, ca.pem with worker-NAME.* to the worker
    NAME; the arena machine keeps ca.pem, client.* and revoked.pem; ca.key stays here (it signs
    certificates).

    \b
    Example:
        arena cluster init ~/.arena-cluster --host 10.0.0.5 --worker gpu1 --worker gpu2
    """
    from arena.cluster.security import commands, init_certificates

    made = init_certificates(directory, host, names)
    click.echo(f"made {len(made)} certificates in {directory} (keys readable by you only)")
    for line in commands(directory, host, port):
        click.echo(line)


@cluster.command("add-worker")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.argument("name")
@reports_errors
def add_worker_command(directory: Path, name: str) -> None:
    """Issue the certificate of one more worker, NAME, from the CA in DIRECTORY.

    Writes worker-NAME.pem and worker-NAME.key; copy them with ca.pem to that worker and start
    it with --name NAME. No other certificate changes.

    \b
    Example:
        arena cluster add-worker ~/.arena-cluster gpu3
    """
    from arena.cluster.security import add_worker

    cert, key = add_worker(directory, name)
    click.echo(f"made {cert.name} and {key.name} in {directory}: copy them with ca.pem to {name}")


@cluster.command("revoke")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.argument("name")
@reports_errors
def revoke_command(directory: Path, name: str) -> None:
    """Revoke the certificate of the worker NAME: the scheduler refuses it from then on.

    Adds it to DIRECTORY/revoked.pem (signed by the CA). The next arena run or doctor on the
    cluster hands the list to the scheduler, which closes that worker's connections and
    refuses new ones; copying revoked.pem beside the scheduler's ca.pem makes it hold across
    a scheduler restart. The other workers keep their certificates.

    \b
    Example:
        arena cluster revoke ~/.arena-cluster gpu3
    """
    from arena.cluster.security import revoke

    serial = revoke(directory, name)
    click.echo(f"revoked worker {name} (serial {serial:x}) in {directory / 'revoked.pem'}")


COMMANDS = (cluster,)
"""The commands of this module, registered on ``arena`` by :mod:`arena.cli`."""
