"""``arena ladder`` and ``arena retire``: thin wrappers over :meth:`arena.Arena.ladder`,
:meth:`arena.Arena.ladder_status` and :meth:`arena.Arena.retire` (docs/ladder.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.cli.cluster import cluster_executor, play_on_cluster_options
from arena.cli.common import (
    PathOf,
    checked_by,
    db_option,
    log_option,
    reports_errors,
    show,
    unsafe_option,
    workers_option,
)
from arena.untrusted import clean_line

if TYPE_CHECKING:  # imported where used: `arena --help` loads none of them
    from rich.text import Text

    from arena.api import LadderStatus
    from arena.events import Planned

EPOCH_SETS_SHOWN = 200
""":data:`arena.ladder.epochs.DEFAULT_EPOCH_SETS`, as ``--help`` shows it without importing
the ladder (a test checks they agree)."""
LOOKAHEAD_SHOWN = 8
""":data:`arena.ladder.run.DEFAULT_LOOKAHEAD`, likewise."""


def _check_settings(name: str) -> Any:
    def check(value: Any) -> None:
        from arena.ladder.settings import LadderSettings

        LadderSettings(**{name: value}).check()

    return check


@click.command()
@db_option
@click.argument("bundled", metavar="[BUNDLED]...", nargs=-1)
@click.option("--seed", type=int, default=1, show_default=True, help="Ladder seed.")
@click.option(
    "--epoch-sets",
    type=int,
    default=EPOCH_SETS_SHOWN,
    show_default=True,
    callback=checked_by(_check_settings("epoch_sets")),
    help="Sets per deal-secret epoch: its secret is revealed once the next epoch has opened "
    "and its sets are stored.",
)
@click.option(
    "--lookahead",
    type=int,
    default=LOOKAHEAD_SHOWN,
    show_default=True,
    callback=checked_by(_check_settings("lookahead")),
    help="Sets scheduled beyond the last one whose result the scheduler has counted.",
)
@click.option(
    "--max-sets",
    type=int,
    default=None,
    callback=checked_by(_check_settings("max_sets")),
    help="Stop after this many sets  [default: run until Ctrl-C or SIGTERM]",
)
@click.option(
    "--seconds",
    type=float,
    default=None,
    callback=checked_by(_check_settings("seconds")),
    help="Hand out no new set after this many seconds  [default: run until stopped]",
)
@workers_option
@click.option(
    "--site",
    "site_dir",
    type=PathOf("folder"),
    default=None,
    help="Render the standings site into this folder every few sets and at the end.",
)
@log_option
@play_on_cluster_options
@click.option("--status", is_flag=True, help="Show the ladder as stored and exit.")
@click.option("--json", "as_json", is_flag=True, help="With --status: one JSON object.")
@unsafe_option
@reports_errors
def ladder(
    db_path: str,
    bundled: tuple[str, ...],
    seed: int,
    epoch_sets: int,
    lookahead: int,
    max_sets: int | None,
    seconds: float | None,
    workers: int | None,
    site_dir: str | None,
    log_path: str | None,
    cluster: str | None,
    cross_check: float,
    cluster_certs: Path | None,
    insecure_cluster: bool,
    status: bool,
    as_json: bool,
    unsafe: bool,
) -> None:
    """Run the ladder of the database until Ctrl-C or SIGTERM: a duplicate set at a time.

    The field is every submitted bot not retired, plus the bundled bots named (random,
    heuristic, montecarlo). A bot submitted while it runs (arena submit) plays at the next
    step; a new version replaces the old one (which keeps its results); arena retire NAME
    takes a bot out. The scheduler picks each set for what it teaches about the standings,
    with no bot waiting long (docs/ladder.md). Ctrl-C or SIGTERM ends cleanly; the same
    command resumes, playing first the sets a stop cut short.

    \b
    Example:
        arena ladder random heuristic --workers 2
        arena ladder random heuristic --status
        arena ladder random heuristic --max-sets 50 --site ladder-site
    """
    if as_json and not status:
        raise click.BadOptionUsage("as_json", "--json goes with --status (what it prints)")
    from arena.api import Arena, LadderSettings

    settings = LadderSettings(
        seed=seed, epoch_sets=epoch_sets, lookahead=lookahead, max_sets=max_sets,
        seconds=seconds,
    )  # fmt: skip
    if status:  # a read: plain lines, without rich or the run's machinery (issue 38)
        with Arena(db_path, create=False) as reading:
            found = reading.ladder_status(bundled, settings)
        if as_json:
            import json

            click.echo(json.dumps(found.to_dict(), indent=2))
        else:
            click.echo("\n".join(status_lines(found)))
        return
    from rich.console import Console
    from rich.text import Text

    from arena.cli.progress import Drawing
    from arena.views.terminal import judge_lines

    console = Console(markup=False)
    executor = cluster_executor(cluster, cluster_certs, insecure_cluster, unsafe, cross_check)
    with Drawing(console, lambda e: show([_plan_line(e)], console)) as draw:
        with Arena(
            db_path, workers=workers, executor=executor, unsafe=unsafe, on_event=draw,
            log_path=log_path,
        ) as arena:  # fmt: skip
            done = arena.ladder(bundled, settings=settings, site=site_dir or False)
    show([Text(done.result.stopped or ""), *judge_lines(done.result.judge)], console)
    show(map(Text, status_lines(done.status)), console)
    if done.site is not None:
        console.print(f"Site written to {done.site}")
    if not done.result.completed:
        sys.exit(130)


def _plan_line(e: Planned) -> Text:
    from rich.text import Text

    names = ", ".join(clean_line(name, 40) for name in e.bots)
    return Text(
        f"Ladder {e.tid}: {len(e.bots)} bots ({names}) on {e.workers} "
        f"worker(s); Ctrl-C or SIGTERM stops it, the same command resumes"
    )


def status_lines(s: LadderStatus) -> list[str]:
    """What ``arena ladder --status`` prints: the ladder, its epochs, sets in flight, the
    field in rating order: plain lines (names are cleaned to one line each)."""
    lines = [f"Ladder {s.tid} ({s.tournament.status}): {s.sets} sets stored"]
    for e in s.epochs:
        state = f"closed {e.closed_at}, secret {e.secret.secret.hex()}" if e.closed_at else "open"
        lines.append(
            f"  epoch {e.epoch} from set {e.first_step}: commitment {e.secret.commitment} ({state})"
        )
    if s.in_flight:
        steps = ", ".join(str(f.step) for f in s.in_flight[:10])
        more = f" and {len(s.in_flight) - 10} more" if len(s.in_flight) > 10 else ""
        if s.tournament.status == "running":
            lines.append(f"  sets in flight: {steps}{more}")
        else:  # paused: nothing plays; these come first when the same command resumes it
            lines.append(f"  paused; cut short by the stop, played first on resume: {steps}{more}")
    left = {m.version_id: m.left_reason for m in s.members if m.left_reason is not None}
    for r in s.standings:
        shown = "" if r.low is None or r.high is None else f" [{r.low:.0f}, {r.high:.0f}]"
        name = clean_line(r.name, 40)
        gone = left.get(r.bot_version_id)
        mark = f"  ({gone})" if gone else ""
        rating = "-" if r.rating is None else f"{r.rating:7.0f}"
        rank = "-" if r.rank is None else str(r.rank)
        lines.append(f"  {rank:>3}. {name:<24} {rating}{shown}  {r.units} sets{mark}")
    for m in s.members:
        if m.left_reason is not None:
            lines.append(
                f"  left: {clean_line(m.name, 40)} (version id {m.version_id}), "
                f"{m.left_reason} at set {m.left_step}"
            )
    return lines


@click.command("retire")
@db_option
@click.argument("name")
@click.option(
    "--force", is_flag=True, help="Retire it even if it belongs to another owner key (the "
    "organiser's override).",
)  # fmt: skip
@reports_errors
def retire_command(db_path: str, name: str, force: bool) -> None:
    """Take a submitted bot out of the ladder's field: it keeps its results, plays no new set.

    Only its owner (the owner key that submitted it) may retire it, or the organiser with
    --force; a bundled bot cannot be retired (it plays only when named). Submitting it again
    (arena submit FILE, the same file will do) brings it back at the next step.

    \b
    Example:
        arena retire greedy
    """
    from arena.api import Arena

    with Arena(db_path) as arena:
        version, changed = arena.retire(name, force=force)
    shown = clean_line(version.name, 60)
    click.echo(f"Retired {shown}" if changed else f"{shown} was already retired")


COMMANDS = (ladder, retire_command)
