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


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--no-live", is_flag=True, help="Only probe; do not play a sandboxed match.")
@click.option(
    "--cluster",
    metavar="ADDR",
    default=None,
    help="Report every worker of the Dask cluster at ADDR instead (versions, sandbox layers).",
)
@db_option
@reports_errors
def doctor(as_json: bool, no_live: bool, cluster: str | None, db_path: str) -> None:
    """Show which sandbox layers work on this machine and check the real sandbox live.

    Exits 1 when bots cannot be sandboxed here (or the live check finds a problem).

    \b
    Example:
        arena doctor
        ARENA_SANDBOX_DISABLE=bwrap arena doctor --json
        arena doctor --cluster tcp://10.0.0.5:8786
    """
    import json

    if cluster is not None:
        import dataclasses

        from arena.cluster import ClusterError
        from arena.cluster import doctor as cluster_doctor

        reports, lines, problem = cluster_doctor(cluster)
        if as_json:
            click.echo(json.dumps([dataclasses.asdict(r) for r in reports], indent=2))
        else:
            click.echo("\n".join(lines))
        if problem:
            raise ClusterError(problem)
        return

    from arena.sandbox.doctor import diagnose, render

    report = diagnose(live=not no_live, db_path=db_path)
    click.echo(json.dumps(report, indent=2) if as_json else render(report))
    live = report["live"]
    if live is not None and not live["ok"]:
        sys.exit(1)


# --- tournament commands ---


def unsafe_option(fn: F) -> F:
    """The shared ``--unsafe-no-sandbox`` flag (trusted bots only)."""
    return click.option(
        "--unsafe-no-sandbox",
        "unsafe",
        is_flag=True,
        help="Run bots without the sandbox's isolation layers (trusted bots only).",
    )(fn)


@main.command()
@db_option
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--name", help="Name to store the bot under (default: Bot.name, else file stem).")
@unsafe_option
@reports_errors
def submit(db_path: str, file: str, name: str | None, unsafe: bool) -> None:
    """Check a bot file in the sandbox and store it as the bot's new version.

    The bot must load and play smoke matches against the bundled bots without a fault;
    otherwise nothing is stored. Submitting the same content again stores nothing.

    \b
    Example:
        arena submit my_bot.py --name greedy
    """
    from arena.sandbox import Limits
    from arena.store import Store
    from arena.tournament import submit as submit_bot

    with Store(db_path) as store:
        version, created = submit_bot(store, file, name, Limits().to_dict(), unsafe=unsafe)
    if created:
        click.echo(
            f"Stored {version.name} version {version.version} (sha256 {version.sha256[:12]})"
        )
    else:
        click.echo(f"{version.name}: same content as version {version.version}; nothing stored")


@main.command()
@db_option
@click.argument("bots_or_files", metavar="[FILE|BOT]...", nargs=-1)
@click.option(
    "--rounds",
    type=int,
    default=None,
    help="Deal seeds per set of three bots, each played in all 6 seatings  [default: 20]",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Tournament seed.")
@click.option("--workers", type=int, default=None, help="Worker processes  [default: usable cores]")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="site",
    show_default=True,
    help="Folder to render the standings site into at the end.",
)
@click.option("--no-site", is_flag=True, help="Do not render the site.")
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Log file of the run, worker processes included  [default: the database's name with .log]",
)
@click.option(
    "--cluster",
    metavar="ADDR",
    default=None,
    help="Play the matches on the Dask cluster whose scheduler is ADDR (tcp://HOST:8786) "
    "instead of local worker processes; see docs/cluster.md.",
)
@click.option(
    "--decision-seconds",
    type=click.FloatRange(0, 3600, min_open=True),
    default=None,
    help="Wall-clock limit per bot decision  [default: 1.0]",
)
@click.option(
    "--match-cpu-seconds",
    type=click.FloatRange(0, 3600, min_open=True),
    default=None,
    help="CPU budget of each bot per match  [default: 20.0]",
)
@unsafe_option
@reports_errors
def run(
    db_path: str,
    bots_or_files: tuple[str, ...],
    rounds: int | None,
    seed: int,
    workers: int | None,
    out_dir: str,
    no_site: bool,
    log_path: str | None,
    cluster: str | None,
    decision_seconds: float | None,
    match_cpu_seconds: float | None,
    unsafe: bool,
) -> None:
    """Run a duplicate round-robin tournament and store every match.

    Every set of three bots plays --rounds deal seeds, each in all 6 seatings. Bot files
    given are registered (name: the file's Bot.name, else its stem); a name picks a submitted
    bot's latest version; with neither, every submitted bot plays. Rerunning the same command
    after Ctrl-C or a crash plays only the missing matches.

    \b
    Example:
        arena run bots/heuristic.py bots/montecarlo.py bots/random_bot.py --rounds 4
        arena run --workers 2            # every submitted bot
        arena run greedy heuristic my_bot.py
        arena run --cluster tcp://10.0.0.5:8786   # on a Dask cluster
    """
    from pathlib import Path

    from rich.console import Console

    from arena.engine import Rules
    from arena.sandbox import Limits
    from arena.scheduler import DEFAULT_ROUNDS
    from arena.store import Store
    from arena.tournament import (
        default_workers,
        plan,
        resolve,
        standings_table,
    )
    from arena.tournament import run as run_tournament

    rounds = DEFAULT_ROUNDS if rounds is None else rounds
    if rounds < 1:
        raise click.BadParameter(f"must be at least 1, not {rounds}", param_hint="--rounds")
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise click.BadParameter(f"must be at least 1, not {workers}", param_hint="--workers")
    console = Console()
    executor = None
    if cluster is not None:  # checked first: a cluster that cannot play fails in one line
        from arena.cluster import open_executor

        executor = open_executor(cluster, unsafe_no_sandbox=unsafe)
        workers = executor.workers
    # The limits are part of the tournament's identity: other limits, another tournament.
    limits = Limits().to_dict()
    if decision_seconds is not None:
        limits["decision_seconds"] = decision_seconds
    if match_cpu_seconds is not None:
        limits["match_cpu_seconds"] = match_cpu_seconds
    with Store(db_path) as store:
        versions = resolve(store, bots_or_files)
        the_plan = plan(store, versions, rounds=rounds, seed=seed, rules=Rules(), limits=limits)
        done = the_plan.total - len(the_plan.todo)
        console.print(
            f"Tournament {the_plan.tid}: {len(versions)} bots, {the_plan.total} matches"
            + (f" ({done} already stored)" if done else "")
            + f", {workers} worker{'s' * (workers != 1)}"
        )
        log_file = Path(log_path) if log_path else Path(db_path).with_suffix(".log")
        try:
            result = run_tournament(
                store,
                the_plan,
                workers=workers,
                unsafe=unsafe,
                console=console,
                log_path=log_file,
                executor=executor,
            )
        finally:
            if executor is not None:  # already shut down when matches ran; idempotent
                executor.shutdown(wait=False, cancel_futures=True)
    console.print(standings_table(result.standings, title=f"Standings of {result.tid}"))
    rate = result.played / result.seconds if result.seconds > 0 else 0.0
    console.print(
        f"Played {result.played} matches in {result.seconds:.1f} s ({rate:.1f}/s); "
        f"{result.already + result.played}/{result.total} stored in {db_path} (log: {log_file})",
        soft_wrap=True,
    )
    if not result.completed:
        click.echo(
            "Interrupted: finished matches are stored; run the same command again to resume.",
            err=True,
        )
        sys.exit(130)
    if not no_site:
        try:
            from arena.site import render_site
        except ImportError:
            click.echo("(no site: arena.site is not available)", err=True)
        else:
            index = render_site(db_path, out_dir)
            console.print(f"Site written to {index}")


@main.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, one object per bot.")
@click.option("--tournament", "tid", help="Tournament id (or prefix)  [default: the latest]")
@click.option(
    "--refit",
    is_flag=True,
    help="Recompute (and store) the standings even when the stored ones are up to date.",
)
@reports_errors
def standings(db_path: str, as_json: bool, tid: str | None, refit: bool) -> None:
    """Show the standings of the latest (or a given) tournament.

    Per bot: matches, wins, mean place, faults (matches forfeited) and a Plackett-Luce rating
    with a 95% interval; then how often each bot placed above each other one. Reads the
    standings stored by `arena run`; recomputes them when matches were added since
    (docs/statistics.md says what each number means).

    \b
    Example:
        arena standings
        arena standings --json | jq '.[0].name'
    """
    import json

    from rich.console import Console

    from arena.ratings import to_json
    from arena.store import Store
    from arena.tournament import current_standings, pairwise_table, standings_table

    with Store(db_path, create=False) as store:
        t = store.tournament(tid)
        table = current_standings(store, t["id"], refit=refit)
        versions = {
            v.id: {"version": v.version, "sha256": v.sha256}
            for v in store.tournament_entrants(t["id"])
        }
    if as_json:
        click.echo(json.dumps(to_json(table, versions), indent=2))
        return
    console = Console()
    done = sum(s.matches for s in table) // 3
    console.print(
        f"Tournament {t['id']} ({t['status']}): {done}/{t['total_matches']} matches, "
        f"seed {t['seed']}, {t['rounds']} rounds"
    )
    console.print(standings_table(table))
    console.print(pairwise_table(table))


@main.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of versions.")
@reports_errors
def bots(db_path: str, as_json: bool) -> None:
    """List the submitted bots and their versions.

    \b
    Example:
        arena bots
    """
    import json

    from rich.console import Console
    from rich.table import Table

    from arena.store import Store

    with Store(db_path, create=False) as store:
        rows = store.bot_listing()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo(f"No bots in {db_path} yet (arena submit FILE)")
        return
    table = Table(title="Bots")
    for col in ("name", "version", "sha256", "author", "file", "submitted"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["name"],
            str(r["version"]),
            r["sha256"][:12],
            r["author"] or "",
            r["filename"],
            r["submitted_at"],
        )
    Console().print(table)


@main.command()
@db_option
@click.argument("match_id")
@reports_errors
def replay(db_path: str, match_id: str) -> None:
    """Print a stored match hand by hand (MATCH_ID: the id or a unique prefix).

    \b
    Example:
        arena replay 3f2a9c
    """
    from arena.store import Store
    from arena.tournament import replay_text

    with Store(db_path, create=False) as store:
        click.echo(replay_text(store, match_id))


@main.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of tournaments.")
@reports_errors
def tournaments(db_path: str, as_json: bool) -> None:
    """List the tournaments in the database, the most recently run first.

    \b
    Example:
        arena tournaments
        arena standings --tournament 8b92a1
    """
    import json

    from rich.console import Console
    from rich.table import Table

    from arena.store import Store

    with Store(db_path, create=False) as store:
        rows = store.tournaments()
    if as_json:
        keep = ("id", "status", "seed", "rounds", "total_matches", "done", "created_at")
        click.echo(json.dumps([{k: r[k] for k in (*keep, "updated_at")} for r in rows], indent=2))
        return
    if not rows:
        click.echo(f"No tournaments in {db_path} yet (arena run)")
        return
    table = Table(title="Tournaments")
    table.add_column("id", no_wrap=True, min_width=16)
    for col in ("status", "bots", "matches", "seed", "rounds", "last run"):
        table.add_column(col)
    for r in rows:
        bots = ", ".join(b["name"] for b in json.loads(r["config"])["bots"])
        table.add_row(
            r["id"],
            r["status"],
            bots,
            f"{r['done']}/{r['total_matches']}",
            str(r["seed"]),
            str(r["rounds"]),
            r["updated_at"],
        )
    Console().print(table)


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
    from arena.site import data, render_site
    from arena.store import Store
    from arena.tournament import refresh_standings

    data.open_db(db_path)  # a missing or foreign file: one clear error before any write
    with Store(db_path, create=False) as store:
        refresh_standings(store)  # the site shows stored standings: bring them up to date
    index = render_site(db_path, out_dir, with_logs=with_logs)
    click.echo(f"Site written to {index}")


@main.command()
@db_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="site",
    show_default=True,
    help="Folder of a rendered site (rendered from --db first when it has none).",
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
def serve(db_path: str, out_dir: str, port: int, host: str, quiet: bool) -> None:
    """Serve the site on this machine only (127.0.0.1), until Ctrl-C.

    Serves the site already in --out; when there is none yet, renders it from --db first.

    \b
    Example:
        arena render && arena serve --port 8000
    """
    from pathlib import Path

    from arena.site.serve import check_loopback, make_server

    check_loopback(host)
    if not (Path(out_dir) / "index.html").is_file() and Path(db_path).is_file():
        from arena.site import render_site

        click.echo(f"Site written to {render_site(db_path, out_dir)}")
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
