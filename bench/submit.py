"""The wait of ``arena submit``: its wall time side by side with ``arena --help``.

Run by hand (it is a benchmark, not a test)::

    python bench/submit.py                     # this checkout, 7 rounds
    python bench/submit.py --against ../main   # and the code of another checkout, alternated
    python bench/submit.py --rounds 15         # steadier

Each round runs, in fresh processes and in turn (the order alternating from round to round,
so drift in the machine's other load hits them alike): ``arena --help`` and ``arena submit``
of a trivial bot into a new database in a temporary directory, once per checkout. Printed:
the median wall time of each, the submit's median in multiples of ``--help``, its CPU time
(the process and its children: the sandboxed bots), and how many cores other processes kept
busy meanwhile (from ``/proc/stat``). With ``--against DIR`` the other checkout's code runs
with this interpreter and its packages (``PYTHONPATH=DIR``), so the figures compare code only.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent

TRIVIAL_BOT = '''\
class Bot:
    """Answers at once: the submit's wait is the arena's, not the bot's."""

    name = "bench-submit"

    def act(self, obs):
        return obs["legal"][-1]
'''


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since boot (from /proc/stat; 0 elsewhere)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_arena(tree: Path, args: list[str], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (with its children) and other load of ``arena ARGS`` run
    from ``tree``'s code in a fresh interpreter; exits when the command fails."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    # Compiled files written and read, as an installed package has them: with
    # PYTHONDONTWRITEBYTECODE set every import compiles its module again, every run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # A fixed owner key of the right length, so the user's own key file is never read.
    env["ARENA_OWNER_KEY"] = "bench-submit-owner-key-0123456789abcdef"
    argv = [sys.executable, "-c", "import sys; from arena.cli import main; sys.exit(main())", *args]
    busy0, cpu0, t0 = busy_seconds(), _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode != 0:
        sys.exit(f"error: arena {' '.join(args)} ({tree}) failed: {done.stderr.strip()}")
    return wall, cpu, max(0.0, busy_seconds() - busy0 - cpu)


def one_round(tree: Path) -> dict[str, tuple[float, float, float]]:
    """``arena --help`` and ``arena submit`` (a new database) with ``tree``'s code."""
    with tempfile.TemporaryDirectory(prefix="bench-submit-") as tmp:
        work = Path(tmp)
        (work / "bench_bot.py").write_text(TRIVIAL_BOT)
        return {
            "help": run_arena(tree, ["--help"], work),
            "submit": run_arena(tree, ["submit", "--db", "arena.db", "bench_bot.py"], work),
        }


def main(argv: list[str] | None = None) -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7, help="rounds (each tree once per round)")
    ap.add_argument("--against", metavar="DIR", help="also time the code of checkout DIR")
    args = ap.parse_args(argv)
    trees = [_ROOT] + ([Path(args.against).resolve()] if args.against else [])
    runs: dict[Path, list[dict[str, tuple[float, float, float]]]] = {t: [] for t in trees}
    one_round(_ROOT)  # warm the page cache and the sandbox's files; not counted
    for r in range(args.rounds):
        for tree in trees if r % 2 == 0 else trees[::-1]:
            runs[tree].append(one_round(tree))
    every = [x for rounds in runs.values() for rnd in rounds for x in rnd.values()]
    load = sum(x[2] for x in every) / sum(x[0] for x in every)
    print(
        f"python {sys.version.split()[0]}, {args.rounds} rounds; other load meanwhile "
        f"{load:.2f} of {os.cpu_count()} cores"
    )
    print(f"{'code':<24} {'--help s':>8} {'submit s':>8} {'submit/help':>11} {'submit CPU s':>12}")
    medians = {}
    for tree, rounds in runs.items():
        help_wall = statistics.median(x["help"][0] for x in rounds)
        submit_wall = statistics.median(x["submit"][0] for x in rounds)
        ratio = statistics.median(x["submit"][0] / x["help"][0] for x in rounds)
        cpu = statistics.median(x["submit"][1] for x in rounds)
        medians[tree] = submit_wall
        name = "this checkout" if tree == _ROOT else str(tree)
        print(f"{name:<24} {help_wall:>8.3f} {submit_wall:>8.3f} {ratio:>11.1f} {cpu:>12.3f}")
    if args.against:
        before = medians[trees[1]]
        print(f"submit wall, this checkout / other: {medians[_ROOT] / before:.3f}")
    if load > 0.5:
        print("warning: the machine was busy with other work; wall-clock figures are high")


if __name__ == "__main__":
    main()
