"""Fair-play figures of the sandbox, measured with the hostile bots of tests/attacks/.

Each line says what an attack achieved: a CPU thief next to an honest bot that thinks hard,
SysV memory held outside the limits, how well turn timing tells forced decisions, the seeding
inversion, the card channels between bots, an 8 MB bot file, and memory through the kernel's
name cache with the kernel memory a flood of lookups leaves. Run it against this checkout
and against another one (an older arena) in the same session, to compare::

    python bench/sandbox_fairness.py
    ARENA_ROOT=/path/to/old/checkout python bench/sandbox_fairness.py

The attacks and the scoring (tests/receivers.py) always come from this checkout; only the
``arena`` package is taken from ``ARENA_ROOT``. Run as root (as CI does) for every layer.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import resource
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("ARENA_ROOT") or str(HERE))
sys.path.insert(1, str(HERE / "tests"))

from receivers import forced_gap_auc, gaps_by_forcedness, last_guesses, overlap  # noqa: E402

import arena.sandbox as sandbox  # noqa: E402
from arena.cards import deck  # noqa: E402
from arena.sandbox import BotPool, BotSource, Limits  # noqa: E402
from arena.sandbox.botfile import bundled  # noqa: E402

ATTACKS = HERE / "tests" / "attacks"
SEEDING: Any = getattr(sandbox, "bot_random_seed", None) or (lambda s, t: f"arena/bot/{s}/{t}")


def attack(name: str) -> BotSource:
    """A bot file of tests/attacks/."""
    return BotSource(name, (ATTACKS / f"{name}.py").read_text(), f"{name}.py")


def victim() -> BotSource:
    """The bundled random bot."""
    return BotSource.from_path(str(bundled("random_bot")))


def shmem_kib() -> int:
    """The machine's shared memory (/proc/meminfo Shmem), KiB."""
    with open("/proc/meminfo") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Shmem:"))


def cpu_thief(matches: int) -> None:
    """An honest bot (0.6 s of CPU on 3 decisions, 1 s limit) between two CPU thieves."""
    limits = Limits(decision_seconds=1.0, match_cpu_seconds=20.0)
    faults, walls, stolen = [], [], []
    saved = os.sched_getaffinity(0)
    with BotPool(limits, cpu=0) as pool:  # all three bots on one CPU, as a worker runs them
        for seed in range(matches):
            out = pool.play_match(
                [attack("cpu_thief"), attack("ponderer"), attack("cpu_thief")], seed
            )
            faults += [f"{f.kind} at decision {f.decision}" for f in out.faults if f.seat == 1]
            walls += [float(w) for w in re.findall(r"PONDER (\S+)", out.logs[1])]
            stolen += [(out.stats[s]["cpu_seconds"], out.stats[s]["think_seconds"]) for s in (0, 2)]
    os.sched_setaffinity(0, saved)
    shown = ", ".join(f"{w:.2f}" for w in walls) or "none finished"
    print(f"cpu thief: honest bot faults {len(faults)} in {matches} matches {faults[:3]}")
    print(f"cpu thief: honest decisions needing 0.6 s CPU took (wall s): {shown}")
    cpu, turns = max(stolen)
    print(f"cpu thief: a thief's CPU per match: up to {cpu:.2f} s (its own turns: {turns:.2f} s)")


def shm_hoard() -> None:
    """Host shared memory while a bot hoards SysV segments (512 MiB address-space limit)."""
    limits = Limits(decision_seconds=20.0, match_cpu_seconds=60.0, memory_mb=512)
    base, peak, stop = shmem_kib(), [0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], shmem_kib())
            time.sleep(0.02)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    with BotPool(limits) as pool:
        out = pool.play_match([attack("shm_hoard"), victim(), victim()], 1)
        after_match = shmem_kib()
    stop.set()
    watcher.join()
    held = re.findall(r"ESCAPED shm (\d+)", out.logs[0])
    print(
        f"shm hoard: host Shmem +{(peak[0] - base) / 1024:.0f} MiB at peak, "
        f"+{(after_match - base) / 1024:.0f} MiB after the match, "
        f"+{(shmem_kib() - base) / 1024:.0f} MiB after the pool closed; "
        f"the bot held {held[0] if held else 0} MiB outside its limit"
    )


def timing(matches: int) -> None:
    """How well the gap between a bot's turns tells that an opponent's decision was forced."""
    big = Limits(decision_seconds=2.0, log_bytes=1 << 20)
    samples = []
    with BotPool(big) as pool:
        for seed in range(20, 20 + matches):
            out = pool.play_match([victim(), attack("channel_timing"), victim()], seed)
            samples += gaps_by_forcedness(seed, out.logs[1], SEEDING)
    auc, pairs = forced_gap_auc(samples)
    print(
        f"turn timing: AUC of 'short gap => a forced opponent decision' {auc:.3f} ({pairs} pairs)"
    )


def inversion(matches: int) -> None:
    """Running the seeding backwards: predictions of the bot's own next hand that came true."""
    right = total = 0
    with BotPool(Limits(decision_seconds=2.0)) as pool:
        for k in range(matches):
            out = pool.play_match([attack("random_inversion"), victim(), victim()], f"s{k}")
            hands = {h.hand_number: sorted(h.deal.hands[0]) for h in out.result.hands}
            for h, cards in re.findall(r"PREDICT (\d+) (.+)", out.logs[0]):
                if int(h) in hands:
                    total += 1
                    right += hands[int(h)] == sorted(cards.split())
    print(f"seeding inversion: {right} of {total} predictions of its own next hand right")


def channels(matches: int) -> None:
    """The card channels between two sandboxed bots: what the receiver got right."""
    with BotPool(Limits(decision_seconds=2.0)) as pool:
        for name in ("channel_inotify", "channel_files"):
            bot = attack(name)
            hits = overlap([pool.play_match([bot, bot, victim()], s) for s in range(matches)])
            print(f"{name}: {statistics.mean(hits):.2f} of 5 cards right per hand (chance 1.32)")
        bot = attack("channel_counters")
        right = total = 0
        for s in range(matches):
            out = pool.play_match([bot, bot, victim()], s)
            guesses = last_guesses(out.logs[1], r"GUESS (\d+) (\S+)")
            for h in out.result.hands:
                if h.hand_number in guesses:
                    total += 1
                    lowest = min(h.deal.hands[0], key=deck(24).index)
                    right += guesses[h.hand_number][0] == lowest
        print(f"channel_counters: {right} of {total} hands' lowest card right (chance 1 in 19)")
        bot = attack("channel_memory")
        pool.play_match([bot, victim(), victim()], "memory")
        second = pool.play_match([victim(), bot, victim()], "memory")
        hits = overlap([second])
        print(f"channel_memory: {statistics.mean(hits):.2f} of 5 cards right in the next seating")


def _kernel() -> tuple[int, int]:
    """The machine's dentries and kernel slab (KiB)."""
    dentries = int(Path("/proc/sys/fs/dentry-state").read_text().split()[0])
    found = re.search(r"^Slab:\s+(\d+)", Path("/proc/meminfo").read_text(), re.M)
    return dentries, int(found.group(1)) if found else 0


def name_cache() -> None:
    """Memory through the kernel's name cache (tests/attacks/dentmem.py, the six seatings of
    one set) and the kernel memory a flood of lookups leaves behind (dentry_flood.py)."""
    text = (ATTACKS / "dentmem.py").read_text().replace("@@SALT@@", os.urandom(8).hex())
    bot = BotSource("dentmem", text, "dentmem.py")
    others = [BotSource.from_path(str(bundled(n))) for n in ("random_bot", "heuristic")]
    score = {"GUESS": [0, 0], "PLAIN": [0, 0]}
    rounds = []
    limits = Limits(decision_seconds=5.0, match_cpu_seconds=60.0, load_seconds=10.0)
    with BotPool(limits) as pool:
        for bots in itertools.permutations([bot, *others]):
            out = pool.play_match(list(bots), "dentmem")
            log = out.logs[list(bots).index(bot)]
            rounds += re.findall(r"ROUND (\d)", log)
            hands = {h.hand_number: h.deal.hands for h in out.result.hands}
            for m in re.finditer(r"(GUESS|PLAIN) (\d+) (\d) (.+)", log):
                if int(m.group(2)) in hands and (m.group(1) == "PLAIN" or rounds[-1] != "0"):
                    real = hands[int(m.group(2))][int(m.group(3))]
                    score[m.group(1)][0] += len(set(m.group(4).split()) & set(real))
                    score[m.group(1)][1] += 5
    (g, gt), (p, pt) = score["GUESS"], score["PLAIN"]
    print(
        f"dentmem: rounds found {' '.join(rounds)} (0 0 0 0 0 0: it never saw an earlier "
        f"match); {g} of {gt} cards right after its first round, {p} of {pt} by plain names "
        "(chance 26 %)"
    )
    flood = (ATTACKS / "dentry_flood.py").read_text().replace("@@SECONDS@@", "1.5")
    before = _kernel()
    with BotPool(limits) as pool:
        out = pool.play_match([BotSource("flood", flood), *others], 3)
    after = _kernel()
    looked = re.search(r"LOOKED (\d+)", out.logs[0])
    print(
        f"dentry_flood: {looked.group(1) if looked else '?'} lookups; the machine's dentries "
        f"{after[0] - before[0]:+d}, kernel slab {after[1] - before[1]:+d} KiB"
    )


def huge_file() -> None:
    """An 8 MB bot file that is costly to compile: time to a verdict (the pool's start
    included) and the peak memory of the arena and of its bot hosts."""
    text = "x = [" + "(1, 2)," * 1_140_000 + "]\n" + bundled("random_bot").read_text()
    start = time.monotonic()
    with BotPool(Limits(decision_seconds=2.0)) as pool:
        out = pool.play_match([BotSource("huge", text), victim(), victim()], 1)
    took = time.monotonic() - start
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    verdict = str(out.fault_of(0) or "no fault")
    print(
        f"8 MB file: {took:.2f} s; peak RSS arena {me:.0f} MiB, bot hosts {kids:.0f} MiB: "
        f"{verdict[:100]}"
    )


def main() -> None:
    """Run every measurement, one or two lines each."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=3, help="matches per measurement")
    args = ap.parse_args()
    print(f"arena from {Path(sandbox.__file__).parent.parent}")
    huge_file()  # first: ru_maxrss is a high-water mark
    cpu_thief(args.matches)
    inversion(args.matches)
    channels(args.matches)
    timing(4 * args.matches)
    shm_hoard()
    name_cache()


if __name__ == "__main__":
    main()
