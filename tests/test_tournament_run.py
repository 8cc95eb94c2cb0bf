"""Running tournaments for real: sandboxed bots, forked workers, SQLite, interrupts and resume.

Serial equals parallel, a kill -9 followed by a rerun equals an uninterrupted run, and Ctrl-C
to a real ``arena run`` leaves no process behind and keeps every finished match.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from cli_support import stored_matches

from arena.engine import Rules
from arena.matches.record import MatchRecord
from arena.matches.scheduler import MatchSpec
from arena.matches.secrecy import SecretFile, commitment
from arena.sandbox import Limits
from arena.sandbox.botfile import bundled
from arena.store import Store
from arena.tournaments.runner import WAIT, Wait
from arena.tournaments.schedules import FixedSchedule, ScheduleBase
from arena.tournaments.standings import fit_standings
from arena.tournaments.tournament import plan_round_robin, register_files, run

BOTS = {
    "first.py": """
        class Bot:
            name = "first"
            def act(self, obs):
                return obs["legal"][0]
    """,
    "last.py": """
        class Bot:
            def act(self, obs):
                return obs["legal"][-1]
    """,
    "rnd.py": """
        import random
        class Bot:
            author = "tests"
            def act(self, obs):
                return random.choice(obs["legal"])
    """,
    "crashy.py": """
        class Bot:
            def __init__(self):
                self.calls = 0
            def act(self, obs):
                self.calls += 1
                if self.calls == 3:
                    raise RuntimeError("third time unlucky")
                return obs["legal"][-1]
    """,
    "slow.py": """
        import random, time
        class Bot:
            def act(self, obs):
                time.sleep(0.01)
                return random.choice(obs["legal"])
    """,
}

# Columns that depend on timing, not on the games.
TIMING = {
    "duration_seconds", "finished_at", "think_seconds", "max_think_seconds", "cpu_seconds",
    "max_cpu_seconds", "clock_seconds",
}  # fmt: skip


def write_bots(directory: Path, names: list[str]) -> list[Path]:
    directory.mkdir(exist_ok=True)
    paths = []
    for name in names:
        path = directory / name
        path.write_text(textwrap.dedent(BOTS[name]).lstrip(), encoding="utf-8")
        paths.append(path)
    return paths


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every game-determined row of the database, in a canonical order."""
    # Raw rows: two databases compared column by column (serial == parallel, resumed).
    conn = sqlite3.connect(db)
    out = {}
    queries = {
        "bot_versions": "SELECT id, name, version, sha256, author FROM bot_versions",
        "tournaments": "SELECT id, config, seed, rounds, status, total_matches FROM tournaments",
        "matches": "SELECT * FROM matches",
        "match_seats": "SELECT * FROM match_seats",
        "hands": "SELECT * FROM hands",
        "faults": "SELECT * FROM faults",
        "bot_logs": "SELECT * FROM bot_logs",
        "ratings": "SELECT tournament_id, bot_version_id, rank, rating, rating_low, rating_high,"
        " matches, wins, mean_place, faults FROM ratings",
    }
    for table, sql in queries.items():
        cur = conn.execute(sql)
        keep = [i for i, d in enumerate(cur.description) if d[0] not in TIMING]
        out[table] = sorted(tuple(row[i] for i in keep) for row in cur)
    conn.close()
    return out


# Two databases play the same deals only with the same deal secret (docs/tournaments.md).
SECRET = SecretFile(11, bytes(range(32)))


def run_in_process(
    db: Path, files: list[Path], rounds: int, workers: int, executor: Any = None
) -> Store:
    store = Store(db)
    limits = Limits()
    versions = register_files(store, files)
    the_plan = plan_round_robin(
        store, versions, rounds=rounds, seed=11, rules=Rules(), limits=limits, secret_file=SECRET
    )
    result = run(
        store, the_plan, workers=workers, log_path=db.with_suffix(".log"), executor=executor
    )
    assert result.completed and result.played == the_plan.total
    return store


@pytest.mark.slow
def test_the_bundled_searching_bot_plays_the_same_tournament_serial_or_parallel(
    tmp_path: Path,
) -> None:
    # montecarlo searches for up to 0.15 s a decision: its limits count work, not time, so two
    # worker processes sharing two cores (and a serial run beside them) play the same matches.
    files = [bundled(name) for name in ("random_bot", "heuristic", "montecarlo")]
    run_in_process(tmp_path / "serial.db", files, rounds=1, workers=1).close()
    run_in_process(tmp_path / "parallel.db", files, rounds=1, workers=2).close()
    a, b = dump(tmp_path / "serial.db"), dump(tmp_path / "parallel.db")
    assert len(a["matches"]) == 6 and not a["faults"]
    assert a == b


def test_serial_equals_parallel_and_faults_are_recorded(tmp_path: Path) -> None:
    files = write_bots(tmp_path / "bots", ["first.py", "last.py", "rnd.py", "crashy.py"])
    serial = run_in_process(tmp_path / "serial.db", files, rounds=1, workers=1)
    parallel = run_in_process(tmp_path / "parallel.db", files, rounds=1, workers=2)
    a, b = dump(tmp_path / "serial.db"), dump(tmp_path / "parallel.db")
    assert len(a["matches"]) == 4 * 6  # C(4,3) sets x 1 round x 6 seatings
    assert a == b

    # The crashing bot faulted in every one of its matches, was placed last and the
    # tournament went on.
    tid = serial.tournament().id
    crashy = serial.latest_version("crashy")
    assert crashy is not None
    faults = serial.fault_rows(versions=[crashy.id])
    assert len(faults) == 3 * 6
    assert {f.kind for f in faults} == {"crash"}
    assert all("third time unlucky" in f.message for f in faults)
    table = {s.name: s for s in fit_standings(serial, tid)}
    assert table["crashy"].faults == table["crashy"].matches == 18
    assert table["crashy"].mean_place == 3.0
    assert table["crashy"].rank == 4
    assert serial.tournament(tid).status == "finished"

    # Worker processes logged into the run's log file through the parent.
    lines = (tmp_path / "parallel.log").read_text().splitlines()
    worker_pids = {line.split()[2] for line in lines if "arena.tournaments.runner" in line}
    assert worker_pids and str(os.getpid()) not in worker_pids
    # Each worker closed its bot pool on the way out, and said so.
    closed = {line.split()[2] for line in lines if "bot pool closed" in line}
    assert closed == worker_pids
    parallel.close()
    serial.close()


def test_any_executor_can_run_the_matches(tmp_path: Path) -> None:
    # A cluster executor gives no initializer and unpickles the task in a fresh interpreter:
    # a spawn-context pool without an initializer stands in for it. Same games either way.
    files = write_bots(tmp_path / "bots", ["first.py", "last.py", "rnd.py"])
    run_in_process(tmp_path / "fork.db", files, rounds=2, workers=2).close()
    foreign = cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))
    run_in_process(tmp_path / "spawn.db", files, rounds=2, workers=2, executor=foreign).close()
    assert dump(tmp_path / "fork.db") == dump(tmp_path / "spawn.db")


class LyingExecutor(cf.Executor):
    """Real worker processes whose answers are forged on the way back: each batch's first
    ``lies`` answers give every match's seat 0 the best score (as a hostile worker would)."""

    def __init__(self, lies: int) -> None:
        self.inner = cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))
        self.lies = lies
        self.told: dict[tuple[str, ...], int] = {}
        self.forged = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        key = tuple(spec.match_id for spec in args[0].matches)
        self.told[key] = told = self.told.get(key, 0) + 1
        out: cf.Future[Any] = cf.Future()
        out.set_running_or_notify_cancel()  # running at once, as in a pool: not cancellable

        def answer(real: cf.Future[Any]) -> None:
            records = json.loads(real.result())
            if told <= self.lies:
                for r in records:
                    r["scores"][0] = max(r["scores"]) + 1
                    r["placements"] = [1, 2, 3] if r["scores"][1] >= r["scores"][2] else [1, 3, 2]
                    self.forged += 1
            out.set_result(json.dumps(records))

        self.inner.submit(fn, *args, **kwargs).add_done_callback(answer)
        return out

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait=wait, cancel_futures=cancel_futures)


def test_a_forged_record_is_played_again_and_the_tournament_is_unchanged(
    tmp_path: Path,
) -> None:
    files = write_bots(tmp_path / "bots", ["first.py", "last.py", "rnd.py"])
    run_in_process(tmp_path / "honest.db", files, rounds=2, workers=2).close()
    liar = LyingExecutor(lies=1)
    run_in_process(tmp_path / "lied.db", files, rounds=2, workers=2, executor=liar).close()
    assert liar.forged == 12  # every match was forged once, refused, and played again
    assert dump(tmp_path / "lied.db") == dump(tmp_path / "honest.db")
    log = (tmp_path / "lied.log").read_text()
    assert log.count("refused a worker's record, not stored: ") == 12
    assert "its scores or end differ from the replay" in log


def test_a_match_refused_twice_stops_the_run_and_stores_nothing_of_it(tmp_path: Path) -> None:
    from arena.tournaments.driving import RecordsRefused

    files = write_bots(tmp_path / "bots", ["first.py", "last.py", "rnd.py"])
    with pytest.raises(RecordsRefused, match=r"^refused the records of \d+ match\(es\) from"):
        run_in_process(tmp_path / "lied.db", files, rounds=2, workers=2, executor=LyingExecutor(9))
    with Store(tmp_path / "lied.db", create=False) as store:
        assert store.match_rows() == []


class DroppingExecutor(LyingExecutor):
    """Real worker processes that leave out the record of a batch's last match the first
    ``lies`` times they are sent it (a worker that keeps the results it dislikes)."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        key = (args[0].matches[-1].match_id,)
        self.told[key] = told = self.told.get(key, 0) + 1
        out: cf.Future[Any] = cf.Future()
        out.set_running_or_notify_cancel()

        def answer(real: cf.Future[Any]) -> None:
            records = json.loads(real.result())
            if told <= self.lies:
                records, self.forged = records[:-1], self.forged + 1
            out.set_result(json.dumps(records))

        self.inner.submit(fn, *args, **kwargs).add_done_callback(answer)
        return out


def test_a_record_left_out_is_sent_again_and_twice_stops_the_run(tmp_path: Path) -> None:
    from arena.tournaments.driving import RecordsRefused

    files = write_bots(tmp_path / "bots", ["first.py", "last.py", "rnd.py"])
    run_in_process(tmp_path / "honest.db", files, rounds=2, workers=2).close()
    dropping = DroppingExecutor(lies=1)
    run_in_process(tmp_path / "short.db", files, rounds=2, workers=2, executor=dropping).close()
    assert dropping.forged == 2  # a record of each batch left out once, then sent again
    assert dump(tmp_path / "short.db") == dump(tmp_path / "honest.db")  # finished, whole
    with pytest.raises(RecordsRefused, match=r"or never got them, even when played again"):
        run_in_process(
            tmp_path / "hole.db", files, rounds=2, workers=2, executor=DroppingExecutor(9)
        )
    with Store(tmp_path / "hole.db", create=False) as store:
        [row] = store.tournaments()
        assert row.tournament.status == "interrupted"  # never finished with a hole
        assert 0 < len(store.match_rows()) < 12


class RoundAtATime(ScheduleBase):
    """A schedule of the test's own: the round robin's matches one round at a time, each
    handed out once the last is stored (as a ladder picks its next set from what is stored)."""

    exact = False

    def __init__(self, fixed: FixedSchedule) -> None:
        self.fixed = fixed
        self.tid = fixed.tid
        self.total: int | None = fixed.total
        self.done: set[str] = set()
        self.asked = 0
        self.finished: bool | None = None

    def start(self, store: Store) -> bool:
        self.done = store.finished_match_ids(self.fixed.tid)
        return self.fixed.start(store)

    def specs(self) -> Iterator[Sequence[MatchSpec] | Wait]:
        for r in sorted({m.round for m in self.fixed.todo}):
            batch = [m for m in self.fixed.todo if m.round == r]
            self.asked += 1
            yield batch
            while not all(m.match_id in self.done for m in batch):
                yield WAIT

    def write(self, store: Store, records: Sequence[MatchRecord]) -> Sequence[MatchRecord]:
        store.write_results(self.tid, records)
        self.done.update(r.match_id for r in records)
        return records

    def describe(self) -> str:
        return f"{len(self.done)} stored"

    def finish(self, store: Store, completed: bool) -> None:
        self.finished = completed

    def why(self) -> str:
        return f"played {self.asked} rounds one at a time"


def test_the_run_loop_plays_any_schedule_alike(tmp_path: Path) -> None:
    files = write_bots(tmp_path / "bots", ["first.py", "last.py", "rnd.py"])
    run_in_process(tmp_path / "fixed.db", files, rounds=2, workers=2).close()
    with Store(tmp_path / "unfolds.db") as store:
        versions = register_files(store, files)
        the_plan = plan_round_robin(
            store, versions, rounds=2, seed=11, rules=Rules(), limits=Limits(), secret_file=SECRET
        )
        assert isinstance(the_plan.schedule, FixedSchedule) and the_plan.schedule.exact
        unfolds = RoundAtATime(the_plan.schedule)
        the_plan.schedule = unfolds
        result = run(store, the_plan, workers=2)
    assert (result.played, result.completed, unfolds.asked, unfolds.finished) == (12, True, 2, True)
    assert result.stopped == "played 2 rounds one at a time"
    assert dump(tmp_path / "unfolds.db") == dump(tmp_path / "fixed.db")


def test_a_second_run_plays_nothing_and_changes_nothing(tmp_path: Path) -> None:
    files = write_bots(tmp_path / "bots", ["first.py", "last.py", "rnd.py"])
    store = run_in_process(tmp_path / "a.db", files, rounds=1, workers=2)
    before = dump(tmp_path / "a.db")
    limits = Limits()
    versions = register_files(store, files)
    again = plan_round_robin(store, versions, rounds=1, seed=11, rules=Rules(), limits=limits)
    assert isinstance(again.schedule, FixedSchedule) and again.schedule.todo == []
    assert again.stored == 6 and again.commitment == commitment(SECRET.secret)
    result = run(store, again, workers=2)
    assert (result.played, result.already, result.completed) == (0, 6, True)
    assert dump(tmp_path / "a.db") == before


def arena_cmd(db: Path, files: list[Path], *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "arena.cli",
        "run",
        *map(str, files),
        "--db",
        str(db),
        "--seed",
        "5",
        "--workers",
        "2",
        "--no-site",
        *extra,
    ]


def wait_for_matches(db: Path, proc: subprocess.Popen[bytes], at_least: int) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        n = stored_matches(db)
        if n >= at_least:
            return n
        assert proc.poll() is None, "arena run ended before it could be interrupted"
        time.sleep(0.05)
    raise AssertionError("no matches were stored in time")


@pytest.mark.slow
def test_kill_9_then_rerun_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    files = write_bots(tmp_path / "bots", ["slow.py", "last.py", "rnd.py"])
    secret = tmp_path / "secret.json"
    secret.write_text(SecretFile(5, bytes(32)).to_json(), encoding="utf-8")
    rounds = ("--rounds", "5", "--secret-file", str(secret))  # 30 matches, same deals
    whole = tmp_path / "whole.db"
    subprocess.run(arena_cmd(whole, files, *rounds), check=True, capture_output=True)

    broken = tmp_path / "broken.db"
    proc = subprocess.Popen(
        arena_cmd(broken, files, *rounds),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    wait_for_matches(broken, proc, 4)
    proc.kill()
    proc.wait()
    # Its workers (same command line) die with it instead of lingering as orphans.
    deadline = time.monotonic() + 10
    while workers_of(broken) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert workers_of(broken) == []
    partial = stored_matches(broken)
    assert 4 <= partial < 30
    rerun = subprocess.run(arena_cmd(broken, files, *rounds), capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert f"Played {30 - partial} matches" in rerun.stdout
    assert dump(broken) == dump(whole)


def workers_of(db: Path) -> list[int]:
    """Pids of live processes whose command line names ``db`` (an arena run and its workers)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes().decode(errors="replace")
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(db) in cmd and state != "Z":
            found.append(int(name))
    return found


DRIVER = r"""
import ctypes, json, os, signal, sqlite3, subprocess, sys, time
# Become the subreaper: any process arena leaves behind, even one that escaped into its own
# session, is re-parented to this driver, where it can be found after arena exits.
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
db, cmd = sys.argv[1], json.loads(sys.argv[2])
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        start_new_session=True, text=True)
def stored():  # raw, read-only: arena is still making the file (a Store would create it)
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        return c.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    except sqlite3.Error:
        return 0
deadline = time.monotonic() + 120
while stored() < 3 and proc.poll() is None and time.monotonic() < deadline:
    time.sleep(0.05)
before = stored()
os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group
out, err = proc.communicate(timeout=120)
time.sleep(0.5)
while True:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid == 0:
        break
left = []
for name in os.listdir("/proc"):
    if name.isdigit():
        try:
            stat = open(f"/proc/{name}/stat").read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
            left.append(open(f"/proc/{name}/cmdline").read().replace("\0", " ")[:200])
print(json.dumps({"rc": proc.returncode, "out": out, "err": err, "before": before,
                  "left": left}))
"""


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_keeps_finished_matches(tmp_path: Path) -> None:
    files = write_bots(tmp_path / "bots", ["slow.py", "last.py", "rnd.py"])
    db = tmp_path / "arena.db"
    cmd = arena_cmd(db, files, "--rounds", "5")
    driver = subprocess.run(
        [sys.executable, "-c", DRIVER, str(db), json.dumps(cmd)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert driver.returncode == 0, driver.stderr
    report = json.loads(driver.stdout)
    assert report["rc"] == 130, report
    assert "Interrupted" in report["err"] and "Traceback" not in report["err"]
    assert report["left"] == []
    kept = stored_matches(db)
    assert report["before"] <= kept < 30
    with Store(db, create=False) as store:
        assert store.tournament().status == "interrupted"
        # Every stored match is whole: its seats and hands are there too.
        matches = store.match_rows()
        assert len(matches) == kept
        assert all(len(store.seat_rows(m.id)) == 3 for m in matches)
        assert all(store.match(m.id)[1] for m in matches)
    rerun = subprocess.run(cmd, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert f"Played {30 - kept} matches" in rerun.stdout
    assert stored_matches(db) == 30


def children_of(pid: int) -> list[int]:
    kids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                kids.append(int(name))
    return kids


@pytest.mark.slow
def test_a_killed_worker_stops_the_run_in_one_line_and_rerun_resumes(tmp_path: Path) -> None:
    files = write_bots(tmp_path / "bots", ["slow.py", "last.py", "rnd.py"])
    db = tmp_path / "w.db"
    cmd = arena_cmd(db, files, "--rounds", "5")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_matches(db, proc, 2)
    workers = children_of(proc.pid)
    assert workers, "no worker processes found"
    os.kill(workers[0], 9)  # as the kernel's OOM killer would
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, (out, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: the run stopped"), err
    kept = stored_matches(db)
    rerun = subprocess.run(cmd, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert f"Played {30 - kept} matches" in rerun.stdout and stored_matches(db) == 30


@pytest.fixture
def own_cpu_locks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """CPU claims in lock files of this test's own: the lock files live in the temporary
    folder, which spawned processes read afresh from TMPDIR, so tournaments of other test
    workers running meanwhile hold none of them. A short folder: a multiprocessing manager's
    socket is made there too, and a socket path has at most 108 bytes."""
    own = tempfile.mkdtemp(prefix="cpus-", dir="/tmp")
    monkeypatch.setenv("TMPDIR", own)
    yield
    shutil.rmtree(own, ignore_errors=True)


@pytest.mark.usefixtures("own_cpu_locks")
def test_workers_claim_distinct_cpus_and_release_them() -> None:
    # Each worker process takes a CPU of its own through a lock file; a third process finds
    # none free while both are held, and a CPU is free again once its worker has exited.
    import concurrent.futures as cf
    import multiprocessing

    from arena.tournaments import runner

    usable = sorted(os.sched_getaffinity(0))
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(len(usable), mp_context=ctx) as pool:
        barrier = ctx.Manager().Barrier(len(usable))
        claims = list(pool.map(_claim_and_wait, [barrier] * len(usable)))
        assert sorted(c for c, _ in claims) == list(range(len(usable)))
        assert all(affinity == {usable[c]} for c, affinity in claims)
        with cf.ProcessPoolExecutor(1, mp_context=ctx) as other:
            assert other.submit(runner.claim_cpu).result() is None
    with cf.ProcessPoolExecutor(1, mp_context=ctx) as later:
        assert later.submit(runner.claim_cpu).result() == 0


def _claim_and_wait(barrier: Any) -> tuple[int | None, set[int]]:
    from arena.sandbox import BotPool
    from arena.tournaments import runner

    cpu = runner.claim_cpu()
    BotPool(unsafe_no_sandbox=True, cpu=cpu).close()
    barrier.wait(timeout=30)  # every worker holds its claim before any returns
    return cpu, os.sched_getaffinity(0)


@pytest.mark.usefixtures("own_cpu_locks")
def test_closing_a_worker_gives_its_cpu_back() -> None:
    import concurrent.futures as cf
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        first, during, after, again = pool.submit(_claim_release_claim).result()
    assert first == again == 0
    assert len(during) == 1 and after == set(os.sched_getaffinity(0))


def _claim_release_claim() -> tuple[int | None, set[int], set[int], int | None]:
    from arena.sandbox import BotPool
    from arena.tournaments import runner

    first = runner.claim_cpu()
    BotPool(unsafe_no_sandbox=True, cpu=first).close()
    during = os.sched_getaffinity(0)
    runner.close_worker()
    after = os.sched_getaffinity(0)
    return first, during, after, runner.claim_cpu()
