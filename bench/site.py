"""Benchmark: render the standings site of an existing database (run by hand).

    python bench/site.py arena.db [--repeat 3]

Prints the pages written, the seconds per render (best of --repeat) and pages per second.
Produce a database first, e.g. ``arena run bots/*.py --rounds 4 --no-site``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from arena.site import render_site


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    best = float("inf")
    pages = 0
    size = 0
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            render_site(args.db, out)
            best = min(best, time.perf_counter() - start)
            files = list(Path(out).rglob("*.html"))
            pages = len(files)
            size = sum(f.stat().st_size for f in files)
    print(
        f"{pages} pages, {size / 1e6:.1f} MB: best {best:.2f} s per render, "
        f"{pages / best:.0f} pages/s"
    )


if __name__ == "__main__":
    main()
