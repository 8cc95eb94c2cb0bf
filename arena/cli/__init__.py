"""The ``arena`` command line: a thin click layer over the library (no game logic here).

Every command takes ``--db`` (default ``arena.db``), exits 0 on success, 1 on a reported
:class:`~arena.errors.ArenaError` (one line, no traceback) and 2 on a usage error.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

import click

from arena import __version__
from arena.cli import cluster as cli_cluster
from arena.cli.cluster import cluster_executor, cluster_options, play_on_cluster_options
from arena.cli.common import (
    Group,
    PathOf,
    checked_by,
    db_option,
    log_option,
    reports_errors,
    show,
    source_bytes_option,
    unsafe_option,
    workers_option,
)
from arena.errors import ArenaError

LAZY_COMMANDS: dict[str, str] = {
    **{name: f"arena.cli.lists:{name}" for name in ("bots", "tournaments", "matches")},
    **{name: f"arena.cli.lists:{name}" for name in ("faults", "replay", "logs")},
    "compare": "arena.cli.compare:compare",
    "ladder": "arena.cli.ladder:ladder",
    "retire": "arena.cli.ladder:retire_command",
    "render": "arena.cli.site:render",
    "serve": "arena.cli.site:serve",
    "authors": "arena.cli.web:authors",
    "web": "arena.cli.web:web",
    "check": "arena.cli.check:check",
    "play": "arena.cli.play:play",
}
"""The commands of modules of their own, by name: each module is imported when its command
is looked up, so that a command loads only its own (issue 38: ``arena ladder --status``,
``arena submit``). ``tests/test_cli_lazy.py`` checks it against each module's ``COMMANDS``."""


@click.group(
    cls=Group,
    lazy=LAZY_COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Documentation: docs/ in the repository (getting-started, writing-a-bot, rules, "
    "protocol, tournaments, ladder, site, web, statistics, evaluation, sandbox, schema, "
    "benchmarks, api); "
    "`make docs` builds it into a site.",
)
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Euchre Arena: Three-Handed (Cutthroat) Euchre tournaments for sandboxed bots.

    \b
    Example:
        arena submit my_bot.py
        arena run --rounds 4
        arena standings
    """
    # The library's logger is silent until its user configures logging (arena/__init__.py);
    # the command line is a program of its own: a warning that nothing else takes (a run's log
    # file takes them) reaches the terminal, as Python does for any program.
    silent = logging.getLogger("arena")
    for handler in [h for h in silent.handlers if isinstance(h, logging.NullHandler)]:
        silent.removeHandler(handler)


@main.command()
@click.option("--seed", type=int, default=1, show_default=True, help="Match seed.")
@click.argument("bot_files", metavar="[FILE|BOT]...", nargs=-1)
@db_option
@reports_errors
def demo(seed: int, bot_files: tuple[str, ...], db_path: str) -> None:
    """Play one match in-process and print it hand by hand (trusted bots only).

    Up to three bot files, bundled bots (random, heuristic, montecarlo) or your own submitted
    bots by name (another author's bot is refused: it would run unsandboxed); bundled bots take
    the empty seats. With none, the three bundled bots play.

    \b
    Example:
        arena demo --seed 7
        arena demo my_bot.py              # against heuristic and random
    """
    from arena.cli.demo import run_demo

    click.echo(run_demo(seed, list(bot_files), db_path))


# --- sandbox commands ---


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--no-live", is_flag=True, help="Only probe; do not play a sandboxed match.")
@click.option(
    "--cluster",
    metavar="ADDR",
    default=None,
    help="Report every worker of the Dask cluster at ADDR instead (versions, sandbox layers, "
    "listeners).",
)
@click.option(
    "--syscalls",
    "show_syscalls",
    is_flag=True,
    help="Print the system calls a bot may make (the seccomp allowlist), with why, and exit.",
)
@cluster_options
@db_option
@reports_errors
def doctor(
    as_json: bool,
    no_live: bool,
    cluster: str | None,
    cluster_certs: Path | None,
    insecure_cluster: bool,
    show_syscalls: bool,
    db_path: str,
) -> None:
    """Show which sandbox layers work on this machine and check the real sandbox live.

    Exits 1 when bots cannot be sandboxed here (or the live check finds a problem).

    \b
    Example:
        arena doctor
        ARENA_SANDBOX_DISABLE=bwrap arena doctor --json
        arena doctor --cluster tls://10.0.0.5:8786 --cluster-certs ~/.arena-cluster
        arena doctor --syscalls
    """
    import json

    if show_syscalls:
        from arena.sandbox.doctor import render_syscalls, syscalls

        rows = syscalls()
        click.echo(json.dumps(rows, indent=2) if as_json else render_syscalls(rows))
        return

    if cluster is not None:
        import dataclasses

        from arena.cluster.client import ClusterError
        from arena.cluster.client import doctor as cluster_doctor

        reports, lines, problem = cluster_doctor(
            cluster, certs=cluster_certs, insecure=insecure_cluster
        )
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


@main.command()
@db_option
@click.argument("file", type=PathOf("bot", exists=True))
@click.option("--name", help="Name to store the bot under (default: Bot.name, else file stem).")
@click.option(
    "--force",
    is_flag=True,
    help="Store it even if its name belongs to another owner key (the organiser's override).",
)
@source_bytes_option
@unsafe_option
@reports_errors
def submit(
    db_path: str,
    file: str,
    name: str | None,
    force: bool,
    max_source_bytes: int | None,
    unsafe: bool,
) -> None:
    """Check a bot in the sandbox and store it as the bot's new version.

    FILE is a source file of any supported language (picked by its extension: .py, .c, .cpp,
    .rs, .js, .java, .go) or a directory with a manifest (bot.toml or arena.json) for a bot of
    several files (docs/writing-a-bot.md).

    The bot must load and play smoke matches against the bundled bots without a fault;
    otherwise nothing is stored and the fault is shown with the line of the bot's file it
    happened on. Submitting the same content again stores nothing (a retired bot rejoins
    the ladder all the same). A name belongs to whoever
    stored it first (their owner key, ~/.config/euchre-arena/owner.key, or $ARENA_OWNER_KEY);
    the bundled bots' names are reserved.

    \b
    Example:
        arena submit my_bot.py --name greedy
    """
    from arena.api import Arena

    with Arena(db_path, unsafe=unsafe) as arena:
        version, created, rejoined = arena.submit(
            file, name=name, force=force, max_source_bytes=max_source_bytes
        )
    if created:
        said = f"Stored {version.name} version {version.version} (sha256 {version.sha256[:12]})"
    else:
        said = f"{version.name}: same content as version {version.version}; nothing stored"
    if rejoined:  # it was retired: a running ladder plays it from its next set
        said += f"; {version.name} rejoins the ladder"
    click.echo(said)


def _check_rounds(rounds: int) -> None:
    from arena.tournaments.tournament import check_rounds

    check_rounds(rounds)


def _check_limit(name: str) -> Callable[[float], object]:
    def check(seconds: float) -> None:
        from arena.tournaments.tournament import run_limits

        run_limits(**{name: seconds})

    return check


@main.command()
@db_option
@click.argument("bots_or_files", metavar="[FILE|BOT]...", nargs=-1)
@click.option(
    "--rounds",
    type=int,
    default=None,
    callback=checked_by(_check_rounds),
    help="Deal seeds per set of three bots, each played in all 6 seatings  [default: 20; "
    "with --until-separated, the most: 200]",
)
@click.option(
    "--until-separated",
    is_flag=True,
    help="Add rounds until every pair of bots adjacent in the standings is separated at 95% "
    "(or --rounds is reached), then say why it stopped; see docs/tournaments.md.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Tournament seed.")
@workers_option
@click.option(
    "--out",
    "out_dir",
    type=PathOf("folder"),
    default=None,
    help="Folder to render the standings site into at the end  [default: the database's "
    "name with -site: arena-site/ for arena.db]",
)
@click.option("--no-site", is_flag=True, help="Do not render the site.")
@log_option
@play_on_cluster_options
@click.option(
    "--decision-seconds",
    type=float,
    default=None,
    callback=checked_by(_check_limit("decision_seconds")),
    help="CPU seconds per bot decision, its own process (5x on the wall clock)  [default: 1.0]",
)
@click.option(
    "--match-cpu-seconds",
    type=float,
    default=None,
    callback=checked_by(_check_limit("match_cpu_seconds")),
    help="CPU budget of each bot per match  [default: 20.0]",
)
@click.option(
    "--clock-bank",
    "clock_bank_seconds",
    type=float,
    default=None,
    callback=checked_by(_check_limit("clock_bank_seconds")),
    help="Each bot's match clock: wall-clock seconds for the whole match, waiting and loading "
    "included  [default: 1.5 x --match-cpu-seconds: 30]",
)
@click.option(
    "--clock-increment",
    "clock_increment_seconds",
    type=float,
    default=None,
    callback=checked_by(_check_limit("clock_increment_seconds")),
    help="Seconds added to a bot's match clock at each decision  [default: --decision-seconds "
    "/ 4: 0.25]",
)
@click.option(
    "--secret-file",
    type=PathOf("file", exists=True),
    default=None,
    help="Deal from this deal secret (from `arena tournaments --export`), to reproduce a "
    "tournament of another database.",
)
@source_bytes_option
@unsafe_option
@reports_errors
def run(
    db_path: str,
    bots_or_files: tuple[str, ...],
    rounds: int | None,
    until_separated: bool,
    seed: int,
    workers: int | None,
    out_dir: str | None,
    no_site: bool,
    log_path: str | None,
    cluster: str | None,
    cross_check: float,
    cluster_certs: Path | None,
    insecure_cluster: bool,
    decision_seconds: float | None,
    match_cpu_seconds: float | None,
    clock_bank_seconds: float | None,
    clock_increment_seconds: float | None,
    secret_file: str | None,
    max_source_bytes: int | None,
    unsafe: bool,
) -> None:
    """Run a duplicate round-robin tournament and store every match.

    Every set of three bots plays --rounds deal seeds, each in all 6 seatings. Bot files
    given are registered (name: the file's Bot.name, else its stem); random, heuristic and
    montecarlo are the bundled bots; any other name picks a submitted bot's latest version;
    with none, every submitted bot plays. Rerunning the same command after Ctrl-C or a crash
    plays only the missing matches; a second run of a tournament already running is refused.

    \b
    Example:
        arena run my_bot.py heuristic random --rounds 4
        arena run --workers 2            # every submitted bot (or: greedy heuristic my_bot.py)
        arena run --cluster tls://10.0.0.5:8786 --cluster-certs DIR   # on a Dask cluster
        arena run heuristic montecarlo random --until-separated --rounds 500
    """

    from rich.console import Console

    from arena.api import Arena, RunSettings
    from arena.cli.progress import Drawing
    from arena.views import terminal as views

    console = Console(markup=False)
    executor = cluster_executor(cluster, cluster_certs, insecure_cluster, unsafe, cross_check)
    settings = RunSettings(
        rounds=rounds, until_separated=until_separated, decision_seconds=decision_seconds,
        match_cpu_seconds=match_cpu_seconds, clock_bank_seconds=clock_bank_seconds,
        clock_increment_seconds=clock_increment_seconds, secret_file=secret_file,
        max_source_bytes=max_source_bytes,
    )  # fmt: skip
    with Drawing(console, lambda e: show(views.plan_lines(e), console)) as draw:
        with Arena(
            db_path, workers=workers, executor=executor, unsafe=unsafe, on_event=draw,
            log_path=log_path,
        ) as arena:  # fmt: skip
            done = arena.run(
                bots_or_files, seed=seed, settings=settings,
                site=False if no_site else (out_dir or True),
            )  # fmt: skip
    show(views.run_lines(done.result, db_path, done.log_path), console)
    if not done.completed:
        click.echo(
            "Interrupted: finished matches are stored; run the same command again to resume.",
            err=True,
        )
        sys.exit(130)
    if done.site is not None:
        console.print(f"Site written to {done.site}")


@main.command()
@db_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON object: the tournament, counts, and one object per bot.",
)
@click.option(
    "--tournament", "tid", help="Tournament id (or prefix)  [default: the latest round robin]"
)
@click.option(
    "--collusion",
    is_flag=True,
    help="Print the full clone and kingmaking reports instead (with --json: as one object).",
)
@click.option(
    "--refit",
    is_flag=True,
    help="Recompute (and store) the standings even when the stored ones are up to date.",
)
@reports_errors
def standings(db_path: str, as_json: bool, tid: str | None, collusion: bool, refit: bool) -> None:
    """Show the standings of the latest (or a given) tournament.

    Per bot: matches, wins, mean place, faults (matches forfeited) and a Plackett-Luce rating
    with a 95% interval; then how often each bot placed above each other one, each bot's
    duplicate score, the seat and dealer bias, non-transitive cycles, and each faulty bot's
    faults in one line each (arena faults shows them all). Reads the standings stored by
    `arena run`, and the reports stored with them; recomputes them when matches were added
    since (docs/statistics.md and
    docs/evaluation.md say what each number means). The latest tournament is the latest round
    robin; a comparison (arena compare) is shown with --tournament ID: its test and verdict.

    \b
    Example:
        arena standings
        arena standings --json | jq '.bots[0].name'
        arena standings --collusion
    """
    import json

    from arena.api import Arena
    from arena.views import collusion as collusion_views
    from arena.views import terminal as views
    from arena.views.reports import terminal

    with Arena(db_path, create=refit) as arena:  # a read, unless the standings are refitted
        t = arena.tournament(tid)
        if t.is_comparison:
            from arena.cli import compare as cli_compare

            cli_compare.show_comparison(arena.comparison(t.id), as_json=as_json)
            return
        report = arena.report(t.id, refit=refit)
        duplicate = arena.duplicate(report, save=refit)
        retired = {s.name for s in report.table if t.is_ladder and arena.is_retired(s.name)}
    if collusion and as_json:
        click.echo(json.dumps(collusion_views.collusion_json(report)))
    elif collusion:
        show([collusion_views.clone_table(report.clones, report.names)])
        show([collusion_views.kingmaking_table(report.kingmaking, report.names)])
    elif as_json:
        doc = {**views.standings_json(report), **duplicate.to_dict()}
        click.echo(json.dumps(doc, indent=2))
    else:
        show([*views.standings_lines(report, retired), *terminal(duplicate)])


@main.command()
@db_option
@click.argument("tid", metavar="[TOURNAMENT]", required=False)
@click.option(
    "--epoch",
    type=click.IntRange(0),
    default=None,
    help="Verify this closed epoch of a ladder (TOURNAMENT: the ladder; default: the latest).",
)
@reports_errors
def verify(db_path: str, tid: str | None, epoch: int | None) -> None:
    """Recompute every stored deal of a finished tournament from its revealed secret.

    Checks the secret against the tournament's commitment, each match's public seed against
    the schedule, each hand's cards, dealer and up-card, and the running totals the site shows
    against the stored matches. Prints "N deals verified", or which match or total differs
    (exit 1). TOURNAMENT: an id or prefix (default: the latest round robin).
    A ladder is verified an epoch at a time, once the epoch is closed (--epoch N).

    \b
    Example:
        arena verify 8b92a1
        arena verify 74ba87 --epoch 0
    """
    from arena.api import Arena

    with Arena(db_path, create=False) as arena:
        report = arena.verify(tid, epoch=epoch)
    if not report.ok:
        raise ArenaError(report.line())
    click.echo(report.line())


for _command in cli_cluster.COMMANDS:  # the cluster's options are loaded anyway (run, doctor)
    main.add_command(_command)
