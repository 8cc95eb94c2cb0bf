"""Helpers for tests of comparisons and reports: a comparison stored through the real store.

``store_comparison`` plans a real comparison (:func:`arena.tournaments.compare.plan_comparison`) and
stores match records made here, as a worker would return them, so the site and the reports can
be tested on a decided comparison without playing it (the sandboxed command has its own tests).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from site_support import FirstLegal

from arena.engine import Rules, play_match
from arena.matches.record import MatchRecord, SeatStats
from arena.matches.scheduler import SEATINGS, MatchSpec
from arena.sandbox import Limits
from arena.stats.sequential import Design
from arena.store import Store
from arena.tournaments import compare


@functools.cache
def _a_real_hand() -> dict[str, Any]:
    """The first hand of a real match (the site's replay pages read every field of it)."""
    players = [FirstLegal(), FirstLegal(), FirstLegal()]
    return play_match(players, seed=11, rules=Rules()).hands[0].to_dict()


def worker_record(spec: MatchSpec, places: tuple[int, int, int]) -> dict[str, Any]:
    """The record of ``spec`` finishing with ``places`` by seat, with one real hand."""
    return {
        "match_id": spec.match_id, "round": spec.round, "seating": spec.seating,
        "seed": spec.seed, "set_key": spec.set_key, "bots": [e.version_id for e in spec.seats],
        "scores": [10 - 3 * (p - 1) for p in places], "placements": list(places),
        "truncated": False, "hands": [_a_real_hand()], "faults": [],
        "stats": [SeatStats().to_json()] * 3, "logs": ["", "", ""], "duration_seconds": 0.1,
    }  # fmt: skip


def by_role(spec: MatchSpec, places: tuple[int, int, int]) -> tuple[int, int, int]:
    """Places by seat from places by role (A, B, third) in the spec's seating."""
    perm = SEATINGS[spec.seating]
    return (places[perm[0]], places[perm[1]], places[perm[2]])


def store_comparison(db: Path, a: str = "heuristic", b: str = "random") -> compare.Comparison:
    """A comparison of two bundled bots in which A beats B in every seating of every set
    (B wins one match of the first set), stored until the test accepts H1; its status is
    ``finished``. Returns it as :func:`arena.tournaments.compare.comparison` reads it."""
    with Store(db) as store:
        the_plan = compare.plan_comparison(
            store, a, b, design=Design(0.5, 0.75, 0.05, 0.05, 30), seed=7, rules=Rules(),
            limits=Limits(decision_seconds=1.0),
        )  # fmt: skip
        schedule = the_plan.schedule
        assert isinstance(schedule, compare.CompareSchedule) and schedule.start(store)
        for specs in schedule.specs():
            assert isinstance(specs, list)
            records = []
            for m in specs:
                lost = (m.round, m.seating) == (0, 2)  # B's one win
                records.append(worker_record(m, by_role(m, (3, 1, 2) if lost else (1, 3, 2))))
            typed = [MatchRecord.from_json(r) for r in records]
            schedule.write(store, typed)
        assert schedule.test.decision == "H1"
        store.set_status(the_plan.tid, "finished")
        schedule.finish(store, completed=True)
        return compare.comparison(store, the_plan.tid)


def small_record(
    mid: str, rnd: int, bots: list[int], scores: list[int], dealer: int
) -> MatchRecord:
    """A worker record (as arena.tournaments.runner makes it) with one hand dealt by ``dealer``."""
    hand = {
        "hand_number": 0, "dealer": dealer, "upcard": "AS", "trump": "S", "maker": 0,
        "alone": [], "sitting_out": None, "passed_out": False, "tricks_won": [3, 1, 1],
        "points": [1, 0, 0], "scores_before": [0, 0, 0], "log": [[2, "bid1", "order"]],
    }  # fmt: skip
    places = [1 + sum(o > s for o in scores) for s in scores]
    return MatchRecord.from_json({
        "match_id": mid, "round": rnd, "seating": 0, "seed": 42 + rnd, "set_key": "1,2,3",
        "bots": bots, "scores": scores, "placements": places, "truncated": False,
        "hands": [hand], "faults": [], "stats": [SeatStats().to_json()] * 3, "logs": ["", "", ""],
        "duration_seconds": 0.5,
    })  # fmt: skip


def store_small_tournament(db: Path) -> str:
    """Tournament ``t1``: two deals of bots a, b, c (ids 1, 2, 3), two seatings each, c
    keeping seat 2; the first dealer is seat 0 in deal x, seat 2 in deal y. The reports'
    values for it are worked out by hand in tests/test_duplicate_reports.py and
    tests/test_reports.py. Returns its id."""
    with Store(db) as store:
        for name in ("a", "b", "c"):
            store.add_bot_version(name, f"class Bot: name = {name!r}", f"{name}.py")
        config = {"bots": [], "seed": 1, "rounds": 2, "rules": {}, "limits": {}}
        store.ensure_tournament("t1", config, [1, 2, 3], 4)
        store.write_results(
            "t1",
            [
                small_record("x1", 0, [1, 2, 3], [10, 4, 6], dealer=0),
                small_record("x2", 0, [2, 1, 3], [7, 3, 10], dealer=0),
                small_record("y1", 1, [1, 2, 3], [2, 10, 5], dealer=2),
                small_record("y2", 1, [2, 1, 3], [10, 6, 1], dealer=2),
            ],
        )
        store.set_status("t1", "finished")
    return "t1"
