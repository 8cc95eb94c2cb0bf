"""The tournament commands through click's runner (submit, run, standings, bots, replay).

Everything is real: bot files on disk, the sandbox, forked workers and a SQLite file.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_support import assert_competition_ranks
from click.testing import CliRunner, Result

from arena.cli import main
from arena.store import Store

LAST = """
class Bot:
    name = "last"
    author = "tests"
    def act(self, obs):
        return obs["legal"][-1]
"""
RND = """
import random
class Bot:
    def act(self, obs):
        return random.choice(obs["legal"])
"""
MIDDLE = """
class Bot:
    def act(self, obs):
        legal = obs["legal"]
        return legal[len(legal) // 2]
"""
CRASHY = """
class Bot:
    def act(self, obs):
        raise ValueError("I never work")
"""


def bot(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def one_error_line(result: Result, code: int = 1) -> str:
    """The result failed with ``code`` and said so in exactly one line, without a traceback."""
    assert result.exit_code == code, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in result.output
    if code == 1:
        assert len(lines) == 1, lines
        assert lines[0].startswith("Error: ")
    return "\n".join(lines)


@pytest.fixture
def three(tmp_path: Path) -> list[Path]:
    return [
        bot(tmp_path, "last.py", LAST),
        bot(tmp_path, "rnd.py", RND),
        bot(tmp_path, "middle.py", MIDDLE),
    ]


@pytest.mark.parametrize("command", ["submit", "run", "standings", "bots", "replay", "tournaments"])
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "Example:" in result.output and "--db" in result.output


def test_submit_stores_a_new_version_only_when_the_content_changes(
    tmp_path: Path, three: list[Path]
) -> None:
    db = tmp_path / "a.db"
    first = invoke("submit", three[0], "--db", db)
    assert first.exit_code == 0, first.output
    assert "Stored last version 1" in first.output
    again = invoke("submit", three[0], "--db", db)
    assert again.exit_code == 0 and "same content as version 1; nothing stored" in again.output
    three[0].write_text(LAST + "\n# tweaked\n", encoding="utf-8")
    changed = invoke("submit", three[0], "--db", db, "--name", "last")
    assert changed.exit_code == 0 and "Stored last version 2" in changed.output
    renamed = invoke("submit", three[1], "--db", db, "--name", "chaos")
    assert "Stored chaos version 1" in renamed.output
    listing = json.loads(invoke("bots", "--db", db, "--json").output)
    assert [(r["name"], r["version"]) for r in listing] == [
        ("chaos", 1),
        ("last", 1),
        ("last", 2),
    ]
    assert listing[1]["author"] == "tests"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(CRASHY, "crash", id="raises-in-act"),
        pytest.param("class Bot:\n    def act(self, obs)\n", "syntax error on line 2", id="syntax"),
        pytest.param("def act(obs):\n    return obs['legal'][0]\n", "no class Bot", id="no-bot"),
        pytest.param(
            "class Bot:\n    def __init__(self):\n        raise RuntimeError('no')\n"
            "    def act(self, obs):\n        return obs['legal'][0]\n",
            "load",
            id="raises-on-load",
        ),
    ],
)
def test_submit_refuses_a_bad_bot_and_stores_nothing(
    tmp_path: Path, source: str, expected: str
) -> None:
    db = tmp_path / "a.db"
    path = bot(tmp_path, "bad.py", source)
    line = one_error_line(invoke("submit", path, "--db", db))
    assert "bad.py" in line and expected in line
    assert not db.exists()  # nothing stored, not even an empty database


def test_run_standings_bots_and_replay(tmp_path: Path, three: list[Path]) -> None:
    db = tmp_path / "t.db"
    ran = invoke(
        "run", *three, "--db", db, "--rounds", "1", "--workers", "2", "--out", tmp_path / "site"
    )
    assert ran.exit_code == 0, ran.output
    assert "6 matches" in ran.output and "Played 6 matches" in ran.output
    assert "Standings" in ran.output
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "t.log").is_file()

    doc = json.loads(invoke("standings", "--db", db, "--json").output)
    rows = doc["bots"]
    assert doc["counts"] == {"bots": 3, "matches_played": 6, "matches_total": 6, "faults": 0}
    assert doc["tournament"] and doc["status"] == "finished"
    assert sorted(r["name"] for r in rows) == ["last", "middle", "rnd"]
    assert_competition_ranks([r["rank"] for r in rows])
    assert sum(r["wins"] for r in rows) >= 6  # shared wins can only add
    for r in rows:
        assert r["matches"] == 6 and r["faults"] == 0
        assert 1 <= r["mean_place"] <= 3
        # One set of three bots and one round: nothing to resample, so no interval.
        assert r["low"] is None and r["high"] is None
    # Best first. A bot that always placed first or never above a rated bot has a bound, not a
    # rating: it heads or ends the table (which outcomes happen depends on the fresh secret).
    bounds = [r["bound"] for r in rows if r["rating"] is None]
    order = sorted(
        rows,
        key=lambda r: (
            r["bound"] != "lower",
            -(r["rating"] or 0.0),
            r["bound"] == "upper",
        ),
    )
    assert [r["name"] for r in rows] == [r["name"] for r in order]
    assert set(bounds) <= {"upper", "lower"}, bounds

    (t,) = json.loads(invoke("tournaments", "--db", db, "--json").output)
    assert (t["status"], t["done"], t["total_matches"], t["rounds"]) == ("finished", 6, 6, 1)
    assert t["id"] in invoke("tournaments", "--db", db).output
    text = invoke("standings", "--db", db)
    assert text.exit_code == 0 and "Placed above" in text.output

    # A rerun of the same tournament plays nothing.
    again = invoke("run", *three, "--db", db, "--rounds", "1", "--no-site")
    assert again.exit_code == 0 and "Played 0 matches" in again.output
    # Submitted names work as well as files.
    by_name = invoke("run", "last", "rnd", "middle", "--db", db, "--rounds", "1", "--no-site")
    assert by_name.exit_code == 0 and "Played 0 matches" in by_name.output

    with Store(db, create=False) as store:
        match_id = store.match_rows()[0].id
    replay = invoke("replay", match_id[:6], "--db", db)
    assert replay.exit_code == 0, replay.output
    assert replay.output.startswith(f"Match {match_id}")
    assert "Hand 1:" in replay.output and "Final:" in replay.output
    assert "no match" in one_error_line(invoke("replay", "zzzz", "--db", db))


def test_run_records_a_faulty_bot_instead_of_stopping(tmp_path: Path, three: list[Path]) -> None:
    db = tmp_path / "f.db"
    crashy = bot(tmp_path, "crashy.py", CRASHY)
    ran = invoke("run", three[0], three[1], crashy, "--db", db, "--rounds", "1", "--no-site")
    assert ran.exit_code == 0, ran.output
    doc = json.loads(invoke("standings", "--db", db, "--json").output)
    rows = {r["name"]: r for r in doc["bots"]}
    assert rows["crashy"]["faults"] == 6 and rows["crashy"]["mean_place"] == 3
    assert rows["crashy"]["rank"] == 3


@pytest.mark.parametrize(
    ("args", "code", "expected"),
    [
        pytest.param(["--rounds", "0"], 2, "--rounds", id="zero-rounds"),
        pytest.param(["--rounds", "-2"], 2, "--rounds", id="negative-rounds"),
        pytest.param(["--rounds", "x"], 2, "--rounds", id="rounds-not-a-number"),
        pytest.param(["--workers", "0"], 2, "--workers", id="zero-workers"),
        pytest.param(["--decision-seconds", "0"], 2, "--decision-seconds", id="zero-limit"),
        pytest.param(["--match-cpu-seconds", "-1"], 2, "--match-cpu-seconds", id="neg-cpu"),
        pytest.param(["--clock-bank", "0"], 2, "--clock-bank", id="zero-bank"),
        pytest.param(["--clock-bank", "nan"], 2, "--clock-bank", id="nan-bank"),
        pytest.param(["--clock-increment", "-0.5"], 2, "--clock-increment", id="neg-increment"),
    ],
)
def test_run_usage_errors(
    tmp_path: Path, three: list[Path], args: list[str], code: int, expected: str
) -> None:
    db = tmp_path / "u.db"
    assert expected in one_error_line(invoke("run", *three, "--db", db, *args), code)
    assert not db.exists()


def test_run_bad_inputs(tmp_path: Path, three: list[Path]) -> None:
    db = tmp_path / "b.db"
    line = one_error_line(invoke("run", *three[:2], "--db", db))
    assert "at least three bots" in line
    assert "at least three bots (have none)" in one_error_line(invoke("run", "--db", db))
    # Refused fields register nothing, and leave no empty database behind.
    assert not db.exists()
    line = one_error_line(invoke("run", *three[:2], "nobody", "--db", db))
    assert "unknown bot 'nobody'" in line
    twin = bot(tmp_path / "..", "twin.py", LAST)  # another file whose Bot.name is "last"
    assert "two bots are named 'last'" in one_error_line(invoke("run", *three, twin, "--db", db))
    assert "no database" in one_error_line(invoke("standings", "--db", db))
    assert "Stored" in invoke("submit", three[0], "--db", db).output
    assert "no tournament" in one_error_line(invoke("standings", "--db", db))
    assert invoke("run", *three, "--db", db, "--rounds", "1", "--no-site").exit_code == 0
    assert "is given twice" in one_error_line(invoke("run", *three, "last", "--db", db))
    assert "no database" in one_error_line(invoke("standings", "--db", tmp_path / "none.db"))
    assert not (tmp_path / "none.db").exists()


def test_a_file_that_is_not_sqlite_is_refused_and_kept(tmp_path: Path, three: list[Path]) -> None:
    db = tmp_path / "notes.txt"
    db.write_text("my notes\n" * 100, encoding="utf-8")
    before = db.read_bytes()
    for args in (["run", *three], ["submit", three[0]], ["standings"], ["bots"]):
        assert "not a SQLite database" in one_error_line(invoke(*args, "--db", db))
    assert db.read_bytes() == before


def test_a_locked_database_is_refused(tmp_path: Path, three: list[Path]) -> None:
    db = tmp_path / "l.db"
    assert invoke("bots", "--db", db).exit_code == 1  # missing: refused, not created
    invoke("submit", three[0], "--db", db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert "locked" in one_error_line(invoke("run", *three, "--db", db, "--rounds", "1"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with Store(db, create=False) as store:
        assert len(store.bot_listing()) == 1


def test_standings_json_from_a_real_process(tmp_path: Path, three: list[Path]) -> None:
    db = tmp_path / "p.db"
    cmd = [sys.executable, "-m", "arena.cli"]
    subprocess.run(
        [*cmd, "run", *map(str, three), "--db", str(db), "--rounds", "1", "--no-site"],
        check=True,
        capture_output=True,
    )
    out = subprocess.run(
        [*cmd, "standings", "--json", "--db", str(db)], check=True, capture_output=True, text=True
    )
    rows = json.loads(out.stdout)["bots"]
    assert {r["name"] for r in rows} == {"last", "rnd", "middle"}
    bad = subprocess.run([*cmd, "replay", "nope", "--db", str(db)], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_no_sandbox_is_one_line_unless_unsafe_is_asked_for(
    tmp_path: Path, three: list[Path]
) -> None:
    db = tmp_path / "s.db"
    env = {"ARENA_SANDBOX_DISABLE": "bwrap,landlock,seccomp,uid"}
    args = ["run", *map(str, three), "--db", str(db), "--rounds", "1", "--no-site"]
    refused = CliRunner().invoke(main, args, env=env)
    assert "cannot sandbox bots" in one_error_line(refused)
    with Store(db, create=False) as store:
        assert store.match_rows() == []
    trusted = CliRunner().invoke(main, [*args, "--unsafe-no-sandbox"], env=env)
    assert trusted.exit_code == 0, trusted.output
    assert "Played 6 matches" in trusted.output


def test_other_limits_make_another_tournament(tmp_path: Path, three: list[Path]) -> None:
    db = tmp_path / "lim.db"
    base = ["run", *map(str, three), "--db", str(db), "--rounds", "1", "--no-site"]
    assert "Played 6 matches" in invoke(*base).output
    assert "Played 0 matches" in invoke(*base, "--decision-seconds", "1").output  # the default
    longer = invoke(*base, "--decision-seconds", "2.5", "--match-cpu-seconds", "30")
    assert longer.exit_code == 0 and "Played 6 matches" in longer.output
    with Store(db, create=False) as store:
        rows = store.tournaments()
    limits = sorted(json.loads(r.tournament.limits)["decision_seconds"] for r in rows)
    assert limits == [1.0, 2.5]
    # The match clock is recorded too, derived from the CPU limits unless given: another
    # clock, another tournament; the same clock again resumes it.
    clocks = sorted(
        (lim["clock_bank_seconds"], lim["clock_increment_seconds"])
        for lim in (json.loads(r.tournament.limits) for r in rows)
    )
    assert clocks == [(30.0, 0.25), (45.0, 0.625)]
    clock = ["--clock-bank", "40", "--clock-increment", "0.5"]
    assert "Played 6 matches" in invoke(*base, *clock).output
    assert "Played 0 matches" in invoke(*base, *clock).output
    with Store(db, create=False) as store:
        assert len(store.tournaments()) == 3
