"""Benchmark: the standings site of a ladder as it ages, at 1k, 10k and 100k stored matches.

    python bench/site_scale.py [--sizes 1000,10000,100000] [--bots 30] [--quick]

For each size it builds a database of a ladder (``kind = 'ladder'``, its ``ladder_bots``,
``ladder_epochs`` and ``ladder_sets`` rows and its standings) whose matches are copies, under
new ids and other bots, of a few matches really played by the engine: it is the cost of the
pages that is measured, not play. Then, in one run:

- a full render (``render_site(full=True)``): seconds, files and the site's size on disk;
- an incremental render (``update``) after one more set of six matches is stored: seconds and
  pages written; and one after nothing changed;
- ``arena serve`` answering a request for the replay of the ladder's oldest match (no longer
  a file: rendered from the database): the median of five requests, in milliseconds;
- up to 10k matches, side by side: a full render keeping every replay as a file, as every
  render did before the bound.

``--quick`` (what the test runs) measures 120 and 600 matches with 8 bots.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from arena.engine import play_match  # noqa: E402
from arena.matches import scheduler  # noqa: E402
from arena.matches.record import MatchRecord  # noqa: E402
from arena.site import render_site, update  # noqa: E402
from arena.site.serve import make_server  # noqa: E402
from arena.store import LADDER, Store, now  # noqa: E402
from arena.tournaments.standings import current_standings  # noqa: E402

TEMPLATES = 12
"""Matches really played, then copied: two sets of six seatings."""
TEMPLATE_IDS = [f"tmpl{i}" for i in range(TEMPLATES)]
EVERY_REPLAY_UP_TO = 10_000
"""Up to this size the site is also rendered with every replay as a file (as before the
bound), for the comparison."""


class _Player:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, obs: dict[str, object]) -> object:
        legal = obs["legal"]
        assert isinstance(legal, list)
        return self.rng.choice(legal)


def _played(seed: int) -> list[MatchRecord]:
    """``TEMPLATES`` matches played by the engine with random legal players."""
    out = []
    for i in range(TEMPLATES):
        m = play_match([_Player(seed * 100 + i * 3 + k) for k in range(3)], seed=seed + i // 6)
        out.append(
            MatchRecord.from_json(
                {
                    "match_id": TEMPLATE_IDS[i], "bots": [1, 2, 3], "set_key": f"t{i // 6}",
                    "round": 0, "seating": i % 6, "seed": seed + i // 6, "scores": m.scores,
                    "placements": list(m.placements), "hands": [h.to_dict() for h in m.hands],
                    "truncated": m.truncated, "duration_seconds": 0.5, "faults": [],
                    "stats": [{"decisions": 40, "asked": 30, "think_seconds": 0.01,
                               "max_think_seconds": 0.002, "cpu_seconds": 0.01,
                               "max_cpu_seconds": 0.001, "clock_seconds": 0.012}] * 3,
                    "logs": ["", "", ""],
                }
            )
        )  # fmt: skip
    return out


def _ladder(store: Store, bots: int, seed: int) -> tuple[str, list[int]]:
    versions = [
        store.add_bot_version(f"bot{i:04d}", f"class Bot:\n    n = {i}\n", "bot.py")[0].id
        for i in range(bots)
    ]
    config = {"kind": "ladder", "seed": seed, "rules": {}, "limits": {}, "bundled": [],
              "epoch_sets": 100, "rounds": 0}  # fmt: skip
    tid = scheduler.tournament_id(config)
    store.ensure_tournament(tid, config, versions, 0, kind=LADDER)
    return tid, versions


def _add_sets(
    db: Path, tid: str, versions: list[int], first: int, count: int, tmpl: list[str]
) -> None:
    """Store sets ``first ..`` of the ladder: the ladder rows and six copied matches each.

    Raw writes: fabricated rows, each match copied in SQL from a template's rows under new
    ids and bots, every epoch on one secret; no store method copies stored rows."""
    rng = random.Random(first)
    with Store(db, create=False) as store:
        secret = store.tournament(tid).secret_id
    conn = sqlite3.connect(db)
    stamp = now()
    with conn:
        for step in range(first, first + count):
            epoch = step // 100
            if step % 100 == 0 or step == first:
                conn.execute(
                    "INSERT OR IGNORE INTO ladder_epochs VALUES (?, ?, ?, ?, ?, NULL)",
                    (tid, epoch, secret, epoch * 100, stamp),
                )
            triple = rng.sample(versions, 3)
            key = f"s{step:07d}"
            conn.execute(
                "INSERT INTO ladder_sets VALUES (?, ?, ?, ?, ?, ?, ?, 'bench', ?, ?)",
                (tid, step, *triple, epoch, key, stamp, stamp),
            )
            for seating in range(6):
                src = tmpl[(step % 2) * 6 + seating]
                mid = f"m{step:07d}{seating}"
                bots = [triple[(k + seating) % 3] for k in range(3)]
                conn.execute(
                    "INSERT INTO matches SELECT ?, ?, ?, ?, ?, seed, ?, ?, ?, score0, score1, "
                    "score2, place0, place1, place2, hands_played, truncated, faults, "
                    "duration_seconds, status, ? FROM matches WHERE id = ?",
                    (mid, tid, key, step, seating, *bots, stamp, src),
                )
                for seat in range(3):
                    conn.execute(
                        "INSERT INTO match_seats SELECT ?, seat, ?, ?, score, place, faulted, "
                        "decisions, asked, think_seconds, max_think_seconds, cpu_seconds, "
                        "max_cpu_seconds, clock_seconds "
                        "FROM match_seats WHERE match_id = ? AND seat = ?",
                        (mid, tid, bots[seat], src, seat),
                    )
                conn.execute(
                    "INSERT INTO hands SELECT ?, hand_number, dealer, upcard, trump, maker, "
                    "alone, sitting_out, passed_out, tricks_won, points, scores_before, record "
                    "FROM hands WHERE match_id = ?",
                    (mid, src),
                )
        conn.execute("UPDATE tournaments SET updated_at = ? WHERE id = ?", (stamp, tid))
    conn.close()


def build(db: Path, matches: int, bots: int, seed: int = 7) -> tuple[str, list[int]]:
    """A ladder database of about ``matches`` stored matches (whole sets) and its standings."""
    tmpl = _played(seed)
    with Store(db) as store:
        tid, versions = _ladder(store, bots, seed)
        # The played matches go through the store's own write path, under a tournament of
        # their own that the copies are taken from (it shows on the site like any other).
        tt = scheduler.tournament_id({"bench": "templates", "seed": seed})
        config = {"rounds": 1, "seed": seed, "rules": {}, "limits": {}}
        store.ensure_tournament(tt, config, versions[:3], TEMPLATES)
        store.write_results(tt, [_rebot(r, versions[:3]) for r in tmpl])
        # Older than the ladder, so that the ladder is the site's current tournament (a raw
        # write: no store method back-dates a tournament).
        store.conn.execute(
            "UPDATE tournaments SET created_at = ?, updated_at = ? WHERE id = ?",
            ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", tt),
        )
        for v in versions:
            store.join_ladder(tid, v, 0)
    sets = max(1, matches // 6)
    for start in range(0, sets, 5000):
        _add_sets(db, tid, versions, start, min(5000, sets - start), TEMPLATE_IDS)
    with Store(db) as store:
        # The copies were written around the store: its running totals are made from them.
        store.rebuild_totals()
        current_standings(store, tid, refit=True)
    return tid, versions


def _rebot(r: MatchRecord, versions: list[int]) -> MatchRecord:
    return MatchRecord.from_json({**r.to_json(), "bots": versions})


def _size(folder: Path) -> tuple[int, int]:
    files = [f for f in folder.rglob("*") if f.is_file()]
    return len(files), sum(f.stat().st_size for f in files)


def _serve_ms(db: Path, site: Path, match_id: str) -> float:
    server = make_server(site, port=0, quiet=True, db_path=db)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}/matches/{match_id}.html"
    times = []
    try:
        for _ in range(5):
            start = time.perf_counter()
            with urllib.request.urlopen(url) as response:  # noqa: S310 (loopback only)
                assert response.status == 200 and b"<html" in response.read()
            times.append(time.perf_counter() - start)
    finally:
        server.shutdown()
        server.server_close()
    return 1000 * statistics.median(times)


def measure(root: Path, matches: int, bots: int) -> str:
    """One row of the table: build the database, then time the site's renders and a served
    replay."""
    db = root / f"ladder-{matches}.db"
    start = time.perf_counter()
    tid, versions = build(db, matches, bots)
    built = time.perf_counter() - start
    every = ""
    if matches <= EVERY_REPLAY_UP_TO:
        # The site as it was before the bound: a replay page for every match.
        start = time.perf_counter()
        render_site(db, root / "every", full=True, replays=10**9)
        secs = time.perf_counter() - start
        n, big = _size(root / "every")
        shutil.rmtree(root / "every")
        every = f"  [every replay: {secs:6.2f} s, {n} files {big / 1e6:.1f} MB]"
    site = root / f"site-{matches}"
    start = time.perf_counter()
    render_site(db, site, full=True)
    full = time.perf_counter() - start
    files, size = _size(site)
    with Store(db, create=False) as store:
        stored = sum(t.done for t in store.tournaments())
        step = store.ladder_sets(tid)[-1].step + 1
    _add_sets(db, tid, versions, step, 1, TEMPLATE_IDS)
    with Store(db, create=False) as store:
        store.rebuild_totals()  # (not timed: the store keeps them as it writes a set)
        start = time.perf_counter()
        one = update(store, site)
        incremental = time.perf_counter() - start
        start = time.perf_counter()
        update(store, site)
        idle = time.perf_counter() - start
    served = _serve_ms(db, site, "m00000000")
    shutil.rmtree(site)
    db.unlink()
    return (
        f"{stored:>7} matches  build {built:6.1f} s  full render {full:6.2f} s  "
        f"{files:>5} files {size / 1e6:6.1f} MB  one more set {incremental:5.2f} s "
        f"({one.written} pages written)  nothing new {idle:5.2f} s  "
        f"old replay served {served:6.1f} ms{every}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        sys.exit(f"site_scale.py: --sizes takes numbers separated by commas, not {args.sizes!r}")
    bots = args.bots
    if args.quick:
        sizes, bots = [120, 600], 8
    if bots < 3 or any(s < 6 for s in sizes):
        sys.exit("site_scale.py: at least 3 bots and 6 matches")
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores; {bots} bots")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            print(measure(Path(tmp), n, bots), flush=True)


if __name__ == "__main__":
    main()
