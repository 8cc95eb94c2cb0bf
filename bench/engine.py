"""Engine speed: ``play_match`` of this tree against an older engine, and state rollouts.

Run by hand (it is a benchmark, not a test)::

    python bench/engine.py                    # about 20 s, old engine = 11de8a4's
    python bench/engine.py --old REV          # compare with another plain engine
    python bench/engine.py --seconds 60       # longer, steadier
    python bench/engine.py --before main      # and the game-state engine of main, side by side

The old engine is ``git show REV:arena/engine.py`` loaded into a temporary module at bench
time (nothing is committed; it must import only ``arena.cards`` and the standard library, as
every engine before the game state did). The default, 11de8a4, is the last one before the
game state: the plain reference engine.

Each configuration plays the same fixed batch of seeded matches in every repetition, and the
engines and configurations take turns (interleaved, the order alternating), so drift in this
shared machine's speed hits them alike. Printed per row: the median hands/s of each engine
(wall clock), the median of the per-repetition ratios new/old measured in CPU seconds of this
process (steadier when other jobs share the machine), and how many cores other processes kept
busy meanwhile (from ``/proc/stat``).

Configurations:

* ``random``: ``bots/random_bot.py``'s ``Bot`` (uniform over ``obs["legal"]``), default rules.
* ``first-legal``: always ``obs["legal"][0]``, the floor with the cheapest possible bot. Under
  the default rules such bots pass every hand and a match never ends, so this row uses
  ``stick_the_dealer``: the dealer names a suit, everyone goes alone, tricks have 2 cards.
* ``last-legal``: always ``obs["legal"][-1]`` (orders up, declines, never alone, keeps the last
  5-card subset): full 3-player hands with the dummy, without any random draws.

The last row, ``rollouts``, is what a search bot does: from each hand's first position, a copy
of the :class:`~arena.game.GameState` played to the end by uniformly random
``legal_actions()`` + ``apply()``, no observations; its ratio is decisions per CPU-second
against ``play_match`` of this tree with random bots, in the same repetitions.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(_ROOT), str(_ROOT / "bots")]

from random_bot import Bot as RandomBot  # noqa: E402

from arena import engine  # noqa: E402
from arena.engine import Rules, first_dealer  # noqa: E402


class FirstLegal:
    """The cheapest bot there is."""

    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][0]


class LastLegal:
    """Deterministic and plays full hands (orders up, never goes alone)."""

    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][-1]


def random_bots() -> list[Any]:
    """Three bundled random bots, seeded so every repetition plays the same matches."""
    return [RandomBot(seed=1000 + seat) for seat in range(3)]


@dataclass
class Config:
    """One benchmarked setup: how to make the three bots, and the rules."""

    name: str
    make_bots: Callable[[], list[Any]]
    rules: Rules
    matches: int = 0  # per repetition, sized by calibrate()


CONFIGS = [
    Config("random", random_bots, Rules()),
    Config("first-legal", lambda: [FirstLegal()] * 3, Rules(stick_the_dealer=True)),
    Config("last-legal", lambda: [LastLegal()] * 3, Rules()),
]


def load_old_engine(rev: str) -> ModuleType:
    """``arena/engine.py`` of git revision ``rev`` as a temporary module."""
    try:
        source = subprocess.run(
            ["git", "-C", str(_ROOT), "show", f"{rev}:arena/engine.py"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"error: cannot read arena/engine.py at {rev!r}: {e}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "old_engine.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("old_engine", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["old_engine"] = module  # dataclasses look their module up while defining
        spec.loader.exec_module(module)
    if "arena.game" in source or "arena.rules" in source:
        sys.exit(f"error: the engine at {rev!r} is already the game-state one; give an older --old")
    return module


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
    """One repetition of one configuration on one engine."""

    wall: float
    cpu: float  # this process only
    other: float  # CPU seconds used by everything else on the machine meanwhile
    hands: int
    decisions: int


def timed(work: Callable[[], tuple[int, int]]) -> Sample:
    """Run ``work`` (returning hands and decisions) once, timed."""
    gc.collect()
    busy0, c0, t0 = busy_seconds(), time.process_time(), time.perf_counter()
    hands, decisions = work()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return Sample(wall, cpu, max(0.0, busy_seconds() - busy0 - cpu), hands, decisions)


def matches(play_match: Callable[..., Any], cfg: Config) -> Callable[[], tuple[int, int]]:
    """The configuration's batch of matches with ``play_match`` of some engine."""

    def work() -> tuple[int, int]:
        bots = cfg.make_bots()
        hands = decisions = 0
        for seed in range(cfg.matches):
            # Counted on the fly: keeping every result alive would time the garbage collector.
            m = play_match(bots, seed=seed, rules=cfg.rules)
            hands += len(m.hands)
            decisions += sum(len(h.log) for h in m.hands)
        return hands, decisions

    return work


def load_tree(rev: str) -> ModuleType:
    """The game-state engine of git revision ``rev`` (its ``arena.cards``, ``arena.rules``,
    ``arena.game`` and ``arena.engine``) as the temporary package ``before_arena``; returns its
    engine module (``GameState`` included)."""
    package = ModuleType("before_arena")
    package.__path__ = []
    sys.modules["before_arena"] = package
    for name in ("cards", "rules", "keeps", "game", "engine"):
        try:
            source = subprocess.run(
                ["git", "-C", str(_ROOT), "show", f"{rev}:arena/{name}.py"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            if name == "keeps":  # before the keep's lazy options (arena/keeps.py)
                continue
            sys.exit(f"error: cannot read arena/{name}.py at {rev!r}: {e}")
        module = ModuleType(f"before_arena.{name}")
        module.__file__ = f"{rev}:arena/{name}.py"
        sys.modules[module.__name__] = module  # dataclasses look their module up
        code = source.replace("from arena.", "from before_arena.")
        exec(compile(code, module.__file__, "exec"), module.__dict__)
    return sys.modules["before_arena.engine"]


def rollouts(cfg: Config, eng: Any = engine) -> Callable[[], tuple[int, int]]:
    """Random playouts of copies of each hand's first position (no observations), with the
    ``GameState`` of engine module ``eng``."""
    starts = [
        eng.GameState(eng.deal_for(seed, k, cfg.rules), cfg.rules, (first_dealer(seed) + k) % 3)
        for seed in range(cfg.matches)
        for k in range(7)
    ]

    def work() -> tuple[int, int]:
        draw = random.Random(7).random
        decisions = 0
        for start in starts:
            state = start.copy()
            while state.turn is not None:
                legal = state.legal_actions()
                state.apply(legal[int(draw() * len(legal))])
            decisions += len(state.log)
        return len(starts), decisions

    return work


@dataclass
class Row:
    """The samples of one row: the old and the new engine, repetition by repetition, and the
    ``--before`` tree's (the ``rollouts`` row has no old samples)."""

    name: str
    old: list[Sample] = field(default_factory=list)
    new: list[Sample] = field(default_factory=list)
    before: list[Sample] = field(default_factory=list)


def calibrate(cfg: Config, seconds: float) -> None:
    """Size the batch so that one repetition takes about ``seconds``."""
    cfg.matches = 10
    while True:
        dt = timed(matches(engine.play_match, cfg)).wall
        if dt >= seconds / 4:
            cfg.matches = max(1, int(cfg.matches * seconds / dt))
            return
        cfg.matches *= 2


def measure(
    old: ModuleType, reps: int, seconds: float, before: ModuleType | None = None
) -> list[Row]:
    """Interleave every configuration on every engine, then the rollouts."""
    engines = [("old", old), ("new", engine)] + ([("before", before)] if before else [])
    per_run = seconds / (reps * (len(engines) * len(CONFIGS) + len(engines) - 1))
    for cfg in CONFIGS:
        calibrate(cfg, per_run)
    rows = [Row(cfg.name) for cfg in CONFIGS]
    rollout_row = Row("rollouts")
    rolls = [(which, rollouts(CONFIGS[0], eng)) for which, eng in engines if which != "old"]
    for rep in range(reps):
        turn = engines if rep % 2 == 0 else engines[::-1]
        for cfg, row in zip(CONFIGS, rows, strict=True):
            for which, eng in turn:
                getattr(row, which).append(timed(matches(eng.play_match, cfg)))
        for which, work in rolls if rep % 2 == 0 else rolls[::-1]:
            getattr(rollout_row, which).append(timed(work))
    return [*rows, rollout_row]


def _ratio(new: list[Sample], old: list[Sample], per: str = "hands") -> float:
    """The median over repetitions of new's work per CPU-second over old's."""
    return statistics.median(
        (getattr(n, per) / n.cpu) / (getattr(o, per) / o.cpu) for o, n in zip(old, new, strict=True)
    )


def report(rows: list[Row], reps: int, old_rev: str) -> None:
    """One line per row."""
    every = [x for row in rows for x in (*row.old, *row.new, *row.before)]
    load = sum(x.other for x in every) / sum(x.wall for x in every)
    print(
        f"python {sys.version.split()[0]}, {reps} interleaved repetitions, one core; old = "
        f"{old_rev}; other load meanwhile {load:.2f} of {os.cpu_count()} cores"
    )
    print(
        f"{'bots':<12} {'old hands/s':>11} {'new hands/s':>11} {'new/old (CPU)':>13}"
        f" {'old us/dec':>10} {'new us/dec':>10} {'decisions/hand':>14}"
    )
    for row in rows:
        if row.name == "rollouts":
            continue
        ratios = [
            (n.hands / n.cpu) / (o.hands / o.cpu) for o, n in zip(row.old, row.new, strict=True)
        ]
        print(
            f"{row.name:<12} {statistics.median(x.hands / x.wall for x in row.old):>11,.0f}"
            f" {statistics.median(x.hands / x.wall for x in row.new):>11,.0f}"
            f" {statistics.median(ratios):>13.3f}"
            f" {statistics.median(1e6 * x.cpu / x.decisions for x in row.old):>10.2f}"
            f" {statistics.median(1e6 * x.cpu / x.decisions for x in row.new):>10.2f}"
            f" {row.new[0].decisions / row.new[0].hands:>14.2f}"
        )
    # Rollouts against play_match of this tree with random bots, repetition by repetition.
    matches_new, roll = rows[0].new, rows[-1].new
    ratios = [
        (r.decisions / r.cpu) / (m.decisions / m.cpu)
        for m, r in zip(matches_new, roll, strict=True)
    ]
    per_match = statistics.median(1e6 * x.cpu / x.decisions for x in matches_new)
    per_roll = statistics.median(1e6 * x.cpu / x.decisions for x in roll)
    print(
        f"rollouts: {per_roll:.2f} us per decision (legal_actions + apply on a copied state) vs "
        f"{per_match:.2f} us through play_match with random bots: "
        f"{statistics.median(ratios):.2f}x faster per decision (median of per-repetition ratios)"
    )
    # The same rollouts against the old (reference) engine's play_match, the fixed yardstick:
    # this ratio grows only when the game state gets faster.
    matches_old = rows[0].old
    against_old = [
        (r.decisions / r.cpu) / (m.decisions / m.cpu)
        for m, r in zip(matches_old, roll, strict=True)
    ]
    per_old = statistics.median(1e6 * x.cpu / x.decisions for x in matches_old)
    print(
        f"rollouts against the old engine's play_match ({per_old:.2f} us per decision): "
        f"{statistics.median(against_old):.2f}x"
    )
    if rows[0].before:
        print(
            "this tree against --before (CPU, median of per-repetition ratios): "
            + ", ".join(f"{row.name} {_ratio(row.new, row.before):.3f}" for row in rows[:-1])
            + f"; rollouts {_ratio(roll, rows[-1].before, 'decisions'):.3f}; --before's "
            f"rollouts against the old engine's play_match "
            f"{_ratio(rows[-1].before, matches_old, 'decisions'):.2f}x"
        )
    if load > 0.5:
        print("warning: the machine was busy with other work; wall-clock figures are low")


def main(argv: list[str] | None = None) -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20.0, help="total measuring time (about)")
    ap.add_argument("--reps", type=int, default=9, help="interleaved repetitions per config")
    ap.add_argument(
        "--old", default="11de8a4", metavar="REV", help="git revision of the old engine"
    )
    ap.add_argument(
        "--before",
        metavar="REV",
        help="also time the game-state engine of git revision REV (this tree's before a change)",
    )
    args = ap.parse_args(argv)
    old = load_old_engine(args.old)
    before = load_tree(args.before) if args.before else None
    random.seed(0)
    rows = measure(old, args.reps, args.seconds, before)
    report(rows, args.reps, args.old)


if __name__ == "__main__":
    main()
