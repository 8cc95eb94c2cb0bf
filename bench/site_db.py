"""A ladder database of about N stored matches, written through the store (the bench of the
live site, ``bench/site.py``, measures on it).

    python bench/site_db.py big.db --matches 100000 [--bots 30] [--seed 7]

The ladder has ``--bots`` bots and about ``N / 6`` finished sets of six matches, its epochs
of 100 sets each with its secret, and its standings, beside a small round robin. The matches
are copies, under new ids, other bots and varied think times, of 24 matches really played by
the engine (random legal players): the pages' cost is measured, not play. Each batch of sets
is stored the way a ladder stores its sets (``ladder_sets`` rows, then the matches through
:meth:`arena.store.Store.write_results`'s path, which keeps the running totals), many sets a
transaction, so that 100,000 matches take a minute or two.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from arena.engine import Rules, play_match  # noqa: E402
from arena.matches import scheduler  # noqa: E402
from arena.matches.record import MatchRecord, SeatStats  # noqa: E402
from arena.store import LADDER, Store, now  # noqa: E402
from arena.tournaments.standings import current_standings  # noqa: E402

TEMPLATES = 24
"""Matches really played, then copied: four sets of six seatings."""
EPOCH_SETS = 100
BATCH_SETS = 500
"""Sets stored per transaction."""


class _Player:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, obs: dict[str, object]) -> object:
        legal = obs["legal"]
        assert isinstance(legal, list)
        return self.rng.choice(legal)


def played(seed: int) -> list[MatchRecord]:
    """``TEMPLATES`` matches played by the engine, as a worker returns them."""
    out = []
    for i in range(TEMPLATES):
        deal = seed + i // 6
        m = play_match([_Player(seed * 100 + i * 3 + k) for k in range(3)], seed=deal)
        stats = {"decisions": 40, "asked": 30, "think_seconds": 0.01, "max_think_seconds": 0.002,
                 "cpu_seconds": 0.01, "max_cpu_seconds": 0.001, "clock_seconds": 0.012}  # fmt: skip
        out.append(
            MatchRecord.from_json(
                {
                    "match_id": f"tmpl{i:02d}", "bots": [1, 2, 3], "set_key": f"t{i // 6}",
                    "round": 0, "seating": i % 6, "seed": deal, "scores": m.scores,
                    "placements": list(m.placements), "hands": [h.to_dict() for h in m.hands],
                    "truncated": m.truncated, "duration_seconds": 0.5, "faults": [],
                    "stats": [stats] * 3, "logs": ["", "", ""],
                }
            )
        )  # fmt: skip
    return out


def _stats(rng: random.Random) -> SeatStats:
    think = rng.uniform(0.005, 0.5)
    cpu = think * rng.uniform(0.5, 1.0)
    asked = rng.randint(20, 60)
    return SeatStats(
        decisions=asked + rng.randint(0, 20), asked=asked, think_seconds=think,
        max_think_seconds=think / asked * rng.uniform(1, 5), cpu_seconds=cpu,
        max_cpu_seconds=cpu / asked * rng.uniform(1, 5), clock_seconds=think * 1.1,
    )  # fmt: skip


def _copy(t: MatchRecord, mid: str, bots: list[int], rng: random.Random) -> MatchRecord:
    stats = tuple(_stats(rng) for _ in range(3))
    return dataclasses.replace(t, match_id=mid, bots=tuple(bots), stats=stats)


def build(db: Path, matches: int, bots: int = 30, seed: int = 7) -> str:
    """Write the database; returns the ladder's id."""
    rng = random.Random(seed)
    tmpl = played(seed)
    rules = Rules()
    with Store(db) as store:
        versions = [
            store.add_bot_version(f"bot{i:03d}", f"class Bot:\n    n = {i}\n", "bot.py")[0].id
            for i in range(bots)
        ]
        robin = scheduler.tournament_id({"bench": "site_db", "seed": seed})
        config = {"rounds": 1, "seed": seed, "rules": rules.to_dict(), "limits": {}}
        store.ensure_tournament(robin, config, versions[:3], 6)
        store.write_results(
            robin, [dataclasses.replace(r, bots=tuple(versions[:3])) for r in tmpl[:6]]
        )
        ladder = {"kind": "ladder", "seed": seed, "rules": rules.to_dict(), "limits": {},
                  "bundled": [], "epoch_sets": EPOCH_SETS, "rounds": 0}  # fmt: skip
        lid = scheduler.tournament_id(ladder)
        store.ensure_tournament(lid, ladder, versions, 0, kind=LADDER)
        for v in versions:
            store.join_ladder(lid, v, 0)
        sets = max(1, matches // 6)
        for first in range(0, sets, BATCH_SETS):
            _store_sets(store, lid, versions, first, min(sets, first + BATCH_SETS), tmpl, rng)
        current_standings(store, lid, refit=True)
    return lid


def _store_sets(
    store: Store,
    lid: str,
    versions: list[int],
    first: int,
    end: int,
    tmpl: list[MatchRecord],
    rng: random.Random,
) -> None:
    """Store sets ``first`` to ``end - 1`` in one transaction, as a ladder does set by set."""
    for epoch in range(first // EPOCH_SETS, (end - 1) // EPOCH_SETS + 1):
        store.open_epoch(lid, epoch, epoch * EPOCH_SETS, rng.randrange(2**31))
    rows, records = [], []
    stamp = now()
    for step in range(first, end):
        triple = rng.sample(versions, 3)
        key = f"s{step:07d}"
        rows.append((lid, step, *triple, step // EPOCH_SETS, key, "random", stamp, stamp))
        base = rng.randrange(len(tmpl) // 6) * 6
        for seating in range(6):
            bots = [triple[(k + seating) % 3] for k in range(3)]
            records.append(_copy(tmpl[base + seating], f"m{step:07d}{seating}", bots, rng))
    records = [dataclasses.replace(r, set_key=f"s{int(r.match_id[1:8]):07d}",
                                   round=int(r.match_id[1:8])) for r in records]  # fmt: skip
    with store._transaction():
        store.conn.executemany(
            "INSERT INTO ladder_sets (ladder_id, step, bot0, bot1, bot2, epoch, set_key, "
            "reason, scheduled_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        store._put_results(lid, records)
        store.conn.execute(
            "UPDATE tournaments SET total_matches = (SELECT COUNT(*) FROM matches "
            "WHERE tournament_id = ?), rounds = ?, updated_at = ? WHERE id = ?",
            (lid, end, stamp, lid),
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.db.exists():
        sys.exit(f"site_db.py: {args.db} exists; give a new file")
    if args.bots < 3 or args.matches < 6:
        sys.exit("site_db.py: at least 3 bots and 6 matches")
    start = time.perf_counter()
    lid = build(args.db, args.matches, args.bots, args.seed)
    print(f"ladder {lid}: {args.matches // 6 * 6} matches in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
