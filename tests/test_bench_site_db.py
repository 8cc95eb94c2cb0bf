"""bench/site_db.py: a ladder database written through the store, its running totals equal
to a recomputation; a file that exists is refused in one line."""

from __future__ import annotations

import re
from pathlib import Path

from bench_support import run_bench

from arena.store import LADDER, Store


def test_a_small_database_has_its_sets_and_true_totals(tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    result = run_bench("site_db.py", str(db), "--matches", "1210", "--bots", "5")
    assert result.returncode == 0, result.stderr
    assert re.match(r"ladder [0-9a-f]{16}: 1206 matches in [\d.]+ s$", result.stdout.strip())
    with Store(db, create=False) as store:
        ladder = next(t for t in store.tournaments() if t.tournament.kind == LADDER)
        assert ladder.done == 1206
        sets = store.ladder_sets(ladder.tournament.id)
        assert len(sets) == 201 and all(s.finished_at for s in sets)
        assert len(store.ladder_epochs(ladder.tournament.id)) == 3
        assert store.totals_problems() == []
        # Think times vary from match to match (copies of a few played matches).
        assert (
            len({r[0] for r in store.conn.execute("SELECT think_seconds FROM match_seats")}) > 100
        )


def test_an_existing_file_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    db.write_bytes(b"")
    result = run_bench("site_db.py", str(db), "--matches", "60")
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [f"site_db.py: {db} exists; give a new file"]
