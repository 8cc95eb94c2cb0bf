"""``arena cluster init`` and the options every cluster command shares (``--cluster-certs``,
``--insecure-cluster``): thin wrappers over :mod:`arena.cluster.security` (docs/cluster.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from arena.cli.common import reports_errors
from arena.cluster.security import commands, init_certificates

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
        help="The certificates of `arena cluster init` (ca.pem, client.pem, client.key) for a "
        "tls:// cluster  [env: ARENA_CLUSTER_CERTS]",
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
@reports_errors
def init(directory: Path, host: str, port: int) -> None:
    """Make a CA and TLS certificates in DIRECTORY (mode 0700) and print the exact commands.

    Copy ca.pem with scheduler.* to the scheduler, ca.pem with worker.* to each worker; the
    arena machine keeps ca.pem and client.*; ca.key stays here (it signs certificates).

    \b
    Example:
        arena cluster init ~/.arena-cluster --host 10.0.0.5
    """
    made = init_certificates(directory, host)
    click.echo(f"made {len(made)} certificates in {directory} (keys readable by you only)")
    for line in commands(directory, host, port):
        click.echo(line)


COMMANDS = (cluster,)
"""The commands of this module, registered on ``arena`` by :mod:`arena.cli`."""
