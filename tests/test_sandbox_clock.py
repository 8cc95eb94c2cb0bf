"""The match clock's arithmetic (bank, increment, running out), its message and its settings.

Pure values, no processes: the clock through real sandboxed matches is in
tests/test_sandbox.py and, against a bot that sleeps at every decision, through the command
line in tests/test_cli_faults.py.
"""

from __future__ import annotations

import math

import pytest

from arena.errors import ArenaError
from arena.sandbox import Limits
from arena.sandbox.clock import MatchClock, where
from arena.tournaments.tournament import run_limits


def test_a_fresh_clock_holds_its_bank() -> None:
    clock = MatchClock(30.0, 0.25)
    assert clock.allowed == clock.remaining == 30.0 and clock.used == 0 and clock.decisions == 0


def test_loading_is_charged_to_the_bank_with_no_increment() -> None:
    clock = MatchClock(2.0, 0.5)
    assert clock.charge(1.5)
    assert clock.remaining == 0.5 and clock.decisions == 0


def test_each_decision_adds_its_increment_when_it_starts() -> None:
    clock = MatchClock(1.0, 0.25)
    assert clock.start_decision() == 1.25
    assert clock.charge(0.25)  # a decision within its increment costs the bank nothing
    assert clock.start_decision() == 1.25
    assert clock.charge(1.0)
    assert clock.start_decision() == pytest.approx(0.5)
    assert clock.used == 1.25 and clock.allowed == 1.75


@pytest.mark.parametrize(
    ("bank", "increment", "turns", "in_time"),
    [
        pytest.param(1.0, 0.0, [0.5, 0.5], True, id="exactly-used-up"),
        pytest.param(1.0, 0.0, [0.5, 0.5, 0.001], False, id="one-ms-over"),
        pytest.param(0.5, 0.5, [0.0] + [0.5] * 100, True, id="living-on-the-increment"),
        pytest.param(0.5, 0.5, [0.0] + [0.5] * 99 + [1.01], False, id="over-at-the-last"),
        pytest.param(3.0, 0.25, [0.01, 4.6], False, id="sleeper-at-its-first-decision"),
        pytest.param(30.0, 0.25, [0.01] + [4.6] * 6, True, id="sleeper-six-decisions-in"),
        pytest.param(30.0, 0.25, [0.01] + [4.6] * 7, False, id="sleeper-runs-out-at-seven"),
    ],
)
def test_the_clock_runs_out_when_the_turns_exceed_bank_plus_increments(
    bank: float, increment: float, turns: list[float], in_time: bool
) -> None:
    """Turn 0 is loading, turn k > 0 decision k: after n decisions the bot may have used
    bank + n * increment, and not a moment more."""
    clock = MatchClock(bank, increment)
    results = []
    for k, took in enumerate(turns):
        if k > 0:
            clock.start_decision()
        results.append(clock.charge(took))
    assert all(results[:-1]) and results[-1] is in_time
    n = len(turns) - 1
    assert math.isclose(clock.allowed, bank + n * increment)
    assert (sum(turns) <= bank + n * increment + 1e-9) is in_time


def test_a_negative_turn_charges_nothing() -> None:
    clock = MatchClock(1.0, 0.0)
    assert clock.charge(-5.0) and clock.used == 0.0


def test_the_fault_message_gives_the_clock_figures() -> None:
    clock = MatchClock(30.0, 0.25)
    clock.charge(0.01)
    for _ in range(7):
        clock.start_decision()
        clock.charge(4.6)
    message = clock.ran_out("playing trick 3 of hand 2")
    assert message == (
        "ran out of its match clock playing trick 3 of hand 2: 32.21 s of wall time used over "
        "loading and 7 decisions; the clock gave 30 s + 7 x 0.25 s = 31.75 s"
    )
    # A turn cut short by the clock is counted in with its elapsed time, not yet charged.
    fresh = MatchClock(1.5, 0.1)
    fresh.start_decision()
    assert fresh.ran_out("in phase bid1 of hand 1", 1.6).startswith(
        "ran out of its match clock in phase bid1 of hand 1: 1.60 s of wall time used over "
        "loading and 1 decision;"
    )
    assert (
        MatchClock(2.0, 0.5)
        .ran_out("loading", 2.5)
        .endswith("over loading; the clock gave 2 s + 0 x 0.5 s = 2.00 s")
    )


@pytest.mark.parametrize(
    ("obs", "place"),
    [
        pytest.param(None, "loading", id="loading"),
        pytest.param({"phase": "bid1", "hand_number": 0}, "in phase bid1 of hand 1", id="bid"),
        pytest.param(
            {"phase": "play", "hand_number": 4, "tricks": [{}, {}]},
            "playing trick 3 of hand 5",
            id="third-trick",
        ),
        pytest.param({"phase": "play", "hand_number": 0, "tricks": []}, "playing trick 1 of "
                     "hand 1", id="first-trick"),
        pytest.param({"phase": "keep"}, "in phase keep", id="no-hand-number"),
    ],
)  # fmt: skip
def test_where_names_the_decision(obs: dict[str, object] | None, place: str) -> None:
    assert where(obs) == place


def test_the_clock_follows_the_cpu_limits_unless_given() -> None:
    assert (Limits().clock_bank_seconds, Limits().clock_increment_seconds) == (30.0, 0.25)
    slow = Limits(decision_seconds=4.0, match_cpu_seconds=60.0)
    assert (slow.clock_bank_seconds, slow.clock_increment_seconds) == (90.0, 1.0)
    given = Limits(match_cpu_seconds=60.0, clock_bank_seconds=5.0, clock_increment_seconds=0.0)
    assert (given.clock_bank_seconds, given.clock_increment_seconds) == (5.0, 0.0)
    clock = given.clock()
    assert (clock.bank, clock.increment, clock.used) == (5.0, 0.0, 0.0)
    # The numbers played with are what a tournament records, and they read back the same.
    assert Limits.from_dict(slow.to_dict()) == slow and slow.to_dict()["clock_bank_seconds"] == 90


def test_run_limits_derive_the_clock_from_the_limits_given() -> None:
    assert run_limits() == Limits()
    assert run_limits(match_cpu_seconds=10.0).clock_bank_seconds == 15.0
    assert run_limits(decision_seconds=2.0).clock_increment_seconds == 0.5
    both = run_limits(decision_seconds=2.0, clock_bank_seconds=4.0, clock_increment_seconds=0.1)
    assert (both.clock_bank_seconds, both.clock_increment_seconds) == (4.0, 0.1)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("clock_bank_seconds", 0.0),
        ("clock_bank_seconds", -1.0),
        ("clock_bank_seconds", math.nan),
        ("clock_bank_seconds", math.inf),
        ("clock_bank_seconds", True),
        ("clock_bank_seconds", "30"),
        ("clock_increment_seconds", -0.1),
        ("clock_increment_seconds", math.nan),
        ("clock_increment_seconds", 3601.0),
    ],
)
def test_a_bad_clock_setting_is_refused_in_one_line(field: str, value: object) -> None:
    with pytest.raises(ArenaError, match=f"Limits.{field} must be a number of seconds"):
        Limits(**{field: value})  # type: ignore[arg-type]
