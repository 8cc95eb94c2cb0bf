"""Hostile bots in Go, Rust and C++ (issue 35), each in its own language's idioms and by raw
system calls, played through the real BotPool against two honest Python bots.

tests/attacks/native_attack.{go,rs,cpp} try, at their first decision: a child process, fork and
exec, TCP and UDP, reading and writing the machine's files (/etc/passwd, /root, /proc/1/environ,
/tmp, their own directory), signals to pid 1 and -1. Each writes "refused <what>: <error>" to
its log for a refusal and "ESCAPED <what>" for anything that got through, then plays legally.
The test switches a bot's mode to "threads" (OS threads until the pids cgroup stops them),
"memory" (allocate until the memory cgroup ends it) or "marks" (look for files an earlier match
left, then try to leave some: the channel harness's "nothing outlives a match"). In every case
the match finishes and the honest seats are untouched.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.sandbox import BotPool, BotSource, Limits
from arena.sandbox.botfile import bundled
from arena.sandbox.cgroup import EXTRA_MB, PIDS
from arena.sandbox.runtime import Artifact

ATTACKS = Path(__file__).parent / "attacks"
LIMITS = Limits(decision_seconds=2.0, match_cpu_seconds=20.0, load_seconds=20.0)
FILES = {"go": "native_attack.go", "rust": "native_attack.rs", "cpp": "native_attack.cpp"}
ENTRY = {"go": "bot.go", "rust": "bot.rs", "cpp": "bot.cpp"}
# Every attempt each bot makes in its "all" mode: each must be logged as refused.
ATTEMPTS = {
    "go": [
        "exec.Command", "ForkExec", "raw fork", "raw execve", "tcp connect", "udp send",
        "raw socket", "read /etc/passwd", "read /proc/1/environ", "read /root/.bashrc",
        "list /root", "write /tmp", "write /bot", "write /etc/passwd", "kill 1", "kill -1",
        "raw kill 1",
    ],
    "rust": [
        "Command", "raw fork", "raw execve", "tcp connect", "udp send", "raw socket",
        "read /etc/passwd", "read /proc/1/environ", "read /root/.bashrc", "list /root",
        "write /tmp", "write /bot", "write /etc/passwd", "kill 1", "kill -1", "raw kill 1",
    ],
    "cpp": [
        "std::system", "fork", "execv", "raw clone", "tcp connect", "udp send", "raw socket",
        "read /etc/passwd", "read /proc/1/environ", "read /root/.bashrc", "list /root",
        "write /tmp", "write /bot", "write /etc/passwd", "kill 1", "kill -1", "raw kill 1",
    ],
}  # fmt: skip
LANGUAGES = sorted(ATTEMPTS)


def attacker(language: str, mode: str = "all") -> Artifact:
    source = (ATTACKS / FILES[language]).read_bytes()
    assert b'= "all"' in source
    source = source.replace(b'= "all"', f'= "{mode}"'.encode(), 1)
    return Artifact(language, ((ENTRY[language], source),), ENTRY[language])


def victim() -> BotSource:
    return BotSource.from_path(str(bundled("random_bot")), "random_bot")


def refused(log: str) -> list[str]:
    return re.findall(r"^refused (.+?): ", log, re.M)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_attack_is_refused_and_the_bot_plays_on(language: str) -> None:
    with BotPool(LIMITS) as pool:
        out = pool.play_match([attacker(language), victim(), victim()], 1)
    log = out.logs[0]
    assert "ESCAPED" not in log, log
    assert refused(log) == ATTEMPTS[language], log
    assert out.faults == [], out.faults  # refused calls; it plays the whole match legally


@pytest.mark.parametrize("language", LANGUAGES)
def test_thread_bomb_is_bounded_by_the_pids_cgroup(language: str) -> None:
    with BotPool(LIMITS) as pool:
        out = pool.play_match([attacker(language, "threads"), victim(), victim()], 2)
    log = out.logs[0]
    assert "ESCAPED" not in log, log
    counts = [int(n) for n in re.findall(r"^threads (\d+)$", log, re.M)]
    assert counts and max(counts) <= PIDS, log
    assert out.fault_of(1) is None and out.fault_of(2) is None, out.faults
    if language != "go":  # the Go runtime dies when it cannot make a thread; the others carry on
        assert out.faults == [], out.faults


@pytest.mark.parametrize("language", LANGUAGES)
def test_memory_bomb_is_ended_by_its_cgroup(language: str) -> None:
    limits = Limits(decision_seconds=2.0, match_cpu_seconds=20.0, load_seconds=20.0, memory_mb=256)
    with BotPool(limits) as pool:
        out = pool.play_match([attacker(language, "memory"), victim(), victim()], 3)
        after = pool.play_match([victim(), victim(), victim()], 4)
    log = out.logs[0]
    assert "ESCAPED" not in log, log
    got = [int(n) for n in re.findall(r"^allocated (\d+) MiB$", log, re.M)]
    assert got and max(got) <= 256 + EXTRA_MB, log  # the world's cgroup: memory_mb + EXTRA_MB
    assert out.fault_of(0) is not None  # killed: its answer never came
    assert out.fault_of(1) is None and out.fault_of(2) is None, out.faults
    assert after.faults == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_nothing_the_bot_writes_outlives_its_match(language: str) -> None:
    """Marks in /tmp, /dev/shm, its cwd, its directory and /: the next match, in the same seat
    and in another, and a second copy of it in the same match, find none of them."""
    bot = attacker(language, "marks")
    with BotPool(LIMITS) as pool:
        first = pool.play_match([bot, victim(), victim()], 5)
        again = pool.play_match([bot, victim(), victim()], 6)  # same seat, same launcher
        other = pool.play_match([victim(), bot, bot], 7)  # other seats, a second copy
    for out, seat in ((first, 0), (again, 0), (other, 1), (other, 2)):
        assert out.faults == [], out.faults
        log = out.logs[seat]
        assert re.findall(r"^(?:FOUND|WROTE) .+$", log, re.M) == [], log
        assert len(re.findall(r"^BLOCKED .+$", log, re.M)) == 5, log
