"""How much wall time the bundled bots take per decision and per match, as the match clock sees it.

Plays matches of the three bundled bots (random, heuristic, montecarlo; every seating in turn)
in the real sandbox under the default limits, and times every turn of every bot the way the
match clock does (from the arena side: the loading turn, then each decision, forced ones
included). Prints per bot the distribution of its per-decision wall time, its per-match total,
and the bank each increment would need to cover the worst match seen. The numbers chose the
clock's defaults (docs/sandbox.md, "The match clock"). With ``--attack FILE`` it times instead
one match of that bot against random and heuristic, under the default clock or, with
``--no-clock``, a clock too long to matter (the arena before the clock). Run by hand, e.g.::

    python bench/clock.py --matches 30
    python bench/clock.py --attack tests/attacks/clock_drain.py [--no-clock]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from arena.engine import play_match  # noqa: E402
from arena.sandbox import BotPool, BotSource, Limits, bot_random_seed  # noqa: E402
from arena.sandbox.botfile import bundled  # noqa: E402
from arena.sandbox.proxy import SeatProxy  # noqa: E402

NAMES = ("random", "heuristic", "montecarlo")
INCREMENTS = (0.0, 0.1, 0.25, 0.5, 1.0)


class Timed:
    """A seat proxy that also keeps the wall time of each of its turns."""

    def __init__(self, proxy: SeatProxy) -> None:
        self.proxy = proxy
        self.asked: list[float] = []
        self.turns: list[float] = []

    def load(self, seed: bytes) -> None:
        t = time.perf_counter()
        self.proxy.load(seed)
        self.turns.append(time.perf_counter() - t)

    def act(self, obs: dict[str, Any]) -> Any:
        t = time.perf_counter()
        action = self.proxy.act(obs)
        took = time.perf_counter() - t
        self.turns.append(took)
        if len(obs["legal"]) > 1:
            self.asked.append(took)
        return action


def pct(xs: list[float], q: float) -> float:
    """The q-quantile (0..1) of xs."""
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))] if ys else 0.0


def bank_needed(turns: list[float], increment: float) -> float:
    """The least bank with which these turns (loading first) never run the clock out."""
    need, used = 0.0, 0.0
    for k, took in enumerate(turns):
        used += took
        need = max(need, used - k * increment)  # turn k > 0 is decision k, with k increments
    return need


def attack(path: str, no_clock: bool, seed: int) -> None:
    """Time one match of the bot at ``path`` (seat 0) against random and heuristic."""
    limits = (
        Limits(clock_bank_seconds=5400.0, clock_increment_seconds=0.0) if no_clock else Limits()
    )
    bot = BotSource("attacker", open(path).read(), os.path.basename(path))
    others = [BotSource(n, bundled(n).read_text(), bundled(n).name) for n in NAMES[:2]]
    with BotPool(limits) as pool:
        t = time.perf_counter()
        out = pool.play_match([bot, *others], seed)
        took = time.perf_counter() - t
    clock = f"{limits.clock_bank_seconds:g} s + {limits.clock_increment_seconds:g} s a decision"
    print(f"one match, clock {clock}: {took:.1f} s; faults: {[str(f) for f in out.faults]}")
    for seat, st in enumerate(out.stats):
        print(f"  seat {seat}: clock {st['clock_seconds']:.3f} s, CPU {st['cpu_seconds']:.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--attack", help="time one match of this bot file instead")
    ap.add_argument("--no-clock", action="store_true", help="with --attack: a 5400 s bank")
    args = ap.parse_args()
    if args.attack:
        attack(args.attack, args.no_clock, args.seed)
        return
    limits = Limits()
    sources = [BotSource(n, bundled(n).read_text(), bundled(n).name) for n in NAMES]
    seatings = [(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 2, 1), (2, 1, 0), (1, 0, 2)]
    asked: dict[str, list[float]] = {n: [] for n in NAMES}
    loads: dict[str, list[float]] = {n: [] for n in NAMES}
    totals: dict[str, list[float]] = {n: [] for n in NAMES}
    counts: dict[str, list[int]] = {n: [] for n in NAMES}
    cpu: dict[str, list[float]] = {n: [] for n in NAMES}
    banks: dict[str, dict[float, float]] = {n: dict.fromkeys(INCREMENTS, 0.0) for n in NAMES}
    faults = []
    started = time.perf_counter()
    with BotPool(limits) as pool:
        for m in range(args.matches):
            order = seatings[m % 6]
            seed = args.seed + m // 6
            timed = []
            for seat, b in enumerate(order):
                z = pool._zygote(sources[b], 0)
                timed.append(Timed(SeatProxy(seat, z.fork(), limits)))
            for seat, t in enumerate(timed):
                t.load(bot_random_seed(seed, seat))
            play_match(timed, seed)
            for b, t in zip(order, timed, strict=True):
                name = NAMES[b]
                if t.proxy.fault is not None:
                    faults.append(f"{name}: {t.proxy.fault}")
                asked[name] += t.asked
                loads[name].append(t.turns[0])
                totals[name].append(sum(t.turns))
                counts[name].append(len(t.turns) - 1)
                cpu[name].append(t.proxy.stats()["cpu_seconds"])
                for inc in INCREMENTS:
                    banks[name][inc] = max(banks[name][inc], bank_needed(t.turns, inc))
                assert t.proxy.child is not None
                t.proxy.child.close()
    took = time.perf_counter() - started
    print(f"{args.matches} matches in {took:.1f} s; load average {os.getloadavg()[0]:.2f}")
    print(f"faults: {faults or 'none'}")
    ms = 1000
    for n in NAMES:
        a = asked[n]
        print(
            f"{n:10s} decision wall ms (asked, n={len(a)}): p50 {pct(a, 0.5) * ms:.1f}  "
            f"p90 {pct(a, 0.9) * ms:.1f}  p99 {pct(a, 0.99) * ms:.1f}  max {max(a) * ms:.1f}"
        )
        print(
            f"{'':10s} loading ms: p50 {pct(loads[n], 0.5) * ms:.1f}  max {max(loads[n]) * ms:.1f};"
            f" per match: decisions max {max(counts[n])}, wall p50 {pct(totals[n], 0.5):.3f} s"
            f" max {max(totals[n]):.3f} s, CPU max {max(cpu[n]):.3f} s"
        )
        need = ", ".join(f"+{inc:g} s: {banks[n][inc]:.2f} s" for inc in INCREMENTS)
        print(f"{'':10s} bank needed for the worst match, by increment: {need}")


if __name__ == "__main__":
    main()
