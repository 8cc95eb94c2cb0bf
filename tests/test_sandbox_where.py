"""A bot that runs out of time is asked where it is before it is killed (SIGUSR1; the bot
host's handler answers with the innermost frame of the bot's own file), and its fault names
that place: ``...; the bot was at stuck.py:7 in act``. A bot that ignores, replaces or lies to
the question is killed as before, with the message it would have had without it.

Real sandboxed matches: a looping or sleeping bot in seat 0 at a known line of its file, two
random bots beside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.sandbox import BotPool, BotSource, Limits
from arena.sandbox.botfile import bundled

ATTACKS = Path(__file__).parent / "attacks"
SEED = 5

_STUCK = """\
import time


def nap():
    time.sleep(3600)


class Bot:
    def act(self, obs):
        @@BODY@@
        return obs["legal"][0]
"""
"""A bot whose act does @@BODY@@ on line 10 (``nap`` sleeps on line 5)."""

_BURN = """\
import time


class Bot:
    def act(self, obs):
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
        return obs["legal"][0]
"""
"""Each decision burns 0.3 s of CPU on line 7-8: under the decision limit, over the budget."""


def _play(bot: BotSource, limits: Limits) -> tuple[str, str, int | None]:
    victim = BotSource.from_path(str(bundled("random_bot")))
    with BotPool(limits) as pool:
        out = pool.play_match([bot, victim, victim], SEED)
    fault = out.fault_of(0)
    assert fault is not None, out.faults
    assert [f.seat for f in out.faults] == [0], [str(f) for f in out.faults]  # others play on
    return fault.kind, fault.message, fault.decision


def _stuck(body: str) -> BotSource:
    return BotSource("stuck", _STUCK.replace("@@BODY@@", body), "stuck.py")


def test_a_loop_over_the_decision_cpu_limit_names_its_line() -> None:
    kind, message, decision = _play(_stuck("while True: pass"), Limits(decision_seconds=0.5))
    assert (kind, decision) == ("timeout", 0)
    assert message == "used over 0.5 s of CPU on one decision; the bot was at stuck.py:10 in act"


def test_a_sleep_past_the_wall_backstop_names_the_innermost_frame_of_the_bot() -> None:
    limits = Limits(decision_seconds=0.3, clock_bank_seconds=60.0)
    kind, message, _ = _play(_stuck("nap()"), limits)
    assert kind == "timeout"
    assert message == (
        "no answer within 1.5 s (wall clock) on one decision; the bot was at stuck.py:5 in nap"
    )


def test_a_match_clock_that_runs_out_names_the_line() -> None:
    limits = Limits(decision_seconds=2.0, clock_bank_seconds=0.5, clock_increment_seconds=0.0)
    kind, message, _ = _play(_stuck("nap()"), limits)
    assert kind == "timeout"
    assert message.startswith("ran out of its match clock ")
    assert message.endswith(" = 0.50 s; the bot was at stuck.py:5 in nap")


def test_the_cpu_budget_running_out_names_the_line() -> None:
    limits = Limits(decision_seconds=1.0, match_cpu_seconds=1.0, clock_bank_seconds=60.0)
    kind, message, decision = _play(BotSource("burn", _BURN, "burn.py"), limits)
    assert kind == "cpu" and decision is not None and decision >= 2
    assert message in (
        f"used its CPU budget of 1 s; the bot was at burn.py:{line} in act" for line in (7, 8)
    )


def test_a_loop_while_loading_names_the_module_line() -> None:
    looping = BotSource("loader", "x = 0\nwhile True:\n    x += 1\n", "loader.py")
    kind, message, decision = _play(looping, Limits(decision_seconds=0.5, load_seconds=0.5))
    assert (kind, decision) == ("load", None)
    assert message in (
        f"used over 0.5 s of CPU loading; the bot was at loader.py:{n} in <module>" for n in (2, 3)
    )


# A bot that turns the question away: ignored, fatal, answered with nothing, or with a lie in
# the wrong shape. Each is killed with the message it would have had without the question.
_DEAF = {
    "ignored": "signal.signal(signal.SIGUSR1, signal.SIG_IGN)",
    "fatal": "signal.signal(signal.SIGUSR1, signal.SIG_DFL)",
    "silent": "signal.signal(signal.SIGUSR1, lambda *a: None)",
    "blocked": "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])",
    "escapes": "signal.signal(signal.SIGUSR1, lambda *a: os.write(4, b'\\\\n' + LIE + b'\\\\n'))",
}


# The fault without the question's answer: the CPU limit, or on a machine so loaded that the
# bot got under 0.5 s of CPU in 2.5 s, the wall-clock backstop. Never a "where" part.
_KILLED_AS_BEFORE = (
    "used over 0.5 s of CPU on one decision",
    "no answer within 2.5 s (wall clock) on one decision",
)


@pytest.mark.parametrize("how", sorted(_DEAF))
def test_a_bot_that_turns_the_question_away_is_killed_as_before(how: str) -> None:
    text = (
        "import os, signal\n"
        'LIE = b\'{"where": "stuck.py:1 in act\\\\u001b[2J"}\'\n'
        "class Bot:\n"
        "    def __init__(self):\n"
        f"        {_DEAF[how]}\n"
        "    def act(self, obs):\n"
        "        while True: pass\n"
    )
    kind, message, decision = _play(
        BotSource("deaf", text, "deaf.py"), Limits(decision_seconds=0.5)
    )
    assert (kind, decision) == ("timeout", 0) and message in _KILLED_AS_BEFORE


def test_a_handler_that_floods_and_never_returns_is_killed_as_before() -> None:
    """tests/attacks/where_liar.py: a location with terminal escapes, a line over the read
    cap, then a loop inside its handler."""
    liar = BotSource("liar", (ATTACKS / "where_liar.py").read_text())
    kind, message, decision = _play(liar, Limits(decision_seconds=0.5))
    assert (kind, decision) == ("timeout", 0) and message in _KILLED_AS_BEFORE
