"""A newcomer's first day through the real ``arena`` console script and ``make``.

The bundled bots by name everywhere (run, demo, the strength bench, ``bundled()``), ``arena
demo`` with one file, one 1-based numbering of rounds and seatings, the ``standings --json``
object, and a Makefile that makes its own venv with ``python3``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import REPO, arena, assert_competition_ranks, ok, write_bot

from arena.sandbox.botfile import bundled, bundled_names

MINE = """
class Bot:
    name = "mine"
    author = "a newcomer"
    def act(self, obs):
        return obs["legal"][-1]
"""


def test_bundled_by_tournament_name_and_by_file_stem() -> None:
    assert bundled("random") == bundled("random_bot") == REPO / "bots" / "random_bot.py"
    assert bundled("heuristic").name == "heuristic.py"
    assert {"random", "heuristic", "montecarlo", "random_bot"} <= set(bundled_names())


@pytest.mark.slow
def test_run_my_bot_against_bundled_names_on_a_fresh_database(tmp_path: Path) -> None:
    mine = write_bot(tmp_path, "mine.py", MINE)
    args = ["run", mine, "heuristic", "random", "--rounds", "1", "--no-site", "--workers", "2"]
    out = ok(arena(*args, cwd=tmp_path))
    assert "Tournament" in out and "Played 6 matches" in out
    bots = json.loads(ok(arena("bots", "--json", cwd=tmp_path)))
    owners = {b["name"]: b["owner"] for b in bots}
    assert owners == {"mine": "you", "heuristic": "bundled", "random": "bundled"}
    sources = {b["name"]: b["sha256"] for b in bots}
    assert sources["heuristic"] == _sha(bundled("heuristic"))

    # The standings object (docs/tournaments.md).
    doc = json.loads(ok(arena("standings", "--json", cwd=tmp_path)))
    assert set(doc) >= {"tournament", "status", "seed", "rounds", "counts", "bots"}
    assert doc["counts"] == {"bots": 3, "matches_played": 6, "matches_total": 6, "faults": 0}
    assert doc["status"] == "finished" and len(doc["tournament"]) == 16
    assert_competition_ranks([b["rank"] for b in doc["bots"]])
    for b in doc["bots"]:
        assert {"name", "matches", "wins", "mean_place", "faults", "rating"} <= set(b)

    # One numbering: rounds and seatings from 1, in the matches list and the replay.
    matches = json.loads(ok(arena("matches", "--json", cwd=tmp_path)))
    assert sorted(m["seating"] for m in matches) == [1, 2, 3, 4, 5, 6]
    assert {m["round"] for m in matches} == {1}
    table = ok(arena("matches", "--bot", "mine", cwd=tmp_path))
    assert "6/6" in table and "0/6" not in table
    first = min(matches, key=lambda m: m["seating"])
    replay = ok(arena("replay", first["id"][:8], cwd=tmp_path))
    assert replay.startswith(f"Match {first['id']} of tournament {doc['tournament']}: round 1, ")
    assert "seating 1 of 6" in replay and "round 0" not in replay and "Hand 1:" in replay
    assert "Hand 0" not in replay

    # By file stem too, and a rerun with the bundled file itself plays nothing new.
    again = ok(
        arena("run", mine, "heuristic", "random_bot", "--rounds", "1", "--no-site", cwd=tmp_path)
    )
    assert "Played 0 matches" in again
    files = ["run", mine, bundled("heuristic"), bundled("random"), "--rounds", "1", "--no-site"]
    assert "Played 0 matches" in ok(arena(*files, cwd=tmp_path))


def _sha(path: Path) -> str:
    from arena.store.bots import one_file

    return one_file("python", path.read_text(encoding="utf-8"), path.name).sha256


def test_demo_fills_the_empty_seats_with_bundled_bots(tmp_path: Path) -> None:
    mine = write_bot(tmp_path, "mine.py", MINE)
    out = ok(arena("demo", mine, "--seed", "3", cwd=tmp_path))
    assert "mine (seat 0)" in out and "heuristic (seat 1)" in out and "random (seat 2)" in out
    assert re.search(r"^Final: mine \(seat 0\) \d+ \(place \d\)", out, re.M)
    out = ok(arena("demo", "heuristic", "--seed", "3", cwd=tmp_path))
    assert "heuristic (seat 0)" in out and "random (seat 1)" in out
    assert "montecarlo (seat 2)" in out
    alone = ok(arena("demo", "--seed", "3", cwd=tmp_path))  # none: the three bundled bots
    for seated in ("heuristic (seat 0)", "random (seat 1)", "montecarlo (seat 2)"):
        assert seated in alone
    four = arena("demo", mine, mine, mine, mine, cwd=tmp_path)
    assert four.returncode == 1 and "three seats" in four.stderr


@pytest.mark.slow
def test_the_strength_bench_takes_bundled_names(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "strength.py"), "random", "heuristic", "random"]
        + ["--seeds", "2", "--workers", "1", "--boot", "50"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "bots by seat index: ['random', 'heuristic', 'random']" in result.stdout
    assert "heuristic over random" in result.stdout or "random over heuristic" in result.stdout


def _make(tmp_path: Path, *args: str, venv: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "MAKEFLAGS")}
    if venv is not None:
        env["VIRTUAL_ENV"] = venv
    result = subprocess.run(
        ["make", "-n", *args], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_make_uses_its_own_venv_and_python3(tmp_path: Path) -> None:
    shutil.copy(REPO / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    plan = _make(tmp_path, "tournament")
    assert "python3 -m venv .venv" in plan
    assert ".venv/bin/python -m pip install -q -e ." in plan
    assert ".venv/bin/arena run random heuristic montecarlo --rounds 20\n" in plan
    assert not re.search(r"(^|\s)python(\s|$)", plan)  # never a bare `python`
    check = _make(tmp_path, "check")
    assert ".venv/bin/python -m pip install -q -e '.[test]'" in check
    assert ".venv/bin/python -m pytest -q" in check
    # Inside a virtualenv, make uses it and creates none.
    fake = tmp_path / "env"
    (fake / "bin").mkdir(parents=True)
    (fake / "bin" / "python").touch()
    inside = _make(tmp_path, "check", venv=str(fake))
    assert "-m venv" not in inside and f"{fake}/bin/python -m pytest -q" in inside
