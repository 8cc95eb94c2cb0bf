"""The native runtimes end to end: sandboxed builds, a world per match, the starter kits playing
whole matches over protocol v1 (tests/native_driver.py), and hostile native bots.

Every test runs real bubblewrap worlds with the real toolchains (slow tier). A runtime whose
toolchain is missing here fails with its ``missing()`` line: CI installs them all.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox.layers import choose_isolation
from arena.sandbox.native import NATIVE_RUNTIMES, runtime_for
from arena.sandbox.native.build import first_error
from arena.sandbox.runtime import Artifact, Channel, Launcher, Runtime
from arena.sandbox.values import Limits

sys.path.insert(0, str(Path(__file__).parent))
from native_driver import KITS, Seat, kit, play  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ATTACKS = ROOT / "tests" / "attacks"


class RandomBot:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, obs: dict[str, Any]) -> Any:
        return self.rng.choice(obs["legal"])


@pytest.fixture(scope="module")
def isolation() -> Any:
    return choose_isolation()


def _launcher(language: str, artifact: Artifact, isolation: Any, **limits: Any) -> Launcher:
    runtime = runtime_for(language)
    assert runtime.missing() is None, runtime.missing()
    launcher = runtime.launcher(artifact, Limits(**limits), isolation)
    assert launcher.load_error is None, launcher.load_error
    return launcher


def test_every_runtime_is_a_runtime() -> None:
    assert [r.language for r in NATIVE_RUNTIMES] == list(KITS)
    for r in NATIVE_RUNTIMES:
        assert isinstance(r, Runtime)
        assert r.allowlist()
        assert r.missing() is None, r.missing()  # CI installs every toolchain


def test_launcher_and_channel_keep_the_seam(isolation: Any) -> None:
    launcher = _launcher("c", kit("c", str(ROOT / KITS["c"])), isolation)
    assert isinstance(launcher, Launcher)
    channel = launcher.start()
    try:
        assert isinstance(channel, Channel)
        assert channel.running() and channel.alive
        channel.kill()
        channel.proc.wait(timeout=10)
        assert not channel.alive
        assert channel.exit_status() is not None
    finally:
        channel.close()


@pytest.mark.parametrize("language", list(KITS))
def test_kit_plays_legally_and_beats_random(language: str, isolation: Any) -> None:
    """Twelve matches against two random bots, every seat: no fault, and a clear lead."""
    launcher = _launcher(language, kit(language, str(ROOT / KITS[language])), isolation)
    share, faults = 0.0, []
    for seed in range(12):
        seat = seed % 3
        channel = launcher.start()
        try:
            s = Seat(channel, seat)
            bots: list[Any] = [RandomBot(seed * 7 + i) for i in range(3)]
            bots[seat] = s
            result = play(bots, seed)
            faults += s.faults
            assert s.decisions > 0
        finally:
            channel.close()
        share += (seat in result.winners) / len(result.winners)
    assert faults == []
    assert share / 12 >= 0.6  # chance is 1/3; the kits win about 0.9 of their matches


@pytest.mark.parametrize(
    ("language", "name", "source", "where"),
    [
        ("c", "bot.c", b"int main(void) {\n  return x;\n}\n", "bot.c:2:"),
        ("cpp", "bot.cpp", b"int main() {\n\n  undefined_call();\n}\n", "bot.cpp:3:"),
        ("rust", "bot.rs", b"fn main() {\n    let x: u8 = y;\n}\n", "bot.rs:2:"),
        ("go", "bot.go", b"package main\n\nfunc main() {\n\tx := 1\n}\n", "bot.go:4:"),
        ("java", "Bot.java", b"class Bot {\n  void f() { int x = ; }\n}\n", "Bot.java:2:"),
        ("javascript", "bot.js", b"let a = 1;\nlet = ;\n", "bot.js:2:"),
    ],
)
def test_build_error_is_one_line_with_file_and_line(
    language: str, name: str, source: bytes, where: str, isolation: Any
) -> None:
    artifact = Artifact(language, ((name, source),), name)
    error = runtime_for(language).launcher(artifact, Limits(), isolation).load_error
    assert error is not None and "\n" not in error and error.startswith(where), error
    # cached: the same version fails the same way without building again
    assert runtime_for(language).launcher(artifact, Limits(), isolation).load_error == error


def test_first_error_cleans_bot_text() -> None:
    line = first_error("bot.c:3:1: error: \x1b[31mred\x07\nmore\n", "x")
    assert line.startswith("bot.c:3: ") and "red" in line
    assert "\x1b" not in line and "\x07" not in line


def test_unsafe_file_names_are_refused(isolation: Any) -> None:
    artifact = Artifact("c", (("../x.c", b"int main(){}"),), "../x.c")
    error = runtime_for("c").launcher(artifact, Limits(), isolation).load_error
    assert error is not None and "not a plain file name" in error


def _attack(number: int, isolation: Any, **limits: Any) -> tuple[Seat, str, Any]:
    source = f"#define ATTACK {number}\n".encode() + (ATTACKS / "native_attack.c").read_bytes()
    artifact = Artifact("c", (("bot.c", source),), "bot.c")
    launcher = _launcher("c", artifact, isolation, **limits)
    channel = launcher.start()
    seat = Seat(channel, 0, deadline=5.0)
    try:
        play([seat, RandomBot(1), RandomBot(2)], 1)
    finally:
        log = channel.read_log(1 << 20)
        channel.close()
    return seat, log, channel


@pytest.mark.parametrize(
    "number", [1, 2, 3, 4, 5, 11], ids=["net", "fork", "exec", "files", "ptrace", "kernel"]
)
def test_raw_syscalls_are_refused(number: int, isolation: Any) -> None:
    seat, log, _ = _attack(number, isolation)
    assert "ESCAPED" not in log, log
    assert seat.faults == []  # refused calls, and the bot plays on


def test_memory_bomb_is_ended_by_its_cgroup(isolation: Any) -> None:
    seat, log, channel = _attack(6, isolation, memory_mb=256)
    assert "ESCAPED" not in log
    assert seat.faults  # killed by the cgroup: its answer never comes
    assert channel.cgroup is None  # removed: nothing of the world is left


def test_thread_bomb_is_bounded(isolation: Any) -> None:
    seat, log, _ = _attack(7, isolation)
    assert "ESCAPED" not in log, log
    assert "threads " in log and int(log.split("threads ")[1].split()[0]) < 100


def test_fork_bomb_makes_nothing(isolation: Any) -> None:
    seat, log, _ = _attack(8, isolation)
    assert "ESCAPED" not in log and seat.faults == []


def test_floods_are_capped(isolation: Any) -> None:
    seat, log, _ = _attack(9, isolation, log_bytes=4096)
    assert len(log.encode()) <= 4096
    assert seat.faults  # a line over 1 MiB: a protocol fault, not an arena in trouble


def test_dentry_rule_every_directory_is_the_worlds_own(isolation: Any) -> None:
    seat, log, _ = _attack(10, isolation)
    assert "ESCAPED" not in log, log
    assert seat.faults == []


@pytest.mark.parametrize(
    ("language", "name"), [("javascript", "native_attack.js"), ("java", "NativeAttack.java")]
)
def test_runtime_bots_cannot_spawn_connect_or_read_the_machine(
    language: str, name: str, isolation: Any
) -> None:
    """Child processes, sockets and host files refused; threads bounded by the pids cgroup."""
    entry = "bot.js" if language == "javascript" else name
    artifact = Artifact(language, ((entry, (ATTACKS / name).read_bytes()),), entry)
    channel = _launcher(language, artifact, isolation).start()
    seat = Seat(channel, 0)
    try:
        play([seat, RandomBot(1), RandomBot(2)], 1)
    finally:
        log = channel.read_log(1 << 16)
        channel.close()
    assert "ESCAPED" not in log, log
    assert "refused" in log and seat.faults == []


THREADED = b"""
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
static void *burn(void *arg) {  /* 0.4 s of this thread's own CPU time */
    struct timespec t;
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while (t.tv_sec * 1000000000L + t.tv_nsec < 400000000L);
    return arg;
}
int main(void) {
    char line[1 << 20];
    int burnt = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\\"hello\\"")) { puts("{\\"protocol\\": 1}"); fflush(stdout); continue; }
        if (!burnt++) {
            pthread_t a, b;
            pthread_create(&a, 0, burn, 0);
            pthread_create(&b, 0, burn, 0);
            pthread_join(a, 0);
            pthread_join(b, 0);
        }
        char *id = strstr(line, "\\"id\\": "), *legal = strstr(line, "\\"legal\\": [") + 10;
        char *end = *legal == '[' ? strchr(legal, ']') + 1 : strpbrk(legal, ",]");
        printf("{\\"id\\": %d, \\"action\\": %.*s}\\n", atoi(id + 6), (int)(end - legal), legal);
        fflush(stdout);
    }
}
"""


def test_cpu_time_counts_every_thread(isolation: Any) -> None:
    """Two threads burn 0.4 s of CPU each and end: the bot's CPU time has both (the main
    thread's own time would be about zero)."""
    source = b"#include <stdlib.h>\n" + THREADED
    channel = _launcher("c", Artifact("c", (("bot.c", source),), "bot.c"), isolation).start()
    seat = Seat(channel, 0)
    try:
        play([seat, RandomBot(1), RandomBot(2)], 1)
        assert seat.faults == []
        assert channel.cpu_seconds() >= 0.75
    finally:
        channel.close()
    assert channel.cpu_at_end >= 0.75  # kept after the kill
