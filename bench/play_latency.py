"""How long a person waits in a human game: from asking for a game to the first decision, and
from each answer to the next decision (the bots' turns between, sandboxed, and the seat's
round trip through its pipes), measured through the library (``Arena.play_human``).

Plays ``--games`` whole games in turn against two bundled bots, the "person" answering the
first legal action at once; prints the start time (median, max) and the answer-to-decision
time (median, p99, max) over every decision. Example::

    python bench/play_latency.py --games 3 heuristic random
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from arena import Arena
from arena.tournaments.entrants import resolve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("opponents", nargs=2, default=["heuristic", "random"])
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    starts: list[float] = []
    waits: list[float] = []
    with tempfile.TemporaryDirectory() as folder, Arena(Path(folder) / "a.db") as arena:
        resolve(arena.store, args.opponents, minimum=2)
        for _ in range(args.games):
            began = time.perf_counter()
            game = arena.play_human(args.opponents, seat=0)
            version, answered = -1, None
            while not game.finished:
                version = game.wait(version, 10)
                decision = game.decision
                if decision is None:
                    continue
                now = time.perf_counter()
                if answered is None:
                    starts.append(now - began)
                else:
                    waits.append(now - answered)
                answered = time.perf_counter()
                game.answer(decision.legal[0], decision.turn)
            game.join(30)
    waits.sort()
    p99 = waits[min(len(waits) - 1, int(0.99 * len(waits)))]
    print(f"{args.games} games, {len(waits) + len(starts)} decisions of the person")
    print(
        f"start to first decision: median {statistics.median(starts):.3f} s, "
        f"max {max(starts):.3f} s"
    )
    print(
        f"answer to next decision: median {1000 * statistics.median(waits):.1f} ms, "
        f"p99 {1000 * p99:.1f} ms, max {1000 * waits[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
