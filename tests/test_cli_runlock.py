"""Two ``arena run`` of one tournament on one database, as real processes.

The second refuses in one line naming the first (pid, host, start); after ``kill -9`` of the
first, its tournament reads ``interrupted`` (not ``running`` for ever) and a rerun is not
blocked: it plays exactly the matches that are missing, none twice.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from cli_support import arena, arena_script, ok, one_error_line, write_bot

from arena.store.runlock import lock_path

# Slow enough that a run of 12 matches lasts a while on one worker.
SLOW = """
import time

class Bot:
    name = "slow"

    def act(self, obs):
        time.sleep(0.03)
        return obs["legal"][-1]
"""


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    # Raw: the run is still making this file, and a Store would create its schema.
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    except sqlite3.OperationalError:  # being created
        return 0
    finally:
        conn.close()


def _status(tmp_path: Path) -> str:
    (t,) = json.loads(ok(arena("tournaments", "--json", cwd=tmp_path)))
    return str(t["status"])


@pytest.mark.slow
def test_a_second_run_is_refused_and_a_killed_run_does_not_block(tmp_path: Path) -> None:
    slow = write_bot(tmp_path, "slow.py", SLOW)
    args = ["run", str(slow), "heuristic", "random", "--rounds", "2", "--workers", "1"]
    args += ["--no-site"]
    first = subprocess.Popen(
        [arena_script(), *args],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    db = tmp_path / "arena.db"
    try:
        deadline = time.monotonic() + 120
        while _stored(db) < 1:
            assert first.poll() is None, "the first run ended too soon"
            assert time.monotonic() < deadline, "the first run stored nothing"
            time.sleep(0.2)
        (lock,) = tmp_path.glob("arena.db.run-*.lock")
        tid = lock.name.removeprefix("arena.db.run-").removesuffix(".lock")
        assert lock == lock_path(db, tid)

        second = one_error_line(arena(*args, cwd=tmp_path))
        assert f"tournament {tid} is already being played by pid {first.pid} on " in second
        assert socket.gethostname() in second and "started 20" in second
        assert _status(tmp_path) == "running"
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # the run, its workers and their bots
        first.wait()

    stored = _stored(db)
    assert 1 <= stored < 12
    # Killed: its lock went with it, so it is no longer running...
    assert _status(tmp_path) == "interrupted"
    # ...and a rerun plays exactly what is missing.
    out = ok(arena(*args, cwd=tmp_path))
    assert f"({stored} already stored)" in out and f"Played {12 - stored} matches" in out
    assert _stored(db) == 12 and _status(tmp_path) == "finished"
    assert not list(tmp_path.glob("*.lock"))  # a finished run removes its lock file
