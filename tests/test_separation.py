"""``arena run --until-separated``: rounds until adjacent bots are separated, then why it stopped.

The rule is checked on hand-made standings and on hand-made match records in a real database;
then real sandboxed runs stop early, stop at the cap, resume, and equal a serial run.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from cli_support import arena, ok

from arena.engine import Rules
from arena.matches.record import MatchRecord, SeatStats
from arena.matches.secrecy import SecretFile
from arena.sandbox import Limits
from arena.stats import BotStanding, Pair
from arena.stats.separation import Adjacent, adjacent_pairs, check
from arena.store import Store
from arena.tournaments.runner import WAIT
from arena.tournaments.schedules import UntilSeparated
from arena.tournaments.tournament import plan_round_robin, register_files, run


def standing(bot: int, name: str, rank: int | None, above: dict[int, Pair]) -> BotStanding:
    return BotStanding(bot=bot, name=name, matches=6, rank=rank, above=above)


def test_adjacent_pairs_and_what_separated_means() -> None:
    table = [
        standing(1, "a", 1, {2: Pair(12, 9, 2, 0.55, 0.9), 3: Pair(12, 12, 2, 0.8, 1.0)}),
        standing(2, "b", 2, {3: Pair(12, 7, 2, 0.3, 0.8)}),
        standing(3, "c", 3, {}),
        standing(4, "d", None, {}),  # no match: not ranked, not in a pair
    ]
    pairs = adjacent_pairs(table)
    assert [(p.higher, p.lower) for p in pairs] == [("a", "b"), ("b", "c")]
    assert [p.separated for p in pairs] == [True, False]
    assert pairs[1].text() == "b over c 0.58 [0.30, 0.80]"
    # Below 1/2 is separated too (the head-to-head goes against the rating order), and says so.
    turned = Adjacent("x", "y", Pair(12, 2, 2, 0.05, 0.4))
    assert turned.separated and "goes the other way" in turned.text()
    assert not Adjacent("x", "y", None).separated  # never met
    assert not Adjacent("x", "y", Pair(6, 6, 1)).separated  # one unit: no interval yet


def bots(tmp_path: Path) -> list[Path]:
    """Three bot files (the store only needs their sources here)."""
    paths = []
    for name in ("x", "y", "z"):
        path = tmp_path / f"{name}.py"
        path.write_text(f"class Bot:\n    name = {name!r}\n    def act(self, obs):\n"
                        "        return obs['legal'][0]\n")  # fmt: skip
        paths.append(path)
    return paths


def finish_round(specs: Any, order: dict[int, int]) -> list[MatchRecord]:
    """The records of ``specs`` as played, each bot placed ``order[version id]``."""
    records = []
    for m in specs:
        ids = [e.version_id for e in m.seats]
        places = [order[i] for i in ids]
        records.append({
            "match_id": m.match_id, "round": m.round, "seating": m.seating, "seed": m.seed,
            "set_key": m.set_key, "bots": ids, "scores": [12 - 4 * p for p in places],
            "placements": places, "truncated": False, "hands": [], "faults": [],
            "stats": [SeatStats().to_json()] * 3, "logs": ["", "", ""], "duration_seconds": 0.1,
        })  # fmt: skip
    return [MatchRecord.from_json(r) for r in records]


def test_rounds_one_at_a_time_until_separated(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        versions = register_files(store, bots(tmp_path))
        the_plan = plan_round_robin(
            store, versions, rounds=10, seed=1, rules=Rules(), limits=Limits(), until_separated=True
        )
        fixed = plan_round_robin(store, versions, rounds=10, seed=1, rules=Rules(), limits=Limits())
        assert the_plan.tid != fixed.tid  # another tournament than the fixed one
        assert the_plan.config["until"] == "separated" and the_plan.total == 60
        schedule = the_plan.schedule
        assert isinstance(schedule, UntilSeparated)
        order = {v.id: k for k, v in enumerate(sorted(versions, key=lambda v: v.name), 1)}
        assert schedule.start(store) is True
        items = schedule.specs()
        first = next(items)
        assert {m.round for m in first} == {0} and len(first) == 6
        assert next(items) is WAIT  # round 1 waits for round 0
        schedule.write(store, finish_round(first, order))
        second = next(items)  # one unit per pair: no interval yet, so round 1 comes
        assert {m.round for m in second} == {1}
        assert schedule.last is not None and not schedule.last.separated
        assert schedule.describe() == "round 1: 0 of 2 adjacent pairs separated"
        schedule.write(store, finish_round(second, order))
        # x always first, z always last: each pair's rate is 1 over 2, 3, 4 units, whose 95 %
        # intervals start at 0.07, 0.49 and 0.70: separated after round 4.
        for r in (2, 3):
            more = next(items)
            assert {m.round for m in more} == {r} and not schedule.last.separated
            schedule.write(store, finish_round(more, order))
        assert list(itertools.islice(items, 3)) == []
        assert schedule.last.separated and schedule.stopped
        assert schedule.why().startswith("Stopped after round 4: every pair of adjacent bots")
        schedule.finish(store, completed=True)
        t = store.tournament(the_plan.tid)
        assert (t.rounds, t.total_matches) == (4, 24)

        # Read again (a rerun): the stored rounds are checked in order; nothing is left.
        again = plan_round_robin(
            store, versions, rounds=10, seed=1, rules=Rules(), limits=Limits(), until_separated=True
        )
        assert again.tid == the_plan.tid
        assert again.schedule.start(store) is False
        assert again.schedule.last.rounds == 4


def test_the_check_reads_only_the_rounds_it_is_asked_about(tmp_path: Path) -> None:
    names = {1: "x", 2: "y", 3: "z"}
    rows = [(f"1,2,3/{r}", 1, 2, 3, 1, 2, 3) for r in range(4) for _ in range(6)]
    assert check(names, rows, 1).pairs[0].pair.matches == 6  # type: ignore[union-attr]
    assert check(names, rows, 4).pairs[0].pair.matches == 24  # type: ignore[union-attr]
    assert not check(names, rows, 3).separated and check(names, rows, 4).separated


CRASHER = """
class Bot:
    name = "crasher"
    def act(self, obs):
        raise RuntimeError("no")
"""


def dump(db: Path) -> list[tuple[Any, ...]]:
    with Store(db, create=False) as store:
        return sorted((m.id, m.round, m.seating, m.bots, m.scores) for m in store.match_rows())


@pytest.mark.slow
def test_a_real_run_stops_when_separated_and_resumes_as_it_stopped(tmp_path: Path) -> None:
    (tmp_path / "crasher.py").write_text(CRASHER)
    cmd = ["run", "heuristic", "random", "crasher.py", "--until-separated", "--rounds", "40",
           "--workers", "2", "--no-site", "--db", "arena.db"]  # fmt: skip
    out = ok(arena(*cmd, cwd=tmp_path))
    assert "at most 240 matches" in out
    found = re.search(r"Stopped after round (\d+): every pair of adjacent bots is separated", out)
    assert found, out
    rounds = int(found.group(1))
    assert 2 <= rounds < 40
    assert "heuristic over random" in out and "random over crasher 1.00" in out
    with Store(tmp_path / "arena.db", create=False) as store:
        t = store.tournament()
        assert (t.status, t.rounds, t.total_matches) == ("finished", rounds, 6 * rounds)
        assert store.match_count(t.id) == 6 * rounds
    # The same command again: nothing to play, the same reason.
    again = ok(arena(*cmd, cwd=tmp_path))
    assert f"Stopped after round {rounds}:" in again and "Played 0 matches" in again


@pytest.mark.slow
def test_the_cap_stops_it_and_says_which_pair_is_not_separated(tmp_path: Path) -> None:
    (tmp_path / "last.py").write_text(
        "class Bot:\n    name = 'last'\n    def act(self, obs):\n        return obs['legal'][-1]\n"
    )
    cmd = ["run", "heuristic", "random", "last.py", "--until-separated", "--rounds", "2",
           "--workers", "2", "--no-site", "--db", "arena.db"]  # fmt: skip
    out = ok(arena(*cmd, cwd=tmp_path))
    assert "Stopped at the cap of 2 rounds before the standings were separated" in out
    assert "not separated yet:" in out


SECRET = SecretFile(2, bytes(range(32)))


def run_until_separated(db: Path, files: list[Path], workers: int) -> tuple[str, int]:
    with Store(db) as store:
        versions = register_files(store, files)
        the_plan = plan_round_robin(
            store, versions, rounds=30, seed=2, rules=Rules(), limits=Limits(decision_seconds=1.0),
            secret_file=SECRET, until_separated=True,
        )  # fmt: skip
        result = run(store, the_plan, workers=workers, log_path=db.with_suffix(".log"))
        assert result.completed and result.total == result.played
        return the_plan.schedule.why(), result.played


@pytest.mark.slow
def test_serial_and_parallel_stop_after_the_same_round_with_the_same_matches(
    tmp_path: Path,
) -> None:
    (tmp_path / "crasher.py").write_text(CRASHER)
    (tmp_path / "last.py").write_text(
        "class Bot:\n    name = 'last'\n    def act(self, obs):\n        return obs['legal'][-1]\n"
    )
    from arena.sandbox.botfile import bundled

    files = [bundled("heuristic"), tmp_path / "last.py", tmp_path / "crasher.py"]
    serial = run_until_separated(tmp_path / "serial.db", files, workers=1)
    parallel = run_until_separated(tmp_path / "parallel.db", files, workers=2)
    assert serial == parallel and serial[0].startswith("Stopped after round")
    assert dump(tmp_path / "serial.db") == dump(tmp_path / "parallel.db")
