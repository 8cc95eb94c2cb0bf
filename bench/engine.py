"""Engine speed: hands/s and matches/s of ``play_match`` with in-process bots on one core.

Run by hand (it is a benchmark, not a test)::

    python bench/engine.py               # about 8 s
    python bench/engine.py --seconds 20  # longer, steadier

Each configuration plays the same fixed batch of seeded matches in every repetition, and the
configurations take turns (interleaved), so drift in this shared machine's speed hits them
alike. The median and the best repetition are printed; the median is the figure to quote.
Also printed: hands per CPU-second of this process (steadier when other jobs share the
machine) and how many cores other processes kept busy meanwhile (from ``/proc/stat``).

Configurations:

* ``random``: ``bots/random_bot.py``'s ``Bot`` (uniform over ``obs["legal"]``), default rules.
  The figure the engine is held to (>= 6,000 hands/s median).
* ``first-legal``: always ``obs["legal"][0]``, the floor with the cheapest possible bot. Under
  the default rules such bots pass every hand and a match never ends, so this row uses
  ``stick_the_dealer``: the dealer names a suit, everyone goes alone, tricks have 2 cards.
* ``last-legal``: always ``obs["legal"][-1]`` (orders up, declines, never alone, keeps the last
  5-card subset): full 3-player hands with the dummy, without any random draws.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(_ROOT), str(_ROOT / "bots")]

from random_bot import Bot as RandomBot  # noqa: E402

from arena.engine import Rules, play_match  # noqa: E402


class FirstLegal:
    """The cheapest bot there is."""

    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][0]


class LastLegal:
    """Deterministic and plays full hands (orders up, never goes alone)."""

    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][-1]


@dataclass
class Config:
    """One benchmarked setup: how to make the three bots, and the rules."""

    name: str
    make_bots: Callable[[int], list[Any]]
    rules: Rules
    matches: int = 0  # per repetition, sized by calibrate()


def random_bots(rep: int) -> list[Any]:
    """Three bundled random bots, seeded so every repetition plays the same matches."""
    return [RandomBot(seed=1000 + seat) for seat in range(3)]


CONFIGS = [
    Config("random", random_bots, Rules()),
    Config("first-legal", lambda rep: [FirstLegal()] * 3, Rules(stick_the_dealer=True)),
    Config("last-legal", lambda rep: [LastLegal()] * 3, Rules()),
]


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since boot (from /proc/stat; 0 elsewhere)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


@dataclass
class Sample:
    """One repetition of one configuration."""

    wall: float
    cpu: float  # this process only
    other: float  # CPU seconds used by everything else on the machine meanwhile
    matches: int
    hands: int
    decisions: int


def run(cfg: Config, rep: int) -> Sample:
    """Play the configuration's batch once."""
    bots = cfg.make_bots(rep)
    gc.collect()
    hands = decisions = 0
    busy0, c0, t0 = busy_seconds(), time.process_time(), time.perf_counter()
    for s in range(cfg.matches):
        # Counted on the fly: keeping every result alive would time the garbage collector.
        m = play_match(bots, seed=s, rules=cfg.rules)
        hands += len(m.hands)
        decisions += sum(len(h.log) for h in m.hands)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    other = max(0.0, busy_seconds() - busy0 - cpu)
    return Sample(wall, cpu, other, cfg.matches, hands, decisions)


def calibrate(cfg: Config, seconds: float) -> None:
    """Size the batch so that one repetition takes about ``seconds``."""
    cfg.matches = 20
    while True:
        dt = run(cfg, 0).wall
        if dt >= seconds / 4:
            cfg.matches = max(1, int(cfg.matches * seconds / dt))
            return
        cfg.matches *= 2


def main(argv: list[str] | None = None) -> None:
    """Measure every configuration and print one line each."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=8.0, help="total measuring time (about)")
    ap.add_argument("--reps", type=int, default=7, help="interleaved repetitions per config")
    args = ap.parse_args(argv)
    random.seed(0)
    per_rep = args.seconds / (args.reps * len(CONFIGS))
    for cfg in CONFIGS:
        calibrate(cfg, per_rep)
    samples: dict[str, list[Sample]] = {c.name: [] for c in CONFIGS}
    for rep in range(args.reps):
        for cfg in CONFIGS:
            samples[cfg.name].append(run(cfg, rep))
    every = [x for runs in samples.values() for x in runs]
    load = sum(x.other for x in every) / sum(x.wall for x in every)
    print(
        f"python {sys.version.split()[0]}, {args.reps} interleaved repetitions, one core; "
        f"other load meanwhile {load:.2f} of {os.cpu_count()} cores"
    )
    print(
        f"{'bots':<12} {'hands/s median':>14} {'best':>7} {'per CPU-s':>9}"
        f" {'matches/s median':>16} {'best':>6} {'hands/match':>11} {'decisions/hand':>14}"
    )
    for cfg in CONFIGS:
        runs = samples[cfg.name]
        first = runs[0]
        hps = [x.hands / x.wall for x in runs]
        per_cpu = [x.hands / x.cpu for x in runs if x.cpu > 0]
        mps = [x.matches / x.wall for x in runs]
        print(
            f"{cfg.name:<12} {statistics.median(hps):>14,.0f} {max(hps):>7,.0f}"
            f" {statistics.median(per_cpu):>9,.0f}"
            f" {statistics.median(mps):>16,.0f} {max(mps):>6,.0f}"
            f" {first.hands / first.matches:>11.2f} {first.decisions / first.hands:>14.2f}"
        )
    if load > 0.5:
        print("warning: the machine was busy with other work; wall-clock figures are low")


if __name__ == "__main__":
    main()
