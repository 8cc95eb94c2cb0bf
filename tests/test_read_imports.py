"""The read commands load only what they use: ``arena standings`` and ``arena ladder --status``
on a stored ladder and round robin import neither numpy, scipy nor Jinja2 (they cost most of
such a command's time; issue 38), nor the tournament runner, the sandbox's pool, the site, the
runs' events or the other commands' modules (``arena ladder --status`` not even rich), and
still print what they read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from bench_support import run_bench

from arena.store import Store

# Loaded only when a module really runs (numpy's own modules appear when numpy's code runs;
# a module of arena.lazy that was never used sits in sys.modules as a bare "numpy").
PROBE = """
import json, sys
from arena.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
heavy = ('numpy._core', 'scipy', 'jinja2')
# and the run path: the tournament runner, the sandbox's pool, the site, the runs' events
heavy += ('arena.tournaments.tournament', 'arena.sandbox.pool', 'arena.site', 'arena.events')
# and the other commands' modules (arena.cli.LAZY_COMMANDS)
heavy += ('arena.cli.play', 'arena.cli.site', 'arena.cli.web', 'arena.cli.lists')
# and, for the ladder's status (plain lines), rich
heavy += ('rich.console',) if '--status' in sys.argv else ()
print(json.dumps(sorted(m for m in sys.modules if m in heavy or m.split('.')[0] in heavy[1:3])))
"""


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A ladder of 1,206 matches and a small round robin, their standings stored once."""
    db = tmp_path_factory.mktemp("reads") / "site.db"
    made = run_bench("site_db.py", str(db), "--matches", "1210", "--bots", "5")
    assert made.returncode == 0, made.stderr
    with Store(db, create=False) as store:
        lid = next(t.tournament.id for t in store.tournaments() if t.tournament.is_ladder)
    for tid in ([], ["--tournament", lid]):
        refit = _arena(["standings", "--db", str(db), *tid, "--refit"])
        assert refit.returncode == 0, refit.stderr
    return db, lid


def _arena(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "command",
    [
        ["standings"],
        ["standings", "--json"],
        ["standings", "--tournament", "LADDER"],
        ["ladder", "--status"],
        ["ladder", "--status", "--json"],
    ],
)
def test_a_read_command_loads_no_numpy_scipy_or_jinja(
    stored: tuple[Path, str], command: list[str]
) -> None:
    db, lid = stored
    done = _arena([*(lid if a == "LADDER" else a for a in command), "--db", str(db)])
    assert done.returncode == 0, done.stderr
    printed, loaded = done.stdout.rsplit("\n", 2)[0], done.stdout.rsplit("\n", 2)[1]
    assert json.loads(loaded) == [], loaded
    if "--json" in command:
        doc = json.loads(printed)
        assert doc["bots"] if "bots" in doc else doc["standings"], doc
    else:
        assert "bot000" in printed and ("Ladder" in printed or "Standings" in printed), printed


def test_the_probe_sees_numpy_when_it_runs(stored: tuple[Path, str]) -> None:
    # The check above can fail: a command that computes the standings loads numpy.
    db, lid = stored
    done = _arena(["standings", "--tournament", lid, "--db", str(db), "--refit"])
    assert done.returncode == 0, done.stderr
    assert "numpy._core" in json.loads(done.stdout.rsplit("\n", 2)[1])


def test_the_reads_bench_prints_a_row_per_command(stored: tuple[Path, str]) -> None:
    db, _ = stored
    done = run_bench(
        "reads.py", str(db), "--against", str(Path(__file__).parents[1]), "--repeat", "1"
    )
    assert done.returncode == 0, done.stderr
    rows = [ln for ln in done.stdout.splitlines() if ln.startswith("arena ")]
    assert [r.split("  ")[0] for r in rows] == [
        "arena ladder --status",
        "arena standings",
        "arena standings --json",
        "arena standings --tournament LADDER",
    ]
    for row in rows:
        before, after, ratio = row.split()[-3:]
        assert float(before) > 0 and float(after) > 0 and ratio.endswith("x")
