"""Measure the playing strength of bots in duplicate matches, in-process.

Three bots (bot files, or bundled bots by name: ``random``, ``heuristic``, ``montecarlo``, or
by file stem such as ``random_bot``; a name may repeat) play every seed in all 6
seatings, so each seat's cards are the same for every bot over a duplicate set. For every pair
of distinct bots it reports the *placed-above rate*: the fraction of their meetings in which
the first finished strictly above the second, counting a shared place as a half. 0.5 means no
difference; the 95 % interval comes from a bootstrap that resamples whole duplicate sets
(seeds), so the correlation between the 6 seatings of one seed is respected.

As the sandbox does, the ``random`` module is seeded with ``bot_random_seed(seed, seat)`` right
before each bot is constructed, so runs are reproducible. Each bot's decisions are timed in
CPU seconds of its process (mean, median, 99th percentile and maximum are printed). A bot
that counts its search in an attribute ``nodes`` (the bundled ``montecarlo`` counts the solver's
nodes) also gets its search speed printed: nodes per CPU second of its decisions.

Example::

    python bench/strength.py random heuristic montecarlo --seeds 200 --workers 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import signal
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from itertools import permutations
from multiprocessing import Pool
from pathlib import Path
from typing import Any, TypeVar

from arena.engine import MatchResult, Rules, play_match
from arena.sandbox.botfile import bundled, declared, load_bot_class
from arena.sandbox.values import bot_random_seed

T = TypeVar("T")
_SETUP: dict[str, Any] = {}
_LOADED: dict[str, type[Any]] = {}


def bot_path(spec: str) -> Path:
    """A bot file path, or the path of a bundled bot by name or file stem."""
    p = Path(spec)
    return p if p.suffix == ".py" or p.exists() else bundled(spec)


def bot_name(path: str) -> str:
    """A bot's name in the report: its ``Bot.name``, else its file stem."""
    return declared(Path(path).read_text(encoding="utf-8"), "name") or Path(path).stem


def bot_classes(paths: Sequence[str]) -> list[type[Any]]:
    """The ``Bot`` classes of the bot files ``paths``, each file loaded once per process (a
    worker forked from a process that loaded them already has them). A bench calls it before
    its workers start, so that a broken bot file is one error line, not a failure in every
    worker the pool starts again."""
    for path in paths:
        if path not in _LOADED:
            _LOADED[path] = load_bot_class(path)
    return [_LOADED[path] for path in paths]


def in_order(
    job: Callable[[int], T], seeds: Sequence[int], workers: int, setup: Callable[..., None],
    args: tuple[Any, ...],
) -> Iterator[T]:  # fmt: skip
    """``job(seed)`` for each of ``seeds``, yielded in order: in a pool of ``workers``
    processes, each started by ``setup(*args)`` and leaving Ctrl-C to this one, or here (after
    ``setup(*args)``) when ``workers`` is 1. Ctrl-C raises ``KeyboardInterrupt`` in the caller
    at once, also in a run started in the background (which inherits an ignored SIGINT)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if workers <= 1:
        setup(*args)
        for seed in seeds:
            yield job(seed)
        return
    with Pool(workers, initializer=_start, initargs=(setup, args)) as pool:
        results = pool.imap(job, seeds, chunksize=1)
        for _ in seeds:
            while True:
                try:  # wake up now and then, so that Ctrl-C is seen at once
                    done = results.next(timeout=0.5)
                except multiprocessing.TimeoutError:
                    continue
                break
            yield done


def _start(setup: Callable[..., None], args: tuple[Any, ...]) -> None:
    """A worker's start: Ctrl-C is the parent's to handle; then ``setup(*args)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    setup(*args)


def setup(paths: list[str], rules: dict[str, Any]) -> None:
    """The bots and rules :func:`play_set` plays with, in this process."""
    _SETUP["classes"] = bot_classes(paths)
    _SETUP["rules"] = Rules.from_dict(rules)


class Timed:
    """A bot whose decisions are timed (CPU seconds of this process, appended to ``times``),
    and whose search nodes (its ``nodes`` attribute, if it keeps one) are added to
    ``nodes[0]``."""

    def __init__(self, bot: Any, times: list[float], nodes: list[int]) -> None:
        self.bot = bot
        self.times = times
        self.nodes = nodes

    def act(self, obs: dict[str, Any]) -> Any:
        """The bot's answer, timed."""
        before = getattr(self.bot, "nodes", 0)
        c0 = time.process_time()
        try:
            return self.bot.act(obs)
        finally:
            self.times.append(time.process_time() - c0)
            self.nodes[0] += getattr(self.bot, "nodes", 0) - before


def seated(classes: Sequence[Any], seed: int, perm: Sequence[int]) -> list[Any]:
    """The bots of seating ``perm`` (``perm[seat]`` the class index) for match ``seed``, each
    built as the sandbox builds it: ``random`` seeded with ``bot_random_seed(seed, seat)``
    first."""
    bots = []
    for seat, who in enumerate(perm):
        random.seed(bot_random_seed(seed, seat))
        bots.append(classes[who]())
    return bots


def seatings(
    classes: Sequence[Any],
    seed: int,
    rules: Rules,
    wrap: Callable[[int, Any], Any] = lambda who, bot: bot,
) -> Iterator[tuple[tuple[int, ...], MatchResult]]:
    """Play ``seed`` in all 6 seatings of the three bot classes (bots built by :func:`seated`,
    each passed through ``wrap(index, bot)``); yield ``(perm, result)``."""
    for perm in permutations(range(3)):
        bots = [wrap(who, bot) for who, bot in zip(perm, seated(classes, seed, perm), strict=True)]
        yield perm, play_match(bots, seed=seed, rules=rules)


def play_set(seed: int) -> dict[str, Any]:
    """Play ``seed`` in all 6 seatings; return, per seating, each bot's (by index) place,
    and every decision's CPU time by bot index."""
    classes, rules = _SETUP["classes"], _SETUP["rules"]
    places: list[list[int]] = []
    times: list[list[float]] = [[], [], []]
    nodes: list[list[int]] = [[0], [0], [0]]
    t0 = time.perf_counter()
    timed = seatings(classes, seed, rules, lambda who, bot: Timed(bot, times[who], nodes[who]))
    for perm, m in timed:
        by_bot = [0, 0, 0]
        for seat, who in enumerate(perm):
            by_bot[who] = m.placements[seat]
        places.append(by_bot)
    seconds = time.perf_counter() - t0
    return {"seed": seed, "places": places, "seconds": seconds, "times": times, "nodes": nodes}


def pair_score(sets: Sequence[dict[str, Any]], a: list[int], b: list[int]) -> float:
    """Placed-above rate of the bots at indices ``a`` over those at ``b`` (ties count half)."""
    total = 0.0
    n = 0
    for s in sets:
        for places in s["places"]:
            for i in a:
                for j in b:
                    if i == j:
                        continue
                    pi, pj = places[i], places[j]
                    total += 1.0 if pi < pj else (0.5 if pi == pj else 0.0)
                    n += 1
    return total / n


def bootstrap(
    sets: Sequence[dict[str, Any]], a: list[int], b: list[int], n_boot: int, seed: int = 0
) -> tuple[float, float]:
    """95 % percentile interval of :func:`pair_score`, resampling whole duplicate sets."""
    rng = random.Random(seed)
    # Per-set sums make each bootstrap replicate cheap.
    per_set = [pair_score([s], a, b) for s in sets]
    k = len(per_set)
    stats = sorted(statistics.fmean(rng.choices(per_set, k=k)) for _ in range(n_boot))
    return stats[int(0.025 * n_boot)], stats[min(n_boot - 1, int(0.975 * n_boot))]


def _progress(
    sets: list[dict[str, Any]], done: dict[str, Any], total: int, names: list[str]
) -> None:
    """Keep a finished set, and say on stderr how far the run is, with the first bot's rates
    so far (a long run can be judged, or stopped, before it ends)."""
    sets.append(done)
    a = [i for i, n in enumerate(names) if n == names[0]]
    rates = []
    for other in sorted(set(names) - {names[0]}, key=names.index):
        b = [i for i, n in enumerate(names) if n == other]
        rates.append(f"over {other} {pair_score(sets, a, b):.3f}")
    print(f"set {len(sets)}/{total}: {names[0]} " + ", ".join(rates), file=sys.stderr)


def _parse_rules(items: list[str]) -> dict[str, Any]:
    rules: dict[str, Any] = {}
    for item in items:
        key, _, value = item.partition("=")
        v: Any = value
        if value.lower() in ("true", "false"):
            v = value.lower() == "true"
        elif value.isdigit():
            v = int(value)
        rules[key] = v
    Rules.from_dict(rules)  # fail early on a bad field
    return rules


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(
        description="Duplicate-match strength of three bots: pairwise placed-above rates "
        "with 95 % bootstrap intervals (in-process engine).",
        epilog="Example: python bench/strength.py random heuristic montecarlo --seeds 200",
    )
    ap.add_argument("bots", nargs=3, help="three bot files or bundled bot names (may repeat)")
    ap.add_argument("--seeds", type=int, default=100, help="duplicate sets (default 100)")
    ap.add_argument("--start", type=int, default=0, help="first match seed (default 0)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap replicates")
    ap.add_argument("--rule", action="append", default=[], metavar="FIELD=VALUE")
    ap.add_argument("--json", metavar="FILE", help="also write the raw results as JSON")
    args = ap.parse_args(argv)

    try:
        paths = [str(bot_path(b)) for b in args.bots]
        rules = _parse_rules(args.rule)
        bot_classes(paths)  # a broken bot file: one line, here
    except Exception as e:  # a bad name, rule or bot file is a usage error: one line
        print(f"error: {e}", file=sys.stderr)
        return 2
    names = [bot_name(p) for p in paths]
    seeds = range(args.start, args.start + args.seeds)
    t0 = time.perf_counter()
    sets: list[dict[str, Any]] = []
    try:
        for done in in_order(play_set, seeds, args.workers, setup, (paths, rules)):
            _progress(sets, done, len(seeds), names)
    except KeyboardInterrupt:  # report the sets finished so far (the first ones, in order)
        print(f"interrupted: {len(sets)} sets finished", file=sys.stderr)
        if not sets:
            return 1
    wall = time.perf_counter() - t0

    print(f"{len(sets)} duplicate sets x 6 seatings = {6 * len(sets)} matches, {wall:.0f} s")
    print(f"bots by seat index: {names}; rules: {rules or 'defaults'}")
    distinct = sorted(set(names), key=names.index)
    print(f"{'pair':<28} {'placed-above rate':>18} {'95% CI':>16}  verdict")
    report = []
    for x, y in permutations(distinct, 2):
        if distinct.index(x) > distinct.index(y):
            continue
        a = [i for i, n in enumerate(names) if n == x]
        b = [i for i, n in enumerate(names) if n == y]
        rate = pair_score(sets, a, b)
        lo, hi = bootstrap(sets, a, b, args.boot)
        verdict = f"{x} stronger" if lo > 0.5 else (f"{y} stronger" if hi < 0.5 else "unclear")
        print(f"{x + ' over ' + y:<28} {rate:>18.3f} {f'[{lo:.3f}, {hi:.3f}]':>16}  {verdict}")
        report.append({"a": x, "b": y, "rate": rate, "ci95": [lo, hi]})
    mean_place = {
        n: statistics.fmean(
            p[i] for s in sets for p in s["places"] for i in range(3) if names[i] == n
        )
        for n in distinct
    }
    print("mean place: " + ", ".join(f"{n} {v:.3f}" for n, v in mean_place.items()))
    print(
        f"{'decision CPU ms':<16} {'decisions':>9} {'mean':>7} {'p50':>7} {'p99':>7} {'max':>7}"
        f" {'knodes/s':>9}"
    )
    for n in distinct:
        ms = sorted(1e3 * t for s in sets for i in range(3) if names[i] == n for t in s["times"][i])
        p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
        searched = sum(s["nodes"][i][0] for s in sets for i in range(3) if names[i] == n)
        speed = f"{searched / sum(ms):>9.1f}" if searched else f"{'-':>9}"  # nodes/ms = k/s
        print(
            f"{n:<16} {len(ms):>9} {statistics.fmean(ms):>7.3f} {statistics.median(ms):>7.3f}"
            f" {p99:>7.3f} {ms[-1]:>7.3f} {speed}"
        )
    if args.json:
        kept = [{k: v for k, v in s.items() if k not in ("times", "nodes")} for s in sets]
        out = {"bots": names, "rules": rules, "pairs": report, "sets": kept}
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
