"""Benchmark: the live site at 10k and 100k stored matches, this checkout against another.

    python bench/site.py --sizes 10000,100000 --against /tmp/before [--bots 30]
    python bench/site.py --sizes 10000                 # this checkout only
    python bench/site.py arena.db [--repeat 3]         # render an existing database

For each size it writes a ladder database (``bench/site_db.py``: through the store, so its
running totals are real), makes its stored reports once (a first ``arena standings``), and
gives each checkout a copy of its own. Then, for each checkout in turn (its code first on
``PYTHONPATH``), side by side in one run:

- ``arena ladder --status`` and ``arena standings --tournament LADDER``: CPU seconds of the
  command (a fresh interpreter, imports included) and wall, median of three;
- a full render (``render_site(full=True)``): wall and CPU seconds; the pages' digests, so
  that the two checkouts' pages are compared byte for byte (the same database);
- 20 sets of six matches stored as a ladder stores them (``finish_ladder_set``): the median
  CPU seconds of storing one (the running totals are kept there);
- one more set stored, then ``update``: wall and CPU seconds and the pages written; and an
  ``update`` with nothing new.

Printed: one line per figure, before, after and before/after.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.matches.record import MatchRecord
    from arena.store import Store

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _render_existing(db: Path, repeat: int) -> None:
    from arena.site import render_site

    best = float("inf")
    pages = size = 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            render_site(db, out, full=True)
            best = min(best, time.perf_counter() - start)
            files = list(Path(out).rglob("*.html"))
            pages, size = len(files), sum(f.stat().st_size for f in files)
    print(
        f"{pages} pages, {size / 1e6:.1f} MB: best {best:.2f} s per render, "
        f"{pages / best:.0f} pages/s"
    )


def _timed(fn: object) -> tuple[float, float, object]:
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()  # type: ignore[operator]
    return time.perf_counter() - start, time.process_time() - cpu, out


STORED_SETS = 20
"""Sets the worker stores (timed) before the one whose update it times."""


def _store_set(
    store: Store, lid: str, tmpl: list[MatchRecord], rng: random.Random, triple: tuple[int, ...]
) -> float:
    """Schedule and store the ladder's next set of these three bots, as a ladder does; the
    CPU seconds of storing it (``finish_ladder_set``)."""
    import site_db

    last = store.ladder_sets(lid)[-1]
    step = last.step + 1
    a, b, c = triple
    store.schedule_ladder_set(lid, step, (a, b, c), last.epoch, f"s{step:07d}", "bench")
    records = [
        dataclasses.replace(
            site_db._copy(
                t, f"m{step:07d}{t.seating}", [triple[(k + t.seating) % 3] for k in range(3)], rng
            ),
            set_key=f"s{step:07d}",
            round=step,
        )
        for t in tmpl[:6]
    ]
    cpu = time.process_time()
    store.finish_ladder_set(lid, step, records)
    return time.process_time() - cpu


def _worker(db: Path, site: Path, lid: str) -> None:
    """Run under the checkout measured: full render, sets stored, one more set and the update
    after it; one JSON line."""
    sys.path.insert(0, str(HERE))
    import site_db

    from arena.site import render_site, update
    from arena.store import Store

    wall, cpu, _ = _timed(lambda: render_site(db, site, full=True))
    digests = {
        str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest()[:16]
        for p in sorted(site.rglob("*.html"))
    }
    out: dict[str, object] = {"full": [wall, cpu], "pages": digests}
    rng = random.Random(1)
    tmpl = site_db.played(7)
    with Store(db, create=False) as store:
        ids = sorted(store.entrant_ids(lid))
        spent = [
            _store_set(store, lid, tmpl, rng, tuple(rng.sample(ids, 3))) for _ in range(STORED_SETS)
        ]
        out["store"] = [statistics.median(spent), statistics.median(spent)]
        update(store, site)  # (not timed: the site catches up with those sets)
        _store_set(store, lid, tmpl, rng, tuple(ids[:3]))
        wall, cpu, done = _timed(lambda: update(store, site))
        out["update"] = [wall, cpu, done.written]  # type: ignore[attr-defined]
        wall, cpu, done = _timed(lambda: update(store, site))
        out["idle"] = [wall, cpu, done.written]  # type: ignore[attr-defined]
    print(json.dumps(out))


def _command(code: Path, args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (the child's, user + system) of one arena command."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "from arena.cli import main; main()", *args],
        env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        cwd=code,  # "-c" puts the working folder first on the path, before PYTHONPATH
    )  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _side(code: Path, db: Path, root: Path, lid: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, args in (
        ("status", ["ladder", "--status", "--db", str(db)]),
        ("standings", ["standings", "--tournament", lid, "--db", str(db)]),
    ):
        runs = [_command(code, args) for _ in range(3)]
        out[name] = [statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)]
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", str(db),
         str(root / "site"), lid],
        env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    out.update(json.loads(done.stdout.strip().splitlines()[-1]))
    return out


def _row(label: str, before: float | None, after: float, unit: str = "s") -> str:
    if before is None:
        return f"  {label:<34} {after:9.3f} {unit}"
    ratio = before / after if after else float("inf")
    return f"  {label:<34} {before:9.3f} {unit} {after:9.3f} {unit}   {ratio:6.1f}x"


def _report(size: int, sides: dict[str, dict[str, object]]) -> None:
    after = sides["after"]
    before = sides.get("before")
    head = "before      after     before/after" if before else "after"
    print(f"{size} matches:{'':<27}{head}")

    def pick(side: dict[str, object] | None, key: str, i: int) -> float | None:
        return None if side is None else float(side[key][i])  # type: ignore[index]

    for label, key, i in (
        ("update after one set, wall", "update", 0),
        ("update after one set, CPU", "update", 1),
        ("update with nothing new, wall", "idle", 0),
        ("storing a set, CPU (median of 20)", "store", 1),
        ("full render, wall", "full", 0),
        ("full render, CPU", "full", 1),
        ("arena ladder --status, CPU", "status", 1),
        ("arena ladder --status, wall", "status", 0),
        ("arena standings (ladder), CPU", "standings", 1),
        ("arena standings (ladder), wall", "standings", 0),
    ):
        print(_row(label, pick(before, key, i), float(pick(after, key, i) or 0.0)))
    written = after["update"][2]  # type: ignore[index]
    print(f"  pages written by the update: {written}", end="")
    if before is not None:
        a, b = after["pages"], before["pages"]
        assert isinstance(a, dict) and isinstance(b, dict)
        same = sorted(p for p in a if b.get(p) == a[p])
        differ = sorted(p for p in a if p in b and b[p] != a[p])
        print(f" (before: {before['update'][2]}); full render: {len(same)} pages byte-identical "  # type: ignore[index]
              f"to the other checkout's, {len(differ)} differ {differ[:5]}", end="")  # fmt: skip
    print(flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", nargs="?", type=Path, help="render this database (the old bench)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--against", type=Path, help="another checkout, measured first")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        db, site, lid = args.worker
        _worker(Path(db), Path(site), lid)
        return
    if args.db is not None:
        _render_existing(args.db, args.repeat)
        return
    sys.path.insert(0, str(HERE))
    import site_db

    sides = {"after": ROOT}
    if args.against is not None:
        sides = {"before": args.against.resolve(), "after": ROOT}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.bots} bots")
    for size in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "site.db"
            start = time.perf_counter()
            lid = site_db.build(db, size, args.bots)
            # The ladder's reports, stored once (a read computes them but stores nothing).
            _command(ROOT, ["standings", "--tournament", lid, "--db", str(db), "--refit"])
            print(f"{size} matches written in {time.perf_counter() - start:.0f} s", flush=True)
            measured = {}
            for name, code in sides.items():
                root = Path(tmp) / name
                root.mkdir()
                for suffix in ("", "-wal", "-shm"):
                    if Path(f"{db}{suffix}").exists():
                        shutil.copy(f"{db}{suffix}", root / f"site.db{suffix}")
                measured[name] = _side(code, root / "site.db", root, lid)
                shutil.rmtree(root)
            _report(size, measured)


if __name__ == "__main__":
    main()
