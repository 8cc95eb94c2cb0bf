"""CPU seconds of the read commands, ``arena ladder --status`` and ``arena standings`` (the
latest round robin, ``--json``, and the ladder), on databases already made, this checkout
side by side with another (issue 38's goal: under 0.3 s of CPU at 100k stored matches).

    python bench/site_db.py --matches 100000 big.db
    arena standings --db big.db --refit; arena standings --db big.db --tournament LADDER --refit
    python bench/reads.py big.db --against /tmp/main-copy --repeat 5
    python bench/reads.py new.db --against /tmp/main-copy --before-db old.db  # each its schema

Each figure is the median over ``--repeat`` fresh interpreters (user + system CPU of the
child), the two checkouts' runs interleaved so that the machine's load falls on both alike.
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_of(code: Path, args: list[str]) -> float:
    """User + system CPU seconds of one ``arena`` command run from the checkout ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-c", "from arena.cli import main; main()", *args],
        # Compiled files written and read, as an installed package has them.
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        | {"PYTHONPATH": str(code)},
        cwd=code,  # not this checkout: "-c" puts the working folder first on the path
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dbs", nargs="+", type=Path)
    parser.add_argument("--against", type=Path, required=True, help="the other checkout")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--before-db",
        type=Path,
        help="with one database: the other checkout reads this one instead (the same data as "
        "its own schema stores it, e.g. without this checkout's indexes)",
    )
    args = parser.parse_args()
    if args.before_db is not None and len(args.dbs) != 1:
        parser.error("--before-db goes with one database")
    sides = {"before": args.against.resolve(), "after": ROOT}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for db in args.dbs:
        with sqlite3.connect(db) as conn:
            (matches,) = conn.execute("SELECT count(*) FROM matches").fetchone()
            (lid,) = conn.execute(
                "SELECT id FROM tournaments WHERE kind = 'ladder' ORDER BY rowid DESC"
            ).fetchone()
        commands = {
            "arena ladder --status": ["ladder", "--status"],
            "arena standings": ["standings"],
            "arena standings --json": ["standings", "--json"],
            "arena standings --tournament LADDER": ["standings", "--tournament", lid],
        }
        print(f"\n{db.name}: {matches} matches; CPU seconds, median of {args.repeat}")
        print(f"{'command':<38}{'before':>9}{'after':>9}{'ratio':>8}")
        for label, command in commands.items():
            runs: dict[str, list[float]] = {side: [] for side in sides}
            for _ in range(args.repeat):
                for side, code in sides.items():
                    read = args.before_db if side == "before" and args.before_db else db
                    runs[side].append(cpu_of(code, [*command, "--db", str(read)]))
            before, after = (statistics.median(runs[side]) for side in sides)
            print(f"{label:<38}{before:>9.3f}{after:>9.3f}{before / after:>7.1f}x", flush=True)


if __name__ == "__main__":
    main()
