"""Why did my bot fault? Through the real ``arena`` console script and the real sandbox.

``arena submit`` names the fault's kind and the bot's own file and line; ``arena run``'s
summary and ``arena standings`` list each faulty bot's faults in one line each; ``arena
faults`` and ``arena matches`` find them (and a match to replay) without SQL; an ambiguous id
prefix lists the candidates. Submissions and runs go through the real console script; the read
commands after them run in this process (``arena_here``, the same code).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_support import arena, arena_here, ok, one_error_line, write_bot

RAISER = """
class Bot:
    name = "raiser"

    def act(self, obs):
        return obs["dummy"]
"""

# Plays until its second hand, then fails in its own helper function.
LATE = """
class Bot:
    name = "late"

    def act(self, obs):
        if obs["phase"] == "play" and obs["hand_number"] >= 1:
            return self.choose(obs)
        return obs["legal"][-1]

    def choose(self, obs):
        return obs["legal"][len(obs["legal"])]
"""


def test_submit_names_the_fault_and_the_line_of_the_bots_file(tmp_path: Path) -> None:
    raiser = write_bot(tmp_path, "raiser.py", RAISER)
    line = one_error_line(arena("submit", raiser, cwd=tmp_path))
    assert line == (
        "Error: raiser.py failed its sandbox check: crash at decision 1: "
        "raiser.py, line 5: KeyError: 'dummy'"
    )
    assert not (tmp_path / "arena.db").exists()


# Fails once another seat has passed a bid: the load check's opponents always order up, so it
# passes that; the smoke matches' bundled bots pass often.
AFTER_A_PASS = """
class Bot:
    name = "afterpass"

    def act(self, obs):
        if any(b["seat"] != obs["seat"] and b["action"] == "pass" for b in obs["bids"]):
            return obs["no_such_key"]
        return obs["legal"][-1]
"""


def test_submit_refuses_a_bot_that_fails_only_in_a_smoke_match(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "afterpass.py", AFTER_A_PASS)
    line = one_error_line(arena("submit", bot, cwd=tmp_path))
    assert line.startswith("Error: afterpass.py failed its smoke match (seed "), line
    assert line.endswith("afterpass.py, line 6: KeyError: 'no_such_key'"), line
    assert not (tmp_path / "arena.db").exists()


@pytest.mark.slow
def test_run_standings_faults_and_matches_show_faults(tmp_path: Path) -> None:
    late = write_bot(tmp_path, "late.py", LATE)
    args = ["run", late, "heuristic", "random", "--rounds", "1", "--no-site", "--workers", "2"]
    out = ok(arena(*args, cwd=tmp_path))
    expected = "crash: late.py, line 10: IndexError: list index out of range"
    assert "Faults of late: 6 matches forfeited" in out, out  # the whole output when not
    assert f"6 x {expected}" in out, out
    standings = ok(arena_here("standings", cwd=tmp_path))
    assert "Faults of late: 6 matches forfeited" in standings and expected in standings

    listed = json.loads(ok(arena_here("faults", "late", "--json", cwd=tmp_path)))
    assert len(listed) == 6 and {f["bot"] for f in listed} == {"late"}
    for f in listed:
        assert f["kind"] == "crash" and f["decision"] >= 1
        assert f["summary"] == "late.py, line 10: IndexError: list index out of range"
        assert f["round"] == 1 and 1 <= f["seating"] <= 6
        assert "Traceback" in f["message"]
    table = ok(arena_here("faults", "late", cwd=tmp_path))
    assert "IndexError" in table and listed[0]["match"] in table
    assert "No faults of heuristic" in ok(arena_here("faults", "heuristic", cwd=tmp_path))
    full = ok(arena_here("faults", "--match", listed[0]["match"], "--full", cwd=tmp_path))
    assert '  |   File "late.py", line 10, in choose' in full
    unknown = one_error_line(arena_here("faults", "nobody", cwd=tmp_path))
    assert "no bot named 'nobody'" in unknown

    # A match to replay, found without SQL.
    mine = json.loads(ok(arena_here("matches", "--bot", "late", "--json", cwd=tmp_path)))
    assert {m["id"] for m in mine} == {f["match"] for f in listed}
    for m in mine:
        seats = {s["bot"]: s for s in m["seats"]}
        assert seats["late"]["faulted"] and seats["late"]["place"] == 3
        assert sorted(seats) == ["heuristic", "late", "random"]
    replay = ok(arena_here("replay", mine[0]["id"], cwd=tmp_path))
    assert f"Fault: late (seat {_seat(mine[0], 'late')}): crash at decision" in replay
    assert replay.count("\nFinal: ") == 1
    limited = ok(arena_here("matches", "--limit", "2", cwd=tmp_path))
    assert "2 of 6; --limit 0 shows all" in limited


def _seat(match: dict, name: str) -> int:
    return next(s["seat"] for s in match["seats"] if s["bot"] == name)


@pytest.mark.slow
def test_ambiguous_prefixes_list_the_candidates(tmp_path: Path) -> None:
    mine = write_bot(tmp_path, "mine.py", RAISER.replace('obs["dummy"]', "obs['legal'][0]"))
    ok(arena("run", mine, "heuristic", "random", "--rounds", "1", "--no-site", cwd=tmp_path))
    db = tmp_path / "arena.db"
    conn = sqlite3.connect(db, isolation_level=None)
    (mid,) = conn.execute("SELECT id FROM matches ORDER BY id LIMIT 1").fetchone()
    twin = mid[:6] + "ffffff" if mid[6:] != "ffffff" else mid[:6] + "eeeeee"
    # A second match whose id shares the first's first six digits.
    conn.execute("CREATE TEMP TABLE t AS SELECT * FROM matches WHERE id = ?", (mid,))
    conn.execute("UPDATE t SET id = ?", (twin,))
    conn.execute("INSERT INTO matches SELECT * FROM t")
    (tid,) = conn.execute("SELECT id FROM tournaments ORDER BY id LIMIT 1").fetchone()
    other = tid[:4] + ("f" if tid[4] != "f" else "e") + tid[5:]
    conn.execute("CREATE TEMP TABLE u AS SELECT * FROM tournaments WHERE id = ?", (tid,))
    conn.execute("UPDATE u SET id = ?", (other,))
    conn.execute("INSERT INTO tournaments SELECT * FROM u")
    conn.close()
    line = one_error_line(arena_here("replay", mid[:6], cwd=tmp_path))
    assert f"match id '{mid[:6]}' is ambiguous: " in line
    assert mid in line and twin in line
    assert ok(arena_here("replay", mid[:7], cwd=tmp_path)).startswith(f"Match {mid}")
    line = one_error_line(arena_here("standings", "--tournament", tid[:4], cwd=tmp_path))
    assert f"tournament id '{tid[:4]}' is ambiguous: " in line and tid in line and other in line
    assert f"Tournament {tid}" in ok(arena_here("standings", "--tournament", tid[:5], cwd=tmp_path))


ATTACKS = Path(__file__).parent / "attacks"

GREEDY = """
class Bot:
    name = "greedy"

    def act(self, obs):
        return obs["legal"][-1]
"""


@pytest.mark.slow
def test_a_bot_that_sleeps_at_every_decision_runs_out_of_its_match_clock(tmp_path: Path) -> None:
    """tests/attacks/clock_drain.py sleeps 4.6 s at every decision, under the 5 s backstop:
    with a clock of 2 s + 0.1 s a decision it is faulted ``timeout`` at its first decision,
    cut short mid-sleep, in each of its 18 matches; the other bots' matches and seats are
    untouched, and its sleeping is charged to no one else's clock."""
    drain = write_bot(tmp_path, "clock_drain.py", (ATTACKS / "clock_drain.py").read_text())
    greedy = write_bot(tmp_path, "greedy.py", GREEDY)
    args = ["run", drain, greedy, "heuristic", "random", "--rounds", "1", "--no-site"]
    clock = ["--clock-bank", "2", "--clock-increment", "0.1"]
    out = ok(arena(*args, "--workers", "2", *clock, cwd=tmp_path))
    assert "Played 24 matches" in out and "Faults of clock_drain: 18 matches forfeited" in out

    listed = json.loads(ok(arena_here("faults", "--json", cwd=tmp_path)))
    assert len(listed) == 18 and {f["bot"] for f in listed} == {"clock_drain"}
    for f in listed:
        assert f["kind"] == "timeout" and f["decision"] >= 1
        # The first decision it was asked: the clock had given 2 s + n x 0.1 s by then.
        n = f["decision"]
        assert f["message"].startswith("ran out of its match clock ")
        assert f"the clock gave 2 s + {n} x 0.1 s = {2 + n * 0.1:.2f} s" in f["message"]
        assert f["clock_seconds"] >= 2 + n * 0.1 and f["cpu_seconds"] < 1
    full = ok(arena_here("faults", "clock_drain", "--full", "--limit", "1", cwd=tmp_path))
    assert "ran out of its match clock" in full and "think time in the match:" in full
    assert "ran out of its match clock" in ok(arena_here("faults", "--wide", cwd=tmp_path))

    with sqlite3.connect(tmp_path / "arena.db") as db:
        seats = db.execute(
            "SELECT v.name, s.faulted, s.clock_seconds, l.text FROM match_seats s "
            "JOIN bot_versions v ON v.id = s.bot_version_id "
            "LEFT JOIN bot_logs l ON l.match_id = s.match_id AND l.seat = s.seat"
        ).fetchall()
        statuses = db.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall()
    assert statuses == [("finished", 24)]
    drained = [s for s in seats if s[0] == "clock_drain"]
    assert len(drained) == 18 and all(s[1] == 1 for s in drained)
    # Cut short by its clock, mid-sleep: it never woke (no backstop, no answer).
    assert all("RAN" in (s[3] or "") and "WOKE" not in (s[3] or "") for s in drained)
    others = [s for s in seats if s[0] != "clock_drain"]
    assert len(others) == 54 and not any(s[1] for s in others)
    # Its sleeping is on its clock only: each other seat's whole match is far under the bank.
    assert max(s[2] for s in others) < 2.0


ILLEGAL_KEEP = """
class Bot:
    name = "keeper"
    def act(self, obs):
        if obs["phase"] == "keep":
            return ["XX", "XX", "XX", "XX", "XX"]
        bids = [a for a in obs["legal"] if a not in ("pass", "alone")]
        if obs["phase"] in ("bid1", "bid2") and bids:  # make trump whenever it can
            return bids[0]
        return "pass" if "pass" in obs["legal"] else obs["legal"][0]  # never alone
"""


def test_an_illegal_keep_names_a_few_legal_hands_not_all(tmp_path: Path) -> None:
    # A keep's legal actions are every 5-card hand it could keep: the message lists a few
    # and says how many more, in one line of reasonable length.
    line = one_error_line(arena("submit", write_bot(tmp_path, "k.py", ILLEGAL_KEEP), cwd=tmp_path))
    assert "illegal at decision" in line and "in phase 'keep'; legal: [[" in line, line
    legal = line[line.index("legal: ") :]
    assert legal.endswith("more]") and len(legal) < 200, legal
