"""``arena compare A B``: the sequential test of "is A stronger than B?" on the command line.

Thin, like the rest of the command line: the comparison is :mod:`arena.tournaments.compare`, the
test :mod:`arena.stats.sequential`, the run :func:`arena.tournaments.tournament.run`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli.common import (
    db_option,
    log_option,
    reports_errors,
    source_bytes_option,
    unsafe_option,
    workers_option,
)
from arena.untrusted import clean_line

if TYPE_CHECKING:  # imported where used: `arena --help` loads none of them (nor scipy)
    from rich.console import Console
    from rich.table import Table

    from arena.tournaments.compare import Comparison

THIRD_SHOWN = "heuristic"
""":data:`arena.tournaments.compare.DEFAULT_THIRD`, as ``--help`` shows it without importing the
comparison (and its statistics) first; a test checks that the two agree."""
MAX_SETS_SHOWN = 1000
""":data:`arena.tournaments.compare.DEFAULT_MAX_SETS`, likewise."""

_OPEN_UNIT = click.FloatRange(0, 1, min_open=True, max_open=True)
_ERROR_RATE = click.FloatRange(0, 0.5, min_open=True, max_open=True)


@click.command()
@db_option
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option(
    "--third",
    default=THIRD_SHOWN,
    show_default=True,
    help="The bot in the third seat (a file or a bot name; may be A or B).",
)
@click.option("--p0", type=_OPEN_UNIT, default=0.50, show_default=True, help="H0: rate <= p0.")
@click.option("--p1", type=_OPEN_UNIT, default=0.55, show_default=True, help="H1: rate >= p1.")
@click.option(
    "--alpha",
    type=_ERROR_RATE,
    default=0.05,
    show_default=True,
    help="Chance of accepting H1 when the rate is p0.",
)
@click.option(
    "--beta",
    type=_ERROR_RATE,
    default=0.05,
    show_default=True,
    help="Chance of accepting H0 when the rate is p1.",
)
@click.option(
    "--max-sets",
    type=click.IntRange(1),
    default=MAX_SETS_SHOWN,
    show_default=True,
    help="Sets after which an undecided test ends inconclusive (6 matches each).",
)
@workers_option
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the deals.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@log_option
@source_bytes_option
@unsafe_option
@reports_errors
def compare(
    db_path: str,
    a: str,
    b: str,
    third: str,
    p0: float,
    p1: float,
    alpha: float,
    beta: float,
    max_sets: int,
    workers: int | None,
    seed: int,
    as_json: bool,
    log_path: str | None,
    max_source_bytes: int | None,
    unsafe: bool,
) -> None:
    """Is A stronger than B? Play duplicate sets until a sequential test decides.

    A and B are bot files or bot names (bundled: random, heuristic, montecarlo). Each set is
    a fresh deal played in all 6 seatings of A, B and the third bot, sandboxed, in parallel;
    its score is A's placed-above rate over B. After each complete set (in set order) a
    test by betting decides between H0 (rate <= p0) and H1 (rate >= p1) with error rates at
    most alpha and beta, or plays on; after --max-sets it ends inconclusive. The interval
    shown is the rates the same test has not rejected. The same command
    again continues an interrupted comparison. Exit code 0 whatever the decision (read it
    from the verdict or --json), 130 when interrupted. docs/evaluation.md explains it all.

    \b
    Example:
        arena compare my_bot_v2.py my_bot --p1 0.55
        arena compare heuristic random --p1 0.75 --json
        arena compare montecarlo heuristic --third random --max-sets 300
    """
    from rich.console import Console

    from arena.api import Arena
    from arena.cli.progress import Drawing
    from arena.events import Planned
    from arena.stats.sequential import Design
    from arena.tournaments.entrants import SameBot

    if p0 >= p1:
        raise click.BadParameter(f"need --p0 < --p1 (have {p0:g} and {p1:g})", param_hint="--p0")
    if a == b or (Path(a).is_file() and Path(b).is_file() and Path(a).samefile(b)):
        raise click.BadParameter("A and B are the same bot", param_hint="A B")
    # Progress and verdict on stderr with --json, so that stdout is the JSON object alone.
    console = Console(markup=False, stderr=as_json)

    def started(e: Planned) -> None:
        console.print(_header(arena.comparison(e.tid), e.workers), soft_wrap=True)
        console.print(f"Deal commitment {e.commitment}", soft_wrap=True)

    try:
        with Drawing(console, started) as draw, Arena(
            db_path, workers=workers, unsafe=unsafe, on_event=draw, log_path=log_path
        ) as arena:  # fmt: skip
            done = arena.compare(
                a, b, third, design=Design(p0, p1, alpha, beta, max_sets), seed=seed,
                max_source_bytes=max_source_bytes,
            )  # fmt: skip
    except SameBot as e:
        raise click.UsageError(clean_line(str(e), 200)) from None
    _report(done.comparison, console, as_json)
    console.print(
        f"Played {done.result.played} matches in {done.result.seconds:.1f} s; "
        f"{done.comparison.matches} stored in {db_path} (log: {done.log_path})",
        soft_wrap=True,
    )
    if not done.result.completed:
        click.echo(
            "Interrupted: finished matches are stored; run the same command again to resume.",
            err=True,
        )
        sys.exit(130)


def _header(c: Comparison, workers: int) -> str:
    d, (a, b) = c.design, c.names()
    stored = f", {c.matches} matches already stored" if c.matches else ""
    return (
        f"Comparison {c.tid}: {a} (A) against {b} (B), third seat "
        f"{clean_line(c.bots['third'].name, 60)}; H0 rate <= {d.p0:g}, H1 rate >= {d.p1:g}, "
        f"alpha {d.alpha:g}, beta {d.beta:g}, at most {d.max_sets} sets{stored}; "
        f"{workers} worker{'s' * (workers != 1)}"
    )


def _report(c: Comparison, console: Console, as_json: bool) -> None:
    """The comparison's line and verdict (and its JSON object on stdout)."""
    import json

    if as_json:
        click.echo(json.dumps(c.to_dict(), indent=2))
    console.print(c.result.line(), soft_wrap=True)
    console.print(c.verdict(), soft_wrap=True)


def roles_table(c: Comparison) -> Table:
    """How A, B and the third fared in the sets the test counted."""
    from arena.views.tables import fit, grid, name_column, plain

    t = grid(f"In the {c.test.sets} sets counted")
    t.add_column("role")
    name_column(t)
    for col in ("matches", "wins", "mean place", "mean points"):
        t.add_column(col, justify="right", no_wrap=True)
    for r in c.roles:
        mp, pts = r.mean_place, r.mean_points
        t.add_row(
            {"a": "A", "b": "B"}.get(r.role, r.role),
            plain(f"{r.bot.name} v{r.bot.version}", 70),
            str(r.matches),
            str(r.wins),
            "-" if mp is None else f"{mp:.2f}",
            "-" if pts is None else f"{pts:.2f}",
        )
    return fit(t)


def show_comparison(c: Comparison, *, as_json: bool) -> None:
    """``arena standings --tournament ID`` of a comparison: its test, verdict and roles."""
    from rich.console import Console

    console = Console(markup=False, stderr=as_json)
    if not as_json:
        console.print(f"Comparison {c.tid} ({c.status}): {c.matches} matches", soft_wrap=True)
        console.print(roles_table(c))
    _report(c, console, as_json)


COMMANDS = (compare,)
"""The commands of this module, added to ``arena`` by :mod:`arena.cli`."""
