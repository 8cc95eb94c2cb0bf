"""Fair play for native bots, through the real BotPool (issue 35): the channel harness of
tests/test_sandbox_channels.py run for compiled bots making raw system calls.

Hostile bots: tests/attacks/native_channels.c (one mode per build: state that outlives a match,
a CPU thief with threads, bots reaching each other) and tests/attacks/native_proc.js (what a
Node bot sees in /proc).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from arena.sandbox import BotPool, BotSource, Limits
from arena.sandbox.botfile import bundled
from arena.sandbox.runtime import Artifact

ATTACKS = Path(__file__).parent / "attacks"
LIMITS = Limits(decision_seconds=2.0, match_cpu_seconds=20.0, load_seconds=10.0)


def channels(mode: int) -> Artifact:
    source = f"#define MODE {mode}\n".encode() + (ATTACKS / "native_channels.c").read_bytes()
    return Artifact("c", (("bot.c", source),), "bot.c")


def victim() -> BotSource:
    return BotSource.from_path(str(bundled("random_bot")), "random_bot")


def python_attack(name: str) -> BotSource:
    return BotSource(name, (ATTACKS / f"{name}.py").read_text(), f"{name}.py")


def lines(log: str, word: str) -> list[str]:
    return re.findall(rf"^{word} (.+)$", log, re.M)


def test_nothing_a_native_bot_writes_outlives_its_match() -> None:
    """The bot leaves marks wherever it can; the next match, in the same seat and in another,
    and the other copy of it in the same match, find none of them."""
    bot = channels(1)
    with BotPool(LIMITS) as pool:
        first = pool.play_match([bot, victim(), victim()], 1)
        again = pool.play_match([bot, victim(), victim()], 2)  # same seat, same launcher
        other = pool.play_match([victim(), bot, bot], 3)  # other seats, a second copy
    assert first.faults == [] and again.faults == [] and other.faults == [], (first.faults,)
    wrote = lines(first.logs[0], "WROTE")
    assert wrote == ["env"], first.logs[0]  # only its own environment: its world is read-only
    for out, seat in ((first, 0), (again, 0), (other, 1), (other, 2)):
        log = out.logs[seat]
        assert lines(log, "FOUND") == [] and lines(log, "NONE") == ["-"], log
    # /tmp, /dev/shm, its cwd, the bot's directory and / are not writable; no memfd (seccomp).
    assert len(lines(first.logs[0], "BLOCKED")) == 6, first.logs[0]


def test_a_native_cpu_thief_with_threads_cannot_take_an_honest_bots_time() -> None:
    """Three threads of the thief spin for ever, its turns and the others' alike; all bots
    share one CPU. The honest bot (0.6 s of CPU per decision within 1.5 s) never times out:
    the whole thief, every thread, is stopped while it thinks. The thief's CPU time counts
    all its threads (its main thread burns nothing)."""
    limits = Limits(decision_seconds=1.5, match_cpu_seconds=20.0, load_seconds=10.0)
    thief, honest = channels(2), python_attack("ponderer")
    saved = os.sched_getaffinity(0)
    try:
        with BotPool(limits, cpu=0) as pool:
            out = pool.play_match([thief, honest, thief], 3)
    finally:
        os.sched_setaffinity(0, saved)
    assert out.fault_of(1) is None, out.faults
    assert out.logs[1].count("PONDER") == 3
    for seat in (0, 2):
        stats = out.stats[seat]
        assert out.fault_of(seat) is None, out.faults
        assert "BLOCKED thread" not in out.logs[seat]
        turns = len(lines(out.logs[seat], "BURNT"))
        assert turns >= 10
        # Each turn waits for 0.02 s of the threads' CPU: the arena's figure has all of it.
        assert stats["cpu_seconds"] >= 0.02 * turns * 0.9, (stats, turns)
        # And no more than its turns and a sliver after each answer (see the Python thief's
        # test): running through the honest bot's 3 x 0.6 s it would have taken well over that.
        assert stats["cpu_seconds"] <= 0.02 * turns + 0.05 * turns + 0.45, (stats, turns)


def test_two_native_bots_in_one_match_cannot_reach_each_other() -> None:
    """Abstract unix sockets, datagrams, kill -1 and pid 1, /dev/shm, a shared map and the
    other processes' pipes by /proc: nothing gets from one bot's world to the other's."""
    bot = channels(3)
    with BotPool(LIMITS) as pool:
        out = pool.play_match([bot, bot, victim()], 4)
        out2 = pool.play_match([victim(), bot, bot], 5)
    for o, seats in ((out, (0, 1)), (out2, (1, 2))):
        assert o.faults == [], o.faults
        for seat in seats:
            log = o.logs[seat]
            assert lines(log, "REACHED") == [], log
            assert "WROTE shared memory" not in log and "MAPPED shared map" not in log, log
            assert int(lines(log, "PIDS")[0]) <= 2, log  # itself and its world's launcher


def test_a_java_bot_sees_nothing_of_the_machine_in_its_own_proc() -> None:
    """The JVM gets a /proc of its own (it reads /proc/self); in it the bot sees its world's
    two processes and nothing machine-wide that other bots move: /proc/stat, loadavg, meminfo,
    uptime, pressure/, sys/ and the rest are covered, and sysinfo(2) (load, free memory) is
    refused, so the JDK's load average is -1. A second Java bot in the match sees the same."""
    bot = Artifact(
        "java",
        (("NativeProc.java", (ATTACKS / "NativeProc.java").read_bytes()),),
        "NativeProc.java",
    )
    with BotPool(LIMITS) as pool:
        out = pool.play_match([bot, bot, victim()], 6)
    assert out.faults == [], out.faults
    for seat in (0, 1):
        log = out.logs[seat]
        assert lines(log, "ESCAPED") == [], log
        assert len(lines(log, "BLOCKED")) == 16, log  # every path it tried
        assert lines(log, "PIDS") == ["2"], log  # the launcher (pid 1) and itself
        assert "load=-1.0" in log, log
