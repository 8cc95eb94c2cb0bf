"""``arena ladder``, ``arena retire`` and ``arena verify --epoch`` through the real console
script: a bot submitted from another process joins the running ladder at once; SIGTERM ends
it cleanly and kill -9 loses only the sets in flight, never half a set; the same command
resumes, playing the lost sets again first (same step, bots and deal)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from cli_support import arena, arena_script, ok, one_error_line, write_bot

TINY = """
    class Bot:
        name = "{name}"
        def act(self, obs):
            return obs["legal"][{pick}]
"""

BASE = ["ladder", "random", "heuristic", "--workers", "2", "--lookahead", "2"]
BASE += ["--epoch-sets", "4"]


def read(db: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    """Rows of ``db`` read without taking its write lock (0 rows while it is being made)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return []
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        conn.close()


def finished_sets(db: Path) -> int:
    got = read(db, "SELECT COUNT(*) FROM ladder_sets WHERE finished_at IS NOT NULL")
    return int(str(got[0][0])) if got else 0


def wait_until(check: Callable[[], bool], proc: subprocess.Popen[str], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert proc.poll() is None, "the ladder ended too soon"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def start(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ARENA_DB", None)
    return subprocess.Popen(
        [arena_script(), *BASE, "--seconds", "600", *extra],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def no_half_set(db: Path) -> dict[int, tuple[object, ...]]:
    """Every scheduled set has its six matches stored with its finish, or none; the sets
    not stored (step -> bots)."""
    sets = read(
        db,
        "SELECT s.step, s.bot0, s.bot1, s.bot2, s.finished_at IS NOT NULL, "
        "(SELECT COUNT(*) FROM matches m WHERE m.tournament_id = s.ladder_id "
        "AND m.round = s.step) FROM ladder_sets s ORDER BY s.step",
    )
    assert sets
    for step, *_, finished, matches in sets:
        assert matches == (6 if finished else 0), (step, finished, matches)
    return {int(str(s[0])): s[1:4] for s in sets if not s[4]}


def matches_of(db: Path) -> dict[object, tuple[object, ...]]:
    got = read(db, "SELECT id, round, seed, bot0, bot1, bot2, place0, place1, place2 FROM matches")
    return {r[0]: r[1:] for r in got}


def resume_plays_the_lost_sets_first(tmp_path: Path, db: Path) -> None:
    """The same command again: the sets a stop cut short are played first, as scheduled."""
    lost = no_half_set(db)
    before = matches_of(db)
    out = ok(arena(*BASE, "--max-sets", str(len(lost) + 2), cwd=tmp_path))
    assert "stopped" in out and "sets stored" in out
    assert not no_half_set(db)  # nothing in flight now
    after = {
        int(str(s[0])): s[1:4] for s in read(db, "SELECT step, bot0, bot1, bot2 FROM ladder_sets")
    }
    assert all(after[step] == bots for step, bots in lost.items())
    now = matches_of(db)
    assert all(now[k] == v for k, v in before.items())  # nothing stored was lost or changed
    assert len(now) == len(before) + 6 * (len(lost) + 2)


def test_join_while_running_sigterm_and_resume(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    ok(
        arena(
            "submit",
            write_bot(tmp_path, "first.py", TINY.format(name="first", pick=0)),
            cwd=tmp_path,
        )
    )
    run = start(tmp_path)
    try:
        wait_until(lambda: finished_sets(db) >= 2, run, 180)
        # One ladder per database at a time, whatever its settings.
        line = one_error_line(arena("ladder", "random", "--seed", "9", cwd=tmp_path))
        assert "a ladder is already running on this database" in line
        # Submitted from another process while it runs: it plays at the next step.
        late = write_bot(tmp_path, "late.py", TINY.format(name="late", pick=-1))
        ok(arena("submit", late, cwd=tmp_path))
        vid = read(db, "SELECT id FROM bot_versions WHERE name = 'late'")[0][0]
        joined = lambda: read(  # noqa: E731
            db,
            "SELECT l.joined_step, min(s.step) FROM ladder_bots l JOIN ladder_sets s ON "
            "s.ladder_id = l.ladder_id AND ? IN (s.bot0, s.bot1, s.bot2) "
            "WHERE l.bot_version_id = ?",
            vid, vid,
        )  # fmt: skip
        wait_until(lambda: bool(joined()) and joined()[0][1] is not None, run, 180)
        ((step_joined, first_set),) = joined()
        assert step_joined == first_set and int(str(step_joined)) >= 2
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 130, (out, err)
    assert "Traceback" not in err and "interrupted" in out
    (t,) = json.loads(ok(arena("tournaments", "--json", cwd=tmp_path)))
    assert t["kind"] == "ladder" and t["status"] == "interrupted"
    assert t["epochs"] and all(len(e["commitment"]) == 64 for e in t["epochs"])
    resume_plays_the_lost_sets_first(tmp_path, db)
    status = ok(arena(*BASE, "--status", cwd=tmp_path))
    assert "sets stored" in status and " late " in status and "epoch 0 from set 0" in status
    # Epoch 0 (sets 0-3) closed once epoch 1 had opened and its own sets were all stored.
    assert finished_sets(db) >= 5
    assert "deals verified in 24 matches" in ok(
        arena("verify", t["id"], "--epoch", "0", cwd=tmp_path)
    )


def test_kill_9_loses_only_the_sets_in_flight(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    ok(
        arena(
            "submit",
            write_bot(tmp_path, "first.py", TINY.format(name="first", pick=0)),
            cwd=tmp_path,
        )
    )
    run = start(tmp_path)
    try:
        wait_until(lambda: finished_sets(db) >= 3, run, 180)
    finally:
        os.killpg(run.pid, signal.SIGKILL)  # the ladder, its workers and their bots
        run.wait()
    assert no_half_set(db)  # the sets in flight were lost whole, and are played again first
    (t,) = json.loads(ok(arena("tournaments", "--json", cwd=tmp_path)))
    assert t["status"] == "interrupted"
    resume_plays_the_lost_sets_first(tmp_path, db)


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    line = one_error_line(arena("ladder", "random", cwd=tmp_path))
    assert "a ladder needs at least three bots in its field (has random)" in line
    line = one_error_line(arena("ladder", "random", "nosuch", cwd=tmp_path))
    assert "a ladder names only bundled bots" in line and "'nosuch'" in line
    bad = arena("ladder", "random", "--lookahead", "-1", cwd=tmp_path)
    assert bad.returncode == 2 and "'--lookahead': must be at least 0, not -1" in bad.stderr
    assert "no bot named 'nosuch'" in one_error_line(arena("retire", "nosuch", cwd=tmp_path))
    assert "bundled bot" in one_error_line(arena("retire", "heuristic", cwd=tmp_path))
    assert "no ladder" in one_error_line(arena("ladder", "--status", cwd=tmp_path))
