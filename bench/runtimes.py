"""Each bot runtime side by side: match start, decision round trip, match time, memory.

    python bench/runtimes.py [--matches 6] [--languages c,cpp,rust,go,javascript,java]

For every native runtime, three copies of its starter kit play ``--matches`` matches, each seat
in a world of its own (tests/native_driver.py speaks protocol v1 to them); for the Python host
as it is (arena.sandbox.BotPool), three bots that answer at once play as many. Printed per
runtime, medians: ``start`` (a world started until the bot's ready line, native only),
``round trip`` (one act request until its answer line, native only: the Python host's is inside
its seat), ``match`` (a whole match's wall time, starts included) and ``per decision`` (match
time over the decisions made: the figure to compare with the Python host), ``peak RSS`` (the
bot process's high-water mark at the match's end, native only), ``pool match`` (a match of
three copies played by the arena's own ``BotPool``, as a tournament plays it). The round trips
go through the arena's seat proxy for every runtime (JSON lines both ways). Builds are cached
and not counted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from native_driver import Seat, kit  # noqa: E402

from arena.engine import play_match  # noqa: E402
from arena.sandbox import BotPool, BotSource, Limits, bot_random_seed  # noqa: E402
from arena.sandbox.layers import choose_isolation  # noqa: E402
from arena.sandbox.native import runtime_for  # noqa: E402
from arena.sandbox.proxy import SeatProxy  # noqa: E402

KITS = {
    "c": "kits/c/bot.c",
    "cpp": "kits/cpp/bot.cpp",
    "rust": "kits/rust/bot.rs",
    "go": "kits/go/bot.go",
    "javascript": "kits/javascript/bot.js",
    "java": "kits/java/Bot.java",
}
INSTANT = "class Bot:\n    def act(self, obs):\n        return obs['legal'][-1]\n"


class _Timed(Seat):
    rtts: list[float]

    def act(self, obs: dict[str, Any]) -> Any:
        t = time.perf_counter()
        try:
            return super().act(obs)
        finally:
            self.rtts.append(time.perf_counter() - t)


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def native(language: str, matches: int, isolation: Any) -> dict[str, Any]:
    t = time.perf_counter()
    launcher = runtime_for(language).launcher(
        kit(language, str(ROOT / KITS[language])), Limits(), isolation
    )
    build = time.perf_counter() - t
    if launcher.load_error:
        return {"language": language, "error": launcher.load_error}
    starts, rtts, walls, per, rss = [], [], [], [], []
    for m in range(matches):
        t0 = time.perf_counter()
        seats = []
        for s in range(3):
            t = time.perf_counter()
            seat = _Timed(launcher.start(), s)
            seat.rtts = []
            seat.hello()
            starts.append(time.perf_counter() - t)
            seats.append(seat)
        try:
            play_match(seats, seed=m)
            assert not any(s.faults for s in seats), [s.faults for s in seats]
            rss += [_rss_kb(s.channel.pid) for s in seats]
        finally:
            for s in seats:
                s.channel.close()
        wall = time.perf_counter() - t0
        decisions = sum(s.decisions for s in seats)
        walls.append(wall)
        per.append(wall / decisions)
        rtts += [x for s in seats for x in s.rtts]
    return {
        "language": language,
        "build_s": build,
        "start_ms": statistics.median(starts) * 1e3,
        "rtt_us": statistics.median(rtts) * 1e6,
        "match_ms": statistics.median(walls) * 1e3,
        "per_decision_us": statistics.median(per) * 1e6,
        "rss_mb": statistics.median(rss) / 1024,
    }


def native_pool(language: str, matches: int) -> float:
    """Median wall time of a match of three copies of the kit played by the arena's own
    ``BotPool`` (seats, clocks, the pool starting the three worlds), in ms."""
    artifact = kit(language, str(ROOT / KITS[language]))
    walls = []
    with BotPool(Limits()) as pool:
        pool.play_match([artifact] * 3, 999)  # the build, cached
        for m in range(matches):
            t = time.perf_counter()
            out = pool.play_match([artifact] * 3, m)
            walls.append(time.perf_counter() - t)
            assert not out.faults, out.faults
    return statistics.median(walls) * 1e3


class _Count:
    def __init__(self) -> None:
        self.n = 0

    def act(self, obs: dict[str, Any]) -> Any:
        self.n += 1
        return obs["legal"][-1]


def python(matches: int) -> dict[str, Any]:
    bots = [BotSource(f"instant{k}", INSTANT + f"# copy {k}\n") for k in range(3)]
    walls, per = [], []
    with BotPool(Limits()) as pool:
        t = time.perf_counter()
        pool.play_match(bots, 999)
        cold = time.perf_counter() - t
        for m in range(matches):
            counters = [_Count() for _ in range(3)]
            play_match(counters, seed=m)
            t = time.perf_counter()
            out = pool.play_match(bots, m)
            wall = time.perf_counter() - t
            assert not out.faults
            walls.append(wall)
            per.append(wall / sum(c.n for c in counters))
    return {
        "language": "python (host on main)",
        "first_match_ms": cold * 1e3,
        "match_ms": statistics.median(walls) * 1e3,
        "per_decision_us": statistics.median(per) * 1e6,
    }


def _play_obs() -> dict[str, Any]:
    """A mid-hand ``play`` observation (the same one for every runtime)."""
    found: list[dict[str, Any]] = []

    class Grab:
        def act(self, o: dict[str, Any]) -> Any:
            if not found and o["phase"] == "play" and len(o["legal"]) > 1 and o["tricks"]:
                found.append(o)
            return o["legal"][-1]

    play_match([Grab(), Grab(), Grab()], 3)
    return found[0]


def rtt_python(obs: dict[str, Any], n: int) -> list[float]:
    """The Python host's round trip of ``obs`` through its seat proxy (bench/sandbox.py's)."""
    with BotPool(Limits()) as pool:
        z = pool._zygote(BotSource("instant", INSTANT), 0)
        child = z.fork()
        proxy = SeatProxy(0, child, Limits())
        proxy.load(bot_random_seed(1, 0))
        times = []
        for _ in range(n):
            t = time.perf_counter()
            proxy.act(obs)
            times.append(time.perf_counter() - t)
        assert proxy.fault is None, proxy.fault
        child.close()
    return times


def rtt_native(language: str, obs: dict[str, Any], n: int, isolation: Any) -> list[float]:
    """A native kit's round trip of ``obs`` through the arena's own seat proxy, as the Python
    host's above (JSON line out, resume, answer line read and checked, stop)."""
    launcher = runtime_for(language).launcher(
        kit(language, str(ROOT / KITS[language])), Limits(), isolation
    )
    channel = launcher.start()
    proxy = SeatProxy(0, channel, Limits())
    proxy.load(bot_random_seed(1, 0))
    times = []
    try:
        for _ in range(n):
            t = time.perf_counter()
            proxy.act(obs)
            times.append(time.perf_counter() - t)
        assert proxy.fault is None, proxy.fault
    finally:
        channel.close()
        launcher.close()
    return times


def round_trips(languages: list[str], n: int, isolation: Any) -> None:
    """The same observation, ``n`` times, to each runtime: medians side by side."""
    obs = _play_obs()
    base = statistics.median(rtt_python(obs, n))
    print(f"round trip of one play observation, median of {n}:")
    print(f"  {'python (host on main)':22} {base * 1e6:7.0f} us  1.00")
    for language in languages:
        m = statistics.median(rtt_native(language, obs, n, isolation))
        print(f"  {language:22} {m * 1e6:7.0f} us  {m / base:4.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=6)
    ap.add_argument("--languages", default=",".join(KITS))
    ap.add_argument("--round-trips", type=int, default=2000)
    ap.add_argument("--only-round-trips", action="store_true", help="skip the matches")
    args = ap.parse_args()
    isolation = choose_isolation()
    round_trips(args.languages.split(","), args.round_trips, isolation)
    if args.only_round_trips:
        return
    rows = [python(args.matches)]
    for language in args.languages.split(","):
        rows.append(native(language, args.matches, isolation))
        if "error" not in rows[-1]:
            rows[-1]["pool_ms"] = native_pool(language, args.matches)
    base = rows[0]["per_decision_us"]
    print(f"{'runtime':22} {'start ms':>9} {'rtt us':>8} {'match ms':>9} {'per dec us':>11} "
          f"{'x python':>8} {'RSS MB':>7} {'pool match ms':>13}")  # fmt: skip
    for r in rows:
        if "error" in r:
            print(f"{r['language']:22} {r['error']}")
            continue
        start = f"{r['start_ms']:9.1f}" if "start_ms" in r else f"{'-':>9}"
        rtt = f"{r['rtt_us']:8.0f}" if "rtt_us" in r else f"{'-':>8}"
        rss = f"{r['rss_mb']:7.1f}" if "rss_mb" in r else f"{'-':>7}"
        ratio = r["per_decision_us"] / base
        pool = f"{r.get('pool_ms', r['match_ms']):13.1f}"
        print(f"{r['language']:22} {start} {rtt} {r['match_ms']:9.1f} "
              f"{r['per_decision_us']:11.0f} {ratio:8.2f} {rss} {pool}")  # fmt: skip
    print(f"python first (cold) match: {rows[0]['first_match_ms']:.0f} ms")


if __name__ == "__main__":
    main()
