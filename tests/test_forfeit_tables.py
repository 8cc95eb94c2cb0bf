"""A forfeit counts as what it is in every table: a real bot that faults in every match, run
through the real ``arena`` console script, places last and scores 0 in the duplicate table (the
fallback that finished its matches scored for nobody)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import arena, ok, write_bot
from compare_support import by_role, worker_record

from arena.engine import Rules
from arena.matches.record import MatchRecord
from arena.matches.scheduler import SEATINGS
from arena.sandbox import Limits
from arena.stats.sequential import Design
from arena.store import Store
from arena.tournaments import compare

# Answers an illegal card at its first play decision: a fault (a forfeit) in every match.
BROKEN = """
class Bot:
    name = "broken"

    def act(self, obs):
        if obs["phase"] == "play":
            return "XX"
        return obs["legal"][0]
"""


@pytest.mark.slow
def test_a_bot_that_forfeits_every_match_is_last_in_the_duplicate_table(tmp_path: Path) -> None:
    write_bot(tmp_path, "broken.py", BROKEN)
    ok(
        arena(
            "run", "random", "heuristic", "broken.py", "--rounds", "1", "--workers", "2",
            "--db", "arena.db", "--no-site", cwd=tmp_path,
        )
    )  # fmt: skip
    body = json.loads(ok(arena("standings", "--json", "--db", "arena.db", cwd=tmp_path)))
    faults = {b["name"]: b["faults"] for b in body["bots"]}
    assert faults["broken"] == 6 and faults["random"] == faults["heuristic"] == 0
    duplicate = {d["name"]: d for d in body["duplicate"]["bots"]}
    broken = duplicate["broken"]
    assert broken["points"]["value"] == 0  # the fallback's points are not the bot's
    assert [d["name"] for d in body["duplicate"]["bots"]][-1] == "broken"
    # Every (deal, seat) is held by all three bots: a forfeit scores the least any seat can.
    assert all(
        broken["score"]["value"] < d["score"]["value"]
        for n, d in duplicate.items()
        if n != "broken"
    )
    table = ok(arena("standings", "--db", "arena.db", cwd=tmp_path))
    duplicate_rows = table[table.index("Duplicate score") :].splitlines()
    assert any(line.startswith("broken") and " 0.00 " in line for line in duplicate_rows), table


def test_a_comparisons_roles_count_a_forfeit_as_zero_points(tmp_path: Path) -> None:
    # B forfeits every match of a comparison, and the fallback that finished its hands
    # scored 9 points each time: B's mean points are 0, the forfeit's, not the fallback's.
    with Store(tmp_path / "arena.db") as store:
        the_plan = compare.plan_comparison(
            store, "heuristic", "random", design=Design(0.5, 0.75, 0.05, 0.05, 30), seed=7,
            rules=Rules(), limits=Limits(decision_seconds=1.0),
        )  # fmt: skip
        schedule = the_plan.schedule
        assert isinstance(schedule, compare.CompareSchedule) and schedule.start(store)
        for specs in schedule.specs():
            assert isinstance(specs, list)
            typed = []
            for m in specs:
                record = worker_record(m, by_role(m, (1, 3, 2)))
                seat_b = SEATINGS[m.seating].index(1)
                record["scores"][seat_b] = 9  # the fallback's points
                record["faults"] = [
                    {"seat": seat_b, "kind": "illegal", "message": "XX", "decision": 3}
                ]
                typed.append(MatchRecord.from_json(record))
            schedule.write(store, typed)
        assert schedule.test.decision == "H1"
        roles = {r.role: r for r in compare.comparison(store, the_plan.tid).roles}
    assert roles["b"].matches > 0 and roles["b"].mean_points == 0.0
    assert roles["a"].mean_points == 10.0 and roles["b"].mean_place == 3.0
