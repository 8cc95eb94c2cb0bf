"""``arena compare``: the schedule of a comparison, its stored sets re-read, and the command.

The unit tests drive :class:`arena.tournaments.compare.CompareSchedule` with hand-made match records
in a real database; the others run the real ``arena`` console script with sandboxed bots.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from cli_support import arena, arena_script, ok, one_error_line, stored_matches

from arena.engine import Rules
from arena.matches.record import MatchRecord, SeatStats
from arena.matches.scheduler import SEATINGS, Entrant, match_seed
from arena.matches.secrecy import SecretFile
from arena.sandbox import Limits
from arena.sandbox.botfile import bundled
from arena.stats.sequential import Design, half_points, replay
from arena.store import COMPARE, Store
from arena.tournaments import compare
from arena.tournaments.runner import WAIT
from arena.tournaments.tournament import run

LIMITS = Limits(decision_seconds=1.0)


def plan_in(store: Store, a: str = "heuristic", b: str = "random", **design: Any) -> Any:
    """A comparison of bundled bots, planned in ``store`` (nothing is played)."""
    settings = {"p0": 0.5, "p1": 0.75, "alpha": 0.05, "beta": 0.05, "max_sets": 20, **design}
    return compare.plan_comparison(
        store, a, b, design=Design(**settings), seed=3, rules=Rules(), limits=LIMITS
    )


def record(spec: Any, places: tuple[int, int, int]) -> dict[str, Any]:
    """A worker's record of ``spec`` finishing with ``places`` by seat (one plain hand)."""
    hand = {
        "hand_number": 0, "dealer": 0, "upcard": "AS", "trump": "S", "maker": 0, "alone": [],
        "sitting_out": None, "passed_out": False, "tricks_won": [3, 1, 1], "points": [1, 0, 0],
        "scores_before": [0, 0, 0], "log": [],
    }  # fmt: skip
    return {
        "match_id": spec.match_id, "round": spec.round, "seating": spec.seating,
        "seed": spec.seed, "set_key": spec.set_key, "bots": [e.version_id for e in spec.seats],
        "scores": [10 - 3 * (p - 1) for p in places], "placements": list(places),
        "truncated": False, "hands": [hand], "faults": [], "stats": [SeatStats().to_json()] * 3,
        "logs": ["", "", ""], "duration_seconds": 0.1,
    }  # fmt: skip


def typed(records: list[dict[str, Any]]) -> list[MatchRecord]:
    """The records as :meth:`Store.write_results` takes them."""
    return [MatchRecord.from_json(r) for r in records]


def places_for(spec: Any, by_role: tuple[int, int, int]) -> tuple[int, int, int]:
    """Places by seat from places by role (A, B, third) in the spec's seating."""
    perm = SEATINGS[spec.seating]
    return (by_role[perm[0]], by_role[perm[1]], by_role[perm[2]])


# --- the schedule -----------------------------------------------------------------------------


def test_a_set_is_six_seatings_of_one_seed_even_with_a_bot_in_two_seats(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        the_plan = plan_in(store)
        schedule = the_plan.schedule
        assert isinstance(schedule, compare.CompareSchedule)
        a, b, third = schedule.members
        assert (a.name, b.name, third.name) == ("heuristic", "random", "heuristic")
        assert a == third  # the default third is the heuristic itself
        specs = compare.set_matches(the_plan.tid, schedule.members, 4, 3, None)
        assert store.tournament(the_plan.tid).kind == COMPARE
    assert len({m.match_id for m in specs}) == 6  # distinct although two seats hold one bot
    assert {m.seed for m in specs} == {match_seed(3, schedule.members, 4)}
    assert {m.round for m in specs} == {4}
    for m, perm in zip(specs, SEATINGS, strict=True):
        assert m.seats == tuple(schedule.members[i] for i in perm)
    assert the_plan.total == 0 and not schedule.exact


def test_points_of_a_follow_the_seating() -> None:
    # Seating 3 is (1, 2, 0): B at seat 0, the third at seat 1, A at seat 2.
    assert SEATINGS[3] == (1, 2, 0)
    assert compare.points_of_a(3, (1, 3, 2)) == half_points(2, 1) == 0  # B first, A second
    assert compare.points_of_a(3, (2, 1, 1)) == 2  # A shares first, B second
    assert compare.points_of_a(3, (1, 2, 1)) == 1  # A and B share first


def test_set_scores_wait_for_complete_sets_in_order() -> None:
    # Set 1 complete, set 0 missing its seating 5: nothing is released; then it is.
    rows = [(1, k, 1, 2, 3) for k in range(6)] + [(0, k, 1, 2, 3) for k in range(5)]
    assert compare.set_scores(rows) == []
    rows.append((0, 5, 1, 2, 3))
    # Places by seat (1, 2, 3) in every seating: A's half-points are its seat's over B's.
    want = [sum(compare.points_of_a(k, (1, 2, 3)) for k in range(6))] * 2
    assert compare.set_scores(sorted(rows)) == want == [6, 6]


def test_the_schedule_decides_only_on_complete_sets_and_resumes(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        the_plan = plan_in(store)
        schedule = the_plan.schedule
        assert schedule.start(store) is True
        items = schedule.specs()
        first = next(items)
        assert first is not WAIT and [m.round for m in first] == [0] * 6
        # A places first and B last in every seating of set 0, except one match not in yet.
        records = [record(m, places_for(m, (1, 3, 2))) for m in first]
        schedule.write(store, typed(records[:5]))
        assert schedule.test.sets == 0 and schedule.queue.waiting == 1
        second = next(items)  # the next set is handed out meanwhile
        assert [m.round for m in second] == [1] * 6
        schedule.write(store, typed(records[5:]))
        assert schedule.test.sets == 1 and list(schedule.test.counts).index(1) == 12

        # A fresh schedule (a resumed run) reads the stored set and hands out only what is
        # missing: set 1, then set 2.
        again = plan_in(store).schedule
        assert again.start(store) is True
        assert again.test.sets == 1 and again.test.history == schedule.test.history
        assert [m.match_id for m in next(again.specs())] == [m.match_id for m in second]

        # Every set a clear win for A: the test accepts H1 and hands out nothing more.
        for k in range(1, 20):
            specs = compare.set_matches(the_plan.tid, again.members, k, 3, again.secret)
            done = [record(m, places_for(m, (1, 3, 2))) for m in specs]
            again.write(store, typed(done))
            if again.test.decision is not None:
                break
        assert again.test.decision == "H1"
        decided = again.test.sets
        assert list(again.specs()) == []
        again.finish(store, completed=True)
        t = store.tournament(the_plan.tid)
        assert (t.rounds, t.total_matches) == (decided, 6 * decided)
        stored = compare.comparison(store, the_plan.tid)
    assert stored.test.decision == "H1" and stored.test.sets == decided
    assert stored.test.history == replay(again.design, [12] * decided).history
    a, b, third = stored.roles
    assert (a.wins, b.wins, a.matches) == (6 * decided, 0, 6 * decided)
    assert a.bot.id == third.bot.id and b.place_sum == 3 * 6 * decided


def test_the_identity_is_the_configuration(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        one = plan_in(store)
        assert plan_in(store).tid == one.tid  # the same command finds it again
        assert plan_in(store, p1=0.7).tid != one.tid
        assert plan_in(store, max_sets=30).tid != one.tid
        assert plan_in(store, "random", "heuristic").tid != one.tid
        t = store.tournament(one.tid)
        config = json.loads(t.config)
    assert t.kind == COMPARE and t.total_matches == 6 * 20
    assert [b["role"] for b in config["bots"]] == ["a", "b", "third"]
    assert {k: config[k] for k in ("p0", "p1", "alpha", "beta", "rounds")} == {
        "p0": 0.5, "p1": 0.75, "alpha": 0.05, "beta": 0.05, "rounds": 20,
    }  # fmt: skip


def test_members_are_entrants_of_the_tournament(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        the_plan = plan_in(store, "random", "montecarlo")
        ids = {v.id for v in store.tournament_entrants(the_plan.tid)}
        members = the_plan.schedule.members
    assert ids == {m.version_id for m in members} and len(ids) == 3
    assert all(isinstance(m, Entrant) for m in members)


# --- the command line -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, says",
    [
        (["heuristic", "random", "--p0", "0.6", "--p1", "0.55"], "need --p0 < --p1"),
        (["heuristic", "random", "--alpha", "0.5"], "0<x<0.5"),
        (["heuristic", "random", "--beta", "0"], "0<x<0.5"),
        (["heuristic", "random", "--p1", "1"], "0<x<1"),
        (["heuristic", "heuristic"], "A and B are the same bot"),
        (["heuristic", "random", "--max-sets", "0"], "--max-sets"),
    ],
    ids=["p0-not-below-p1", "alpha-half", "beta-zero", "p1-one", "same-bot", "no-sets"],
)
def test_bad_options_are_usage_errors(tmp_path: Path, args: list[str], says: str) -> None:
    result = arena("compare", *args, "--db", "arena.db", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert says in result.stderr.splitlines()[-1]
    assert not (tmp_path / "arena.db").exists()


def test_one_bot_by_name_and_by_file_is_a_usage_error(tmp_path: Path) -> None:
    copy = tmp_path / "heur.py"
    copy.write_text(bundled("heuristic").read_text())
    # The same name twice (the file declares the bundled name): refused before anything runs.
    result = arena("compare", "heuristic", copy, "--db", "arena.db", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "heuristic" in result.stderr.splitlines()[-1]


def test_an_unknown_bot_is_one_error_line_and_leaves_no_database(tmp_path: Path) -> None:
    line = one_error_line(arena("compare", "nobody", "random", "--db", "a.db", cwd=tmp_path))
    assert "unknown bot 'nobody'" in line
    assert not (tmp_path / "a.db").exists()


@pytest.mark.slow
def test_heuristic_against_random_accepts_h1_on_the_real_sandbox(tmp_path: Path) -> None:
    args = ["compare", "heuristic", "random", "--p1", "0.75", "--max-sets", "40", "--json"]
    result = arena(*args, "--workers", "2", "--db", "arena.db", cwd=tmp_path)
    doc = json.loads(ok(result))
    for key in ("decision", "llr", "lower", "upper", "sets", "matches", "rate", "ci", "p0",
                "p1", "alpha", "beta"):  # fmt: skip
        assert key in doc, key
    assert doc["decision"] == "H1" and doc["llr"] >= doc["upper"] == pytest.approx(2.9957)
    assert doc["lower"] == pytest.approx(-2.9957) and (doc["p0"], doc["p1"]) == (0.5, 0.75)
    assert doc["evidence"]["h1"] == doc["llr"] and doc["ci"][0] > doc["p0"]
    assert 2 <= doc["sets"] < 40 and doc["matches"] >= 6 * doc["sets"]
    assert doc["ci"][0] < doc["rate"] <= doc["ci"][1] and doc["rate"] > 0.75
    assert doc["bots"]["a"]["name"] == doc["bots"]["third"]["name"] == "heuristic"
    # The progress line and the verdict went to stderr: stdout is the object alone.
    assert "H1 accepted: heuristic places above random" in result.stderr
    # Stored as a comparison, finished with the sets it took, deals verifiable.
    with Store(tmp_path / "arena.db", create=False) as store:
        t = store.tournament(doc["tournament"])
        assert (t.kind, t.status, t.rounds) == ("compare", "finished", doc["sets"])
    assert "deals verified" in ok(arena("verify", "--db", "arena.db", cwd=tmp_path))
    # The same command again plays nothing and says the same.
    again = arena(*args, "--db", "arena.db", cwd=tmp_path)
    assert json.loads(ok(again)) == doc
    assert "Played 0 matches" in again.stderr
    # `arena standings --tournament` shows it; plain `arena standings` has no round robin.
    shown = ok(arena("standings", "--tournament", doc["tournament"], "--db", "arena.db",
                     cwd=tmp_path))  # fmt: skip
    assert "H1 accepted" in shown and "third" in shown
    as_json = ok(arena("standings", "--json", "--db", "arena.db", cwd=tmp_path))
    assert json.loads(as_json)["decision"] == "H1"


@pytest.mark.slow
def test_a_renamed_copy_is_not_found_stronger(tmp_path: Path) -> None:
    source = bundled("heuristic").read_text()
    copy = tmp_path / "twin.py"
    copy.write_text(source.replace('name = "heuristic"', 'name = "twin"'))
    assert 'name = "twin"' in copy.read_text()
    result = arena(
        "compare", copy, "heuristic", "--p1", "0.6", "--max-sets", "30", "--json",
        "--workers", "2", "--db", "arena.db", cwd=tmp_path,
    )  # fmt: skip
    doc = json.loads(ok(result))
    # Same cards, same seat, same random stream: every set is exactly even.
    assert doc["rate"] == 0.5 and doc["decision"] != "H1"
    assert doc["decision"] == "H0" and doc["llr"] <= doc["lower"]
    assert "H0 accepted: twin places above heuristic at a rate below 0.6" in result.stderr


# --- parallel, interrupted, resumed -----------------------------------------------------------

SECRET = SecretFile(3, bytes(range(32)))
"""Two databases play the same deals only with the same deal secret."""


def run_comparison(db: Path, workers: int) -> compare.Comparison:
    """heuristic against random, p1 0.75, in ``db`` with ``workers`` worker processes."""
    with Store(db) as store:
        the_plan = compare.plan_comparison(
            store, "heuristic", "random", design=Design(0.5, 0.75, 0.05, 0.05, 40), seed=3,
            rules=Rules(), limits=LIMITS, secret_file=SECRET,
        )  # fmt: skip
        result = run(store, the_plan, workers=workers, log_path=db.with_suffix(".log"))
        assert result.completed and result.standings == []  # a comparison has no standings
        return compare.comparison(store, the_plan.tid)


@pytest.mark.slow
def test_parallel_workers_decide_as_a_serial_run(tmp_path: Path) -> None:
    serial = run_comparison(tmp_path / "serial.db", workers=1)
    parallel = run_comparison(tmp_path / "parallel.db", workers=2)
    assert serial.tid == parallel.tid
    assert serial.test.decision == parallel.test.decision == "H1"
    assert serial.test.sets == parallel.test.sets
    assert serial.test.history == parallel.test.history
    assert list(serial.test.counts) == list(parallel.test.counts)
    # Both stored every match of the counted sets; a set already queued when the test decided
    # (two batches are queued per worker) is played and stored too, but not counted. Sets are
    # counted in order, so while a slow set holds the count the other queued places go on to
    # later sets: a parallel run may store a few more sets than it has places in its queue.
    for run_, workers in ((serial, 1), (parallel, 2)):
        assert 6 * run_.test.sets <= run_.matches <= 6 * (run_.test.sets + 4 * workers)
        assert sum(r.matches for r in run_.roles) == 3 * 6 * run_.test.sets

    def records(c: compare.Comparison) -> list[tuple[Any, ...]]:
        return [(r.role, r.bot.name, r.matches, r.wins, r.place_sum, r.points_sum) for r in c.roles]

    assert records(serial) == records(parallel)


SLOW_RANDOM = """
import random, time
class Bot:
    name = "slowpoke"
    def act(self, obs):
        time.sleep(0.02)
        return random.choice(obs["legal"])
"""


@pytest.mark.slow
def test_ctrl_c_keeps_finished_matches_and_the_same_command_resumes(tmp_path: Path) -> None:
    (tmp_path / "slowpoke.py").write_text(SLOW_RANDOM)
    cmd = ["compare", "heuristic", "slowpoke.py", "--p1", "0.75", "--max-sets", "40",
           "--workers", "2", "--db", "arena.db"]  # fmt: skip
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen([arena_script(), *cmd], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 240
    while stored_matches(tmp_path / "arena.db") < 8:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "Interrupted: finished matches are stored" in err
    kept = stored_matches(tmp_path / "arena.db")
    assert kept >= 8
    with Store(tmp_path / "arena.db", create=False) as store:
        t = store.tournament()
        assert (t.kind, t.status) == ("compare", "interrupted")
        before = compare.comparison(store, t.id)
    assert before.test.decision is None

    again = arena(*cmd, "--json", cwd=tmp_path)
    doc = json.loads(ok(again))
    assert f"{kept} matches already stored" in again.stderr
    assert doc["decision"] == "H1" and doc["status"] == "finished"
    with Store(tmp_path / "arena.db", create=False) as store:
        after = compare.comparison(store, doc["tournament"])
        ids = store.finished_match_ids(doc["tournament"])
    # Nothing played twice; the sets counted before the interruption are still the first.
    assert len(ids) == doc["matches"] == after.matches
    assert after.test.history[: before.test.sets] == before.test.history
    played = int(re.search(r"Played (\d+) matches", again.stderr).group(1))  # type: ignore[union-attr]
    assert kept + played == doc["matches"]
