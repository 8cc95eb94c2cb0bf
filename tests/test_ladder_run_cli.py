"""``arena ladder``, ``arena retire`` and ``arena verify --epoch`` through the real console
script: a bot submitted from another process joins the running ladder at once; SIGTERM ends
it cleanly and kill -9 loses only the sets in flight, never half a set; the same command
resumes, playing the lost sets again first (same step, bots and deal)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from cli_support import arena, arena_here, arena_script, ok, one_error_line, write_bot

from arena.errors import ArenaError
from arena.store import Store
from arena.store.ladder import LadderSet
from arena.store.schema import LADDER

TINY = """
    class Bot:
        name = "{name}"
        def act(self, obs):
            return obs["legal"][{pick}]
"""

BASE = ["ladder", "random", "heuristic", "--workers", "2", "--lookahead", "2"]
BASE += ["--epoch-sets", "4"]


def ladder_id(store: Store) -> str | None:
    """The ladder's id, None before the running command has made it."""
    try:
        found = store.tournament(prefer=LADDER)
    except ArenaError:  # no tournament yet
        return None
    return found.id if found.kind == LADDER else None


def sets_of(db: Path) -> list[LadderSet]:
    """The ladder's sets, read beside the process writing them. ``arena submit`` made the
    database and its schema first, so a reading Store creates and changes nothing."""
    with Store(db, create=False) as store:
        lid = ladder_id(store)
        return store.ladder_sets(lid) if lid else []


def finished_sets(db: Path) -> int:
    return sum(s.finished_at is not None for s in sets_of(db))


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
    with Store(db, create=False) as store:
        lid = ladder_id(store)
        assert lid is not None
        sets = store.ladder_sets(lid)
        stored = Counter(m.round for m in store.match_rows(tid=lid))
    assert sets
    for s in sets:
        finished = s.finished_at is not None
        assert stored[s.step] == (6 if finished else 0), (s.step, finished, stored[s.step])
    return {s.step: s.bots for s in sets if s.finished_at is None}


def matches_of(db: Path) -> dict[str, tuple[object, ...]]:
    with Store(db, create=False) as store:
        return {m.id: (m.round, m.seed, m.bots, m.places) for m in store.match_rows()}


def joined(db: Path, name: str) -> tuple[int, int] | None:
    """The step at which bot ``name``'s latest version joined the ladder and the step of its
    first set, once it has one."""
    with Store(db, create=False) as store:
        lid, version = ladder_id(store), store.latest_version(name)
        assert lid is not None and version is not None
        member = [m for m in store.ladder_members(lid) if m.version_id == version.id]
        steps = [s.step for s in store.ladder_sets(lid) if version.id in s.bots]
    return (member[0].joined_step, steps[0]) if member and steps else None


def left(db: Path, name: str) -> bool:
    """Whether bot ``name``'s latest version has left the ladder."""
    with Store(db, create=False) as store:
        lid, version = ladder_id(store), store.latest_version(name)
        assert lid is not None and version is not None
        return any(
            m.version_id == version.id and m.left_step is not None
            for m in store.ladder_members(lid)
        )


def resume_plays_the_lost_sets_first(tmp_path: Path, db: Path) -> None:
    """The same command again: the sets a stop cut short are played first, as scheduled."""
    lost = no_half_set(db)
    before = matches_of(db)
    out = ok(arena(*BASE, "--max-sets", str(len(lost) + 2), cwd=tmp_path))
    assert "stopped" in out and "sets stored" in out
    assert not no_half_set(db)  # nothing in flight now
    after = {s.step: s.bots for s in sets_of(db)}
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
        line = one_error_line(arena_here("ladder", "random", "--seed", "9", cwd=tmp_path))
        assert "a ladder is already running on this database" in line
        # Submitted from another process while it runs: it plays at the next step.
        late = write_bot(tmp_path, "late.py", TINY.format(name="late", pick=-1))
        ok(arena("submit", late, cwd=tmp_path))
        wait_until(lambda: joined(db, "late") is not None, run, 180)
        step_joined, first_set = joined(db, "late") or (None, None)
        assert step_joined == first_set and int(str(step_joined)) >= 2
        assert ok(arena_here("retire", "first", cwd=tmp_path)) == "Retired first\n"
        wait_until(lambda: left(db, "first"), run, 180)
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 130, (out, err)
    assert "Traceback" not in err and "interrupted" in out
    # One line each in the console and the run's log when a bot joins or leaves.
    log = (tmp_path / "arena.log").read_text()
    for said in (f"set {step_joined}: late (version 1) joins the ladder", "set "):
        assert said in out and said in log
    assert re.search(r"set \d+: first \(version 1\) leaves the ladder \(retired\)", out)
    assert "leaves the ladder (retired)" in log
    # Stopped, --status shows it paused: the sets cut short are named, none "in flight"; the
    # retired bot keeps its place in the order, marked.
    paused = ok(arena(*BASE, "--status", cwd=tmp_path))
    assert "sets in flight" not in paused
    assert ("paused; cut short by the stop, played first on resume: " in paused) == bool(
        no_half_set(db)
    ), paused
    (first_row,) = [ln for ln in paused.splitlines() if re.match(r" +\d+\. first ", ln)]
    assert first_row.endswith("(retired)"), paused
    with Store(db, create=False) as store:
        lid = ladder_id(store)
    standings = ok(arena_here("standings", "--tournament", str(lid), cwd=tmp_path))
    assert re.search(r"^\d+ +first \(retired\) ", standings, re.M), standings
    # Submitted again, the same file: nothing new is stored, and it says that it rejoins.
    again = ok(arena("submit", tmp_path / "first.py", cwd=tmp_path))
    assert again == "first: same content as version 1; nothing stored; first rejoins the ladder\n"
    # The plain listing of a database with a ladder (it crashed on the ladder's field).
    listing = ok(arena_here("tournaments", cwd=tmp_path))
    listing += ok(arena_here("tournaments", "--wide", cwd=tmp_path))
    assert "ladder" in listing and "interrupted" in listing
    (t,) = json.loads(ok(arena_here("tournaments", "--json", cwd=tmp_path)))
    assert t["kind"] == "ladder" and t["status"] == "interrupted"
    assert t["epochs"] and all(len(e["commitment"]) == 64 for e in t["epochs"])
    resume_plays_the_lost_sets_first(tmp_path, db)
    status = ok(arena(*BASE, "--status", cwd=tmp_path))
    assert "sets stored" in status and " late " in status and "epoch 0 from set 0" in status
    # Epoch 0 (sets 0-3) closed once epoch 1 had opened and its own sets were all stored.
    assert finished_sets(db) >= 5
    assert "deals verified in 24 matches" in ok(
        arena_here("verify", t["id"], "--epoch", "0", cwd=tmp_path)
    )
    # Without an epoch, a ladder is one line that names the option to give.
    line = one_error_line(arena_here("verify", t["id"], cwd=tmp_path))
    assert "is a ladder: it is verified an epoch at a time (--epoch)" in line, line


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
    (t,) = json.loads(ok(arena_here("tournaments", "--json", cwd=tmp_path)))
    assert t["status"] == "interrupted"
    resume_plays_the_lost_sets_first(tmp_path, db)


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    line = one_error_line(arena_here("ladder", "random", cwd=tmp_path))
    assert "a ladder needs at least three bots in its field (has random)" in line
    line = one_error_line(arena_here("ladder", "random", "nosuch", cwd=tmp_path))
    assert "a ladder names only bundled bots" in line and "'nosuch'" in line
    bad = arena("ladder", "random", "--lookahead", "-1", cwd=tmp_path)
    assert bad.returncode == 2 and "'--lookahead': must be at least 0, not -1" in bad.stderr
    assert "no bot named 'nosuch'" in one_error_line(arena_here("retire", "nosuch", cwd=tmp_path))
    assert "bundled bot" in one_error_line(arena_here("retire", "heuristic", cwd=tmp_path))
    assert "no ladder" in one_error_line(arena_here("ladder", "--status", cwd=tmp_path))


def test_a_round_robin_beside_a_live_ladder_leaves_its_front_page(tmp_path: Path) -> None:
    # The organiser runs the ladder with --site; someone runs a round robin into the same
    # database with --no-site meanwhile. The ladder's site keeps featuring the ladder, while it
    # runs and in its final render.
    from bs4 import BeautifulSoup

    db, site = tmp_path / "arena.db", tmp_path / "site"
    first = write_bot(tmp_path, "first.py", TINY.format(name="first", pick=0))
    ok(arena("submit", first, cwd=tmp_path))
    run = start(tmp_path, "--site", str(site))

    def featured() -> str:
        hero = BeautifulSoup((site / "index.html").read_text(), "html.parser").select_one(".lede")
        return hero.get_text(" ", strip=True) if hero else ""

    try:
        wait_until(lambda: finished_sets(db) >= 1, run, 180)
        with Store(db, create=False) as store:
            lid = ladder_id(store)
        args = ("run", "random", "heuristic", first, "--rounds", "1", "--no-site")
        ok(arena(*args, cwd=tmp_path))
        stored = finished_sets(db)
        wait_until(lambda: finished_sets(db) >= stored + 6, run, 300)  # renders every 5 sets
        assert featured().startswith(f"Ladder {lid}"), featured()
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 130 and "Site written to" in out, (out, err)
    assert featured().startswith(f"Ladder {lid}"), featured()


def test_the_progress_line_fits_80_columns(tmp_path: Path) -> None:
    # The live line (sets, rate, leader) and its figures stay on one line of 80 columns: the
    # leader's name is cut with an ellipsis, "matches/s" never wraps onto a line of its own.
    long = "a_leader_with_a_name_as_long_as_allowed"
    ok(arena("submit", write_bot(tmp_path, "l.py", TINY.format(name=long, pick=0)), cwd=tmp_path))
    out = ok(arena(*BASE, "--max-sets", "2", cwd=tmp_path, env={"COLUMNS": "80"}))
    (progress,) = [ln for ln in out.splitlines() if ln.startswith("ladder: ")]
    assert len(progress) <= 80 and "matches/s" in progress, out
    assert not any(ln.strip() == "matches/s" for ln in out.splitlines()), out
