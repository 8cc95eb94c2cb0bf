"""A cluster that proves its results (issue 34): each attack of a certified worker that lies about
its results fails, on a REAL TLS cluster on 127.0.0.1 made with ``arena cluster init``, driven
through the real command line.

Every cluster here is Dask's own ``dask scheduler`` and ``dask worker`` programs: an honest
worker ``w`` and a worker ``liar`` that runs ``tests/attacks/hostile_worker.py`` (its batch
player replaced: invented faults, records left out, no answer, a ladder set left out). The
tournament is the one of a local run (the same deal secret), so "the attack failed" is checked
as "every match is stored exactly as the local, trusted run stored it".
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_cluster import (  # noqa: F401 - fixtures
    HOSTILE,
    LocalDaskCluster,
    _cmdline,
    _descendants,
    _wait_for,
    arena,
    arena_cmd,
    bot_files,
    local_reference,
    on,
    run_args,
    stored,
    stored_count,
)
from test_ladder_run import field_db, play, rows, sets_of

from arena.matches.secrecy import SecretFile
from arena.sandbox.botfile import BUNDLED_BOTS
from arena.store import Store

FIRST = (
    'class Bot:\n    name = "first"\n\n    def act(self, obs):\n        return obs["legal"][0]\n'
)
ROUNDS = "6"
"""Six sets of six matches: a batch each, so both workers get some."""
LIMITS = ["--match-cpu-seconds", "0.2"]
"""A small CPU budget (these bots use far less): a batch's deadline is then 46 s."""


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """heuristic, random and a first-legal bot, with a fixed deal secret beside them."""
    d = tmp_path_factory.mktemp("bots")
    (d / "first.py").write_text(FIRST)
    (d / "secret.json").write_text(SecretFile(7, bytes(range(32))).to_json())
    return [
        str(BUNDLED_BOTS / "heuristic.py"),
        str(BUNDLED_BOTS / "random_bot.py"),
        str(d / "first.py"),
    ]


def args(bots: list[str]) -> list[str]:
    secret = str(Path(bots[-1]).with_name("secret.json"))
    return [*bots, "--rounds", ROUNDS, "--seed", "7", "--no-site", "--secret-file", secret, *LIMITS]


@pytest.fixture(scope="module")
def honest(bots: list[str], tmp_path_factory: pytest.TempPathFactory) -> list[tuple[object, ...]]:
    """The stored rows of the same tournament on local worker processes."""
    db = tmp_path_factory.mktemp("local") / "local.db"
    out = arena("run", *args(bots), "--workers", "2", "--db", str(db))
    assert out.returncode == 0, out.stderr
    return stored(db)


@contextmanager
def liar_cluster(
    tmp_path: Path, mode: str, honest_worker: bool = True
) -> Iterator[LocalDaskCluster]:
    """A TLS scheduler with the honest worker ``w`` (unless not ``honest_worker``) and the
    worker ``liar`` running tests/attacks/hostile_worker.py in ``mode``."""
    c = LocalDaskCluster(tmp_path / "cluster")
    try:
        c.start_scheduler()
        names = {"liar"}
        if honest_worker:
            c.start_worker("w")
            names.add("w")
        env = {"ARENA_HOSTILE": mode, "ARENA_HOSTILE_MARKER": str(tmp_path / "marker")}
        c.start_worker("liar", env=env, extra=("--preload", str(HOSTILE)))
        c.wait_for_workers(names)
        yield c
    finally:
        c.close()


def run_on(
    c: LocalDaskCluster, bots: list[str], db: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    return arena("run", *args(bots), *on(c), "--db", str(db), *extra, timeout=400)


def dropped(log: str) -> list[str]:
    """The lines of the run's log that drop a worker."""
    return [line for line in log.splitlines() if "dropped worker " in line]


def test_invented_faults_are_played_again_and_the_liar_is_dropped(
    bots: list[str], honest: list[tuple[object, ...]], tmp_path: Path
) -> None:
    # Attack 1: the liar plays honestly, then reports a timeout for random's two rivals.
    db = tmp_path / "t.db"
    with liar_cluster(tmp_path, "fault") as c:
        out = run_on(c, bots, db)
    assert out.returncode == 0, out.stderr
    assert stored(db) == honest  # not one invented forfeit stored
    log = db.with_suffix(".log").read_text()
    [line] = dropped(log)
    assert "dropped worker liar (tls://127.0.0.1:" in line
    assert "differs from the arena machine's replay: the faults differ (seat" in line
    assert "Dropped worker liar (tls://127.0.0.1:" in out.stdout
    assert "played again on another worker" in out.stdout
    with Store(db, create=False) as store:  # kept for the tournament page
        [check] = store.worker_checks(store.tournament().id)
    assert check.replayed + check.refereed > 0
    [(worker, why)] = check.dropped
    assert worker.startswith("liar (tls://127.0.0.1:") and "the faults differ" in why
    verified = arena("verify", "--db", str(db))
    assert verified.returncode == 0, verified.stderr
    table = json.loads(arena("standings", "--json", "--db", str(db)).stdout)
    assert table["status"] == "finished" and table["counts"]["faults"] == 0


def test_a_cross_check_catches_legal_moves_chosen_for_a_bot(
    bots: list[str], honest: list[tuple[object, ...]], tmp_path: Path
) -> None:
    # The liar plays heuristic's seats with a bot of its own: legal moves, a record that
    # replays, no fault. Only a cross-check can see it; --cross-check 1 replays every match.
    db = tmp_path / "t.db"
    with liar_cluster(tmp_path, "steer") as c:
        out = run_on(c, bots, db, "--cross-check", "1")
    assert out.returncode == 0, out.stderr
    assert stored(db) == honest
    [line] = dropped(db.with_suffix(".log").read_text())
    assert "differs from the arena machine's replay: the play differs" in line


def test_records_left_out_are_sent_elsewhere_and_the_liar_is_dropped(
    bots: list[str], honest: list[tuple[object, ...]], tmp_path: Path
) -> None:
    # Attack 3: the liar leaves out every record in which heuristic wins.
    db = tmp_path / "t.db"
    with liar_cluster(tmp_path, "drop") as c:
        out = run_on(c, bots, db)
    assert out.returncode == 0, out.stderr
    assert stored(db) == honest  # all 36, each as the local run stored it
    log = db.with_suffix(".log").read_text()
    assert "worker liar (tls://127.0.0.1:" in log and " records" in log
    [line] = dropped(log)
    assert "records (2 times)" in line


def test_a_liar_alone_cannot_finish_a_tournament_with_a_hole(
    bots: list[str], honest: list[tuple[object, ...]], tmp_path: Path
) -> None:
    # Attack 3 with no honest worker: what it left out is played on the arena machine once,
    # then the liar is dropped and the run stops; the tournament stays unfinished (its
    # secret unrevealed) and holds only honest records.
    db = tmp_path / "t.db"
    with liar_cluster(tmp_path, "drop", honest_worker=False) as c:
        out = run_on(c, bots, db)
    assert out.returncode == 1
    assert out.stderr.startswith("Error: no worker of the cluster is left to play on: dropped liar")
    assert out.stderr.count("\n") == 1
    got = stored(db)
    assert 0 < stored_count(db) < 36
    assert set(got) <= set(honest)
    status = rows(db, "SELECT status FROM tournaments")
    assert status == [("interrupted",)]
    assert arena("verify", "--db", str(db)).returncode == 1  # no secret revealed


def test_a_worker_that_never_answers_misses_its_deadline_and_its_batch_goes_elsewhere(
    bots: list[str], honest: list[tuple[object, ...]], tmp_path: Path
) -> None:
    # Attack 4: the liar takes a batch and never answers. Each batch of 6 matches has a
    # deadline of 2 x 6 x (3 x 5 x 0.2 s) + 10 s = 46 s; past it, it goes to w.
    db = tmp_path / "t.db"
    with liar_cluster(tmp_path, "hang") as c:
        out = run_on(c, bots, db)
    assert out.returncode == 0, out.stderr
    assert stored(db) == honest
    log = db.with_suffix(".log").read_text()
    assert "worker liar (tls://127.0.0.1:" in log
    assert "held a batch past its deadline of 46 s" in log


def test_a_worker_that_misses_two_deadlines_is_dropped(
    bots: list[str], honest: list[tuple[object, ...]], tmp_path: Path
) -> None:
    # Alone, the liar holds two batches (one runs, one waits behind it): both miss their
    # deadline, it is dropped and named, and with no worker left the run stops.
    db = tmp_path / "t.db"
    with liar_cluster(tmp_path, "hang", honest_worker=False) as c:
        out = run_on(c, bots, db)
    assert out.returncode == 1
    assert out.stderr.startswith("Error: no worker of the cluster is left to play on: dropped liar")
    [line] = dropped(db.with_suffix(".log").read_text())
    assert "held a batch past its deadline of 46 s (2 times)" in line
    assert set(stored(db)) <= set(honest)
    assert rows(db, "SELECT status FROM tournaments") == [("interrupted",)]


def test_a_ladder_set_left_out_is_sent_again(tmp_path: Path) -> None:
    # Attack 5: the liar returns nothing of the ladder sets it gets; the ladder goes on with
    # each set played elsewhere, exactly as the local ladder played it.
    local = field_db(tmp_path, {"first": 0, "last": -1}, "local.db")
    play(local, max_sets=0)  # the ladder and its epoch 0 secret, copied: the same deals
    remote = tmp_path / "cluster.db"
    shutil.copy(local, remote)
    play(local, workers=1, max_sets=8, lookahead=2)
    cmd = arena_cmd("ladder", "random", "--db", str(remote), "--max-sets", "8", "--lookahead", "2")
    with liar_cluster(tmp_path, "dropset") as c:
        out = subprocess.run([*cmd, *on(c)], capture_output=True, text=True, timeout=400)
    assert out.returncode == 0, out.stderr
    assert "(8 sets played)" in out.stdout
    assert sets_of(local) == sets_of(remote) and len(sets_of(remote)) == 8
    matches = "SELECT id, seed, bot0, bot1, bot2, place0, place1, place2 FROM matches ORDER BY id"
    assert rows(local, matches) == rows(remote, matches)
    log = remote.with_suffix(".log").read_text()
    assert "worker liar (tls://127.0.0.1:" in log and "returned 0 of 6 records" in log


def test_cross_check_is_for_a_cluster_and_a_share(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    for command in (["run", "random", "heuristic"], ["ladder", "random"]):
        out = arena(*command, "--cross-check", "0.5", "--db", str(db))
        assert out.returncode == 2
        assert "--cross-check checks a cluster's workers: give --cluster too" in out.stderr
        out = arena(*command, "--cross-check", "1.5", "--db", str(db))
        assert out.returncode == 2 and "--cross-check" in out.stderr
    assert not db.exists()


def test_a_lone_worker_restarted_by_its_nanny_gets_its_batch_again(
    bot_files: list[str],  # noqa: F811
    local_reference: tuple[list[tuple[object, ...]], dict[str, object]],  # noqa: F811
    tmp_path: Path,
) -> None:
    # Every batch is restricted to the workers not dropped: when the only one dies, its nanny
    # starts it again under another address, and the batch it held goes there.
    c = LocalDaskCluster(tmp_path / "cluster")
    db = tmp_path / "t.db"
    try:
        c.start_scheduler()
        c.start_worker("w")
        c.wait_for_workers({"w"})
        run = subprocess.Popen(
            arena_cmd("run", *bot_files, *run_args(bot_files), *on(c), "--db", str(db)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            with c.client() as client:
                w = c.worker_addresses()["w"]
                pid = client.run(os.getpid, workers=[w])[w]

                def playing() -> bool:
                    hosts = [p for p in _descendants(pid) if "host.py" in _cmdline(p)]
                    return bool(client.processing(workers=[w]).get(w)) and len(hosts) >= 3

                _wait_for(playing, 120, "a match on w")
                os.kill(pid, signal.SIGKILL)
            _, err = run.communicate(timeout=300)
        finally:
            run.kill()
    finally:
        c.close()
    assert run.returncode == 0, err
    assert stored(db) == local_reference[0]
