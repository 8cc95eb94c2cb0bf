"""``arena ladder --cluster``: the same ladder on a real local Dask cluster (the scheduler and
two workers of Dask's own command line, TLS) as on a local worker process, set for set and
match for match, the arena process the only writer of the database."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from test_cluster import LocalDaskCluster, arena_cmd, dask_cluster, on  # noqa: F401
from test_ladder_run import field_db, play, rows, sets_of


def test_a_ladder_on_a_cluster_equals_the_local_ladder(
    dask_cluster: LocalDaskCluster,  # noqa: F811
    tmp_path: Path,
) -> None:
    local = field_db(tmp_path, {"first": 0, "last": -1}, "local.db")
    play(local, max_sets=0)  # the ladder and its epoch 0 secret, copied: the same deals
    remote = tmp_path / "cluster.db"
    shutil.copy(local, remote)
    play(local, workers=1, max_sets=6, lookahead=2)
    cmd = arena_cmd("ladder", "random", "--db", str(remote), "--max-sets", "6")
    out = subprocess.run(
        [*cmd, "--lookahead", "2", *on(dask_cluster)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert "(6 sets played)" in out.stdout and "on 2 worker(s)" in out.stdout
    assert sets_of(local) == sets_of(remote) and len(sets_of(remote)) == 6
    # Raw rows: the two databases compared column by column (rows() says why).
    matches = (
        "SELECT id, round, seating, seed, bot0, bot1, bot2, place0, place1, place2 "
        "FROM matches ORDER BY id"
    )
    assert rows(local, matches) == rows(remote, matches)
