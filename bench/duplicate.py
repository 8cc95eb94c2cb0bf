"""Duplicate-play reports of a stored tournament, and how much the duplicate score narrows
intervals compared with raw points (``arena.stats.duplicate``).

Run a real tournament first, e.g. the bundled bots sandboxed::

    arena run bots/random_bot.py bots/heuristic.py bots/montecarlo.py --rounds 150 \\
        --db dup.db --no-site
    python bench/duplicate.py --db dup.db

Prints, per bot, the duplicate score (points minus the par of the same deal and seat) and the
raw mean points, each with its 95 % interval over deals, and the luck share (the cards' share
of raw points' variance, which the par removed: 0 when it removed none); the same pooled share
with the deals shuffled among the matches of each seating (a control: every deal is still a
complete set, but the par compares results of different cards, so there is no luck to remove
and the share must come out near 0); then
the seat and dealer bias report and any significant non-transitive cycle in the pairwise
table.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import statistics
import sys
from pathlib import Path

from arena import stats
from arena.stats.duplicate import (
    SeatRecord,
    cycles,
    duplicate_scores,
    seat_bias,
    seat_records,
)
from arena.store import Store
from arena.views.reports import Reports


def interval(low: float | None, high: float | None) -> str:
    """``[low, high]`` or ``n/a``."""
    return "n/a" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"


def pooled(records: list[SeatRecord]) -> float:
    """The pooled luck share of ``arena standings`` (``Reports.luck_share``)."""
    scores = tuple(duplicate_scores(records))
    share = Reports({}, scores, seat_bias([]), ()).luck_share
    return math.nan if share is None else share


def shuffled(records: list[SeatRecord], rng: random.Random) -> list[SeatRecord]:
    """The same matches with their deals dealt out again at random among the matches of the
    same seating (which bot in which seat): every deal still holds one match of each seating,
    a complete duplicate set, but of different cards, so there is no shared luck to remove."""
    seating: dict[str, dict[int, int]] = {}
    deal_of: dict[str, str] = {}
    for r in records:
        seating.setdefault(r.match_id, {})[r.seat] = r.bot
        deal_of[r.match_id] = r.unit
    groups: dict[tuple[int, ...], list[str]] = {}
    for m, seats in sorted(seating.items()):
        groups.setdefault(tuple(seats[k] for k in sorted(seats)), []).append(m)
    new: dict[str, str] = {}
    for matches in groups.values():
        deals = [deal_of[m] for m in matches]
        rng.shuffle(deals)
        new.update(zip(matches, deals, strict=True))
    return [dataclasses.replace(r, unit=new[r.match_id]) for r in records]


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="the tournament's database")
    ap.add_argument("--tournament", help="tournament id or prefix (default: the latest)")
    ap.add_argument("--shuffles", type=int, default=20, help="shuffled-deal controls")
    ap.add_argument("--seed", type=int, default=1, help="seed of the shuffles")
    args = ap.parse_args(argv)

    store = Store(args.db, create=False)
    t = store.tournament(args.tournament)
    names = {v.id: v.name for v in store.tournament_entrants(t.id)}
    records = seat_records(store.duplicate_seats(t.id))
    deals = len({r.unit for r in records})
    print(f"tournament {t.id}: {len(records) // 3} matches, {deals} deals (set and round)")

    print(f"\n{'bot':<12} {'duplicate score':>28} {'raw points':>28} {'luck share':>15}")
    for d in duplicate_scores(records):
        s, p = d.score, d.points
        ratio = d.luck_share
        print(
            f"{names[d.bot]:<12} {s.value:>+7.3f} {interval(s.low, s.high):>20} "
            f"{p.value:>7.3f} {interval(p.low, p.high):>20} "
            f"{'n/a' if ratio is None else f'{ratio:.2f}':>15}"
        )
    print(f"pooled luck share {pooled(records):.2f} (0: the par removed no luck)")
    rng = random.Random(args.seed)
    controls = [pooled(shuffled(records, rng)) for _ in range(args.shuffles)]
    print(
        f"with the deals shuffled ({args.shuffles} times): mean {statistics.mean(controls):.2f}, "
        f"from {min(controls):.2f} to {max(controls):.2f}"
    )

    bias = seat_bias(records)
    print("\nposition (from the first dealer)   mean place [95 %]          mean points [95 %]")
    for pos in bias.positions:
        pl, pt = pos.place, pos.points
        print(
            f"{pos.name:<34} {pl.value:.3f} {interval(pl.low, pl.high):<20} "
            f"{pt.value:.2f} {interval(pt.low, pt.high)}"
        )
    print(f"verdict: {bias.verdict}")

    table = stats.compute(stats.Outcomes.build(names, store.match_outcomes(t.id), {}), names)
    pairs = {(s.bot, o): p.interval for s in table for o, p in s.above.items()}
    found = cycles(pairs)
    print(f"\nsignificant cycles in the placed-above table: {len(found) or 'none'}")
    for c in found:
        print("  " + " > ".join(names[b] for b in c.bots) + f" > {names[c.bots[0]]}")
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
