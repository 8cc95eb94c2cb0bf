"""Planning a tournament: its identity (the hash of its stored configuration) and the checks of
its settings, each written once in the library and used by the command line too."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.engine import Rules
from arena.errors import ArenaError, InvalidSetting
from arena.sandbox import Limits
from arena.store import Store
from arena.tournaments.tournament import (
    check_rounds,
    check_worker_count,
    plan_round_robin,
    run_limits,
    worker_count,
)

# A resumed run must find this tournament again. (The match clock's two limits changed it, with
# the schema, before a release: other limits, another tournament; so did the bot hashes
# becoming their artifact's, which covers the language and the file name.)
STORED_ID = "19bbf8f4159c01e4"
STORED_LIMITS = (
    '{"clock_bank_seconds": 30.0, "clock_increment_seconds": 0.25, "decision_seconds": 1.0, '
    '"load_seconds": 5.0, "log_bytes": 65536, "match_cpu_seconds": 20.0, "memory_mb": 1024, '
    '"source_bytes": 1048576}'
)


def test_a_tournament_keeps_its_id_and_stored_configuration(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        versions = [
            store.add_bot_version(n, f"class Bot:\n    name = {n!r}\n", f"{n}.py")[0]
            for n in ("c", "a", "b")
        ]
        the_plan = plan_round_robin(
            store, versions, rounds=2, seed=5, rules=Rules(), limits=Limits()
        )
        config = json.loads(store.tournament(the_plan.tid).config)
        row = store.tournament(the_plan.tid)
    assert the_plan.tid == STORED_ID
    assert json.dumps(config["limits"]) == STORED_LIMITS == row.limits
    assert [b["name"] for b in config["bots"]] == ["a", "b", "c"]
    assert the_plan.limits == Limits() and Limits.from_dict(config["limits"]) == Limits()


@pytest.mark.parametrize(
    ("check", "value", "option"),
    [
        pytest.param(check_rounds, 0, "rounds", id="zero-rounds"),
        pytest.param(check_rounds, -3, "rounds", id="negative-rounds"),
        pytest.param(check_worker_count, 0, "workers", id="zero-workers"),
    ],
)
def test_settings_out_of_range_name_their_parameter(
    check: Callable[[int], int], value: int, option: str
) -> None:
    with pytest.raises(InvalidSetting) as refused:
        check(value)
    assert refused.value.name == option
    assert str(refused.value) == f"{option} must be at least 1, not {value}"
    assert isinstance(refused.value, ArenaError)


def test_run_settings() -> None:
    assert check_rounds(1) == 1 and check_worker_count(3) == 3
    assert worker_count(2) == 2 and worker_count(None) >= 1
    assert run_limits() == Limits()
    assert run_limits(decision_seconds=2.5) == Limits(decision_seconds=2.5)
    assert run_limits(match_cpu_seconds=7.0).match_cpu_seconds == 7.0
    with pytest.raises(ArenaError, match="decision_seconds"):
        run_limits(decision_seconds=0.0)


def test_a_plan_refuses_a_bad_field(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        two = [store.add_bot_version(n, f"class Bot:\n    n = {n!r}\n", "b.py")[0] for n in "ab"]
        with pytest.raises(ArenaError, match=r"at least three bots \(have a, b\)"):
            plan_round_robin(store, two, rounds=1, seed=1, rules=Rules(), limits=Limits())
        with pytest.raises(InvalidSetting, match="^rounds must be at least 1, not 0$"):
            plan_round_robin(store, two, rounds=0, seed=1, rules=Rules(), limits=Limits())
