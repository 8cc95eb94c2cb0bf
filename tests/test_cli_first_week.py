"""The first week of a newcomer (issue 29), through the real ``arena`` console script: one
database, one site; one numbering of decisions; comparisons off the bot pages; one rule for
"which tournament" and "which bot"; every error of a path in one line."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import arena, arena_here, ok, one_error_line, write_bot
from compare_support import store_comparison
from site_support import soup, store_tournament, texts

from arena.store import Store

BOTS = [("heuristic", "A"), ("random", "B"), ("gamma", "C")]

# Prints, and answers an illegal card in every play decision: a fault in every match.
RAISER = """
class Bot:
    name = "raiser"

    def act(self, obs):
        print("raiser sees", obs["phase"])
        if obs["phase"] == "play":
            return "XX"
        return obs["legal"][0]
"""


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A round robin of three bots (1 round: 6 matches each, a fault in each of gamma's),
    then a comparison of heuristic with random, run later: ``(folder, robin, comparison)``."""
    root = tmp_path_factory.mktemp("week")
    db = root / "arena.db"
    robin = store_tournament(db, BOTS, rounds=1, seed=3, fault=("gamma", "boom"))
    comparison = store_comparison(db, "heuristic", "random").tid
    return root, robin, comparison


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real sandboxed ``arena run --db other.db`` of random, heuristic and a bot that
    answers illegal cards, one round, in a folder of its own."""
    root = tmp_path_factory.mktemp("run")
    write_bot(root, "raiser.py", RAISER)
    out = ok(
        arena(
            "run", "random", "heuristic", "raiser.py", "--rounds", "1", "--workers", "2",
            "--db", "other.db", cwd=root,
        )
    )  # fmt: skip
    assert "Site written to other-site/index.html" in out, out
    return root


def test_a_database_gets_its_own_site_by_default(real_run: Path, tmp_path: Path) -> None:
    assert (real_run / "other-site" / "index.html").is_file()
    assert not (real_run / "site").exists() and not (real_run / "arena-site").exists()
    # render and serve take the same default: the site beside the database, named after it
    out = ok(arena("render", "--db", real_run / "other.db", cwd=tmp_path))
    assert f"Site written to {real_run / 'other-site' / 'index.html'}" in out
    assert not (tmp_path / "site").exists()


def test_a_fault_has_one_number_in_the_cli_and_on_the_site(stored: tuple[Path, str, str]) -> None:
    root = stored[0]
    listed = json.loads(ok(arena_here("faults", "gamma", "--json", "--limit", "0", cwd=root)))
    assert listed and {f["decision"] for f in listed} == {4}  # stored 0-based 3
    table = ok(arena_here("faults", "gamma", "--limit", "0", cwd=root, env={"COLUMNS": "80"}))
    assert re.search(r"gamma v1 +crash +4 +boom", table), table  # the decision column
    ok(arena_here("render", cwd=root))
    page = soup(root / "arena-site" / "bots" / "gamma.html")
    numbers = [texts(r.find_all("td"))[3] for r in page.select("table.faults tbody tr")]
    assert len(numbers) == len(listed) and set(numbers) == {"4"}, numbers
    match = soup(root / "arena-site" / "matches" / f"{listed[0]['match']}.html")
    assert "at decision 4:" in " ".join(texts(match.find_all("li")))


def test_comparisons_stay_off_the_bot_pages(stored: tuple[Path, str, str]) -> None:
    root, robin, comparison = stored
    ok(arena_here("render", cwd=root))
    robin_ids = {
        m["id"]
        for m in json.loads(ok(arena_here("matches", "--tournament", robin, "--json", cwd=root)))
    }
    assert len(robin_ids) == 6
    page = soup(root / "arena-site" / "bots" / "heuristic.html")
    assert texts(page.select(".stat-value"))[0] == "6"  # not 6 + the comparison's 18
    shown = {
        re.sub(r"^.*matches/|\.html$", "", a["href"])
        for a in page.select("table.matches a[href*='matches/']")
    }
    assert shown == robin_ids
    assert all(r == "1" for r in texts(page.select("table.matches td.num:nth-of-type(2)")))
    shared = [texts(r.find_all("td"))[1] for r in page.select("table.sortable tbody tr")]
    assert shared and all(n == "6" for n in shared), shared  # shared matches per opponent
    # the comparison still has its own page
    assert (root / "arena-site" / "tournaments" / f"{comparison}.html").is_file()


def test_every_command_takes_the_latest_round_robin(stored: tuple[Path, str, str]) -> None:
    root, robin, comparison = stored
    # the comparison was run last; without an id every command reads the round robin
    standings = json.loads(ok(arena_here("standings", "--json", cwd=root)))
    assert standings["tournament"] == robin
    # (these stored matches were not dealt from the secret: verify names what it checked)
    checked = arena_here("verify", cwd=root)
    assert robin in checked.stderr + checked.stdout and comparison not in checked.stderr
    matches = json.loads(ok(arena_here("matches", "--json", "--limit", "0", cwd=root)))
    assert {m["tournament"] for m in matches} == {robin}
    faults = json.loads(ok(arena_here("faults", "--json", "--limit", "0", cwd=root)))
    assert faults and {f["tournament"] for f in faults} == {robin}
    # a comparison is named by its id
    checked = arena_here("verify", comparison[:8], cwd=root)
    assert comparison in checked.stderr + checked.stdout and robin not in checked.stderr
    named = json.loads(ok(arena_here("matches", "--tournament", comparison, "--json", cwd=root)))
    assert {m["tournament"] for m in named} == {comparison}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["submit", "."], ".: a bot directory needs a manifest (bot.toml or arena.json)"),
        (["submit", "missing.py"], "missing.py: no such bot"),
        (["render", "--out", "arena.db"], "--out arena.db is a file, not a folder"),
        (["serve", "--out", "arena.db"], "--out arena.db is a file, not a folder"),
        (["run", "--out", "arena.db", "random"], "--out arena.db is a file, not a folder"),
        (["standings", "--db", "."], "--db . is a folder, not a file"),
        (["run", "--secret-file", "nope.json"], "--secret-file nope.json: no such file"),
        (["run", "--log", ".", "random"], "--log . is a folder, not a file"),
    ],
)
def test_a_path_of_the_wrong_kind_is_one_error_line(
    stored: tuple[Path, str, str], args: list[str], said: str
) -> None:
    root = stored[0]
    before = (root / "arena.db").read_bytes()
    line = one_error_line(arena_here(*args, cwd=root))
    assert line == f"Error: {said}", line
    assert (root / "arena.db").read_bytes() == before  # nothing lost, nothing written


def test_run_again_says_the_secret_is_revealed(real_run: Path) -> None:
    again = ok(
        arena(
            "run", "random", "heuristic", "raiser.py", "--rounds", "1", "--db", "other.db",
            "--no-site", cwd=real_run,
        )
    )  # fmt: skip
    assert "(6 already stored)" in again
    assert "revealed when it finishes" not in again
    assert "its secret is revealed: arena verify checks every deal" in again


def test_bundled_bots_have_one_name_in_demo_and_play(tmp_path: Path) -> None:
    # a demo with no bots seats the three bundled bots, each once
    demo = ok(arena("demo", "--seed", "7", cwd=tmp_path))
    seats = re.findall(r"^  (\w+) \(seat (\d)\): ", demo, flags=re.MULTILINE)[:3]
    assert sorted(name for name, _ in seats) == ["heuristic", "montecarlo", "random"]
    # `arena play` names the bundled random bot "random", by name or by its file
    for spec in ("random", str(Path(__file__).parents[1] / "bots" / "random_bot.py")):
        played = arena("play", "--seed", "3", spec, "heuristic", cwd=tmp_path)
        assert "random_bot" not in played.stdout
        assert re.search(r"\brandom\b", played.stdout), played.stdout


LONG = "a_bot_with_a_name_as_long_as_allowed_40c"


def _rows(text: str, marker: str) -> list[str]:
    return [line for line in text.splitlines() if marker in line]


def test_every_listing_fits_80_columns(real_run: Path, tmp_path: Path) -> None:
    narrow = {"COLUMNS": "80"}
    for args in (["tournaments"], ["bots"], ["matches", "--limit", "0"], ["faults"]):
        out = ok(arena_here(*args, "--db", "other.db", cwd=real_run, env=narrow))
        assert max(map(len, out.splitlines())) <= 80, out
    listed = json.loads(ok(arena_here("matches", "--json", "--db", "other.db", cwd=real_run)))
    table = ok(arena_here("matches", "--db", "other.db", cwd=real_run, env=narrow))
    for m in listed:  # one line per match, every seat's score, place and bot on it
        (row,) = _rows(table, m["id"])
        for s in m["seats"]:
            mark = "!" if s["faulted"] else ""
            assert f"{s['score']} ({s['place']}){mark} {s['bot']}" in row, row
    (row,) = _rows(
        ok(arena_here("tournaments", "--db", "other.db", cwd=real_run, env=narrow)), "6/6"
    )
    assert "finished" in row and re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", row), row
    bots = ok(arena_here("bots", "--db", "other.db", cwd=real_run, env=narrow))
    assert re.search(r"^raiser +1 +(you|another key) +\d{4}-", bots, flags=re.MULTILINE), bots
    faults = ok(arena_here("faults", "--db", "other.db", cwd=real_run, env=narrow))
    for f in json.loads(ok(arena_here("faults", "--json", "--db", "other.db", cwd=real_run))):
        (row,) = _rows(faults, f["match"])
        assert re.search(rf"raiser v1 +illegal +{f['decision']} +answered", row), row
    # --wide shows every column, whole
    wide = ok(arena_here("tournaments", "--wide", "--db", "other.db", cwd=real_run))
    assert "commitment" in wide and "seed" in wide
    standings = ok(arena_here("standings", "--db", "other.db", cwd=real_run, env=narrow))
    # the tables' rows (its lines of text stay whole, one line each, to read or grep)
    rows = [ln for ln in standings.splitlines() if re.match(r"(\d+|heuristic|random|raiser) ", ln)]
    assert len(rows) == 3 * 3, standings  # standings, placed above, duplicate score
    assert max(map(len, rows)) <= 80, standings


def test_standings_of_six_bots_fit_80_columns(tmp_path: Path) -> None:
    # The placed-above matrix of six bots with intervals would be 87 columns: its cells are
    # cut to the rates (the intervals are in --json), never in the middle of a number.
    names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    store_tournament(tmp_path / "arena.db", [(n, None) for n in names], rounds=1)
    out = ok(arena_here("standings", cwd=tmp_path, env={"COLUMNS": "80"}))
    lines = ("Tournament ", "No clone", "Seat bias verdict", "No non-transitive")
    assert max(len(ln) for ln in out.splitlines() if not ln.startswith(lines)) <= 80, out
    head = out.index("Placed above (%)")
    matrix = [ln for ln in out[head:].splitlines() if re.match(r"\d ", ln)][:6]
    assert "95% intervals: --json" in out[head:]
    for row in matrix:
        cells = row.split()[2:]
        assert len(cells) == 6 and all(re.fullmatch(r"\d+|-", c) for c in cells), row
    (header,) = [ln for ln in out.splitlines() if ln.startswith("position ")]
    assert header.split()[-1] == "n", header


def test_a_long_name_is_cut_not_wrapped(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    store_tournament(db, [(LONG, "L" * 80), ("beta", None), ("gamma", None)], rounds=1)
    narrow = {"COLUMNS": "80"}
    for args in (["bots"], ["tournaments"], ["matches"], ["standings"]):
        out = ok(arena_here(*args, cwd=tmp_path, env=narrow))
        assert "…" in out, out  # cut, with an ellipsis
        lines = ("Tournament ", "No clone", "Seat bias verdict", "No non-transitive")
        table = [ln for ln in out.splitlines() if not ln.startswith(lines)]
        assert max(map(len, table)) <= 80, out
    matches = ok(arena_here("matches", "--json", cwd=tmp_path))
    table = ok(arena_here("matches", cwd=tmp_path, env=narrow))
    for m in json.loads(matches):
        (row,) = _rows(table, m["id"])
        first = m["seats"][0]
        assert f"{first['score']} ({first['place']}) " in row  # the score and place stay
    wide = ok(arena_here("bots", "--wide", cwd=tmp_path, env={"COLUMNS": "250"}))
    assert LONG in wide and "L" * 80 in wide


def test_a_fault_digest_groups_by_kind_and_place(real_run: Path) -> None:
    out = ok(arena_here("standings", "--db", "other.db", cwd=real_run))
    digest = out[out.index("Faults of raiser") :].splitlines()
    assert digest[0] == "Faults of raiser: 6 matches forfeited"
    assert digest[1].startswith("  6 x illegal: answered \"XX\" in phase 'play'"), digest
    assert "other kind" not in out and "other place" not in out


def test_arena_help_loads_no_engine_sandbox_or_statistics(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from arena.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('scipy', 'numpy', 'rich', 'sqlite_utils', 'jinja2', 'arena.engine',\n"
        "         'arena.sandbox', 'arena.store', 'arena.tournaments.compare',\n"
        "         'arena.tournaments.tournament')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert "Usage: " in out.stdout and out.stdout.rstrip().endswith("[]"), out.stdout


def test_ladder_help_shows_the_library_defaults() -> None:
    from arena.cli import ladder as cli_ladder
    from arena.ladder.epochs import DEFAULT_EPOCH_SETS
    from arena.ladder.run import DEFAULT_LOOKAHEAD

    assert cli_ladder.EPOCH_SETS_SHOWN == DEFAULT_EPOCH_SETS
    assert cli_ladder.LOOKAHEAD_SHOWN == DEFAULT_LOOKAHEAD


def test_compare_help_shows_the_library_defaults() -> None:
    from arena import api
    from arena.cli import compare as cli_compare
    from arena.tournaments import compare

    assert cli_compare.THIRD_SHOWN == compare.DEFAULT_THIRD
    assert api._THIRD == compare.DEFAULT_THIRD
    assert cli_compare.MAX_SETS_SHOWN == compare.DEFAULT_MAX_SETS


def test_the_reports_are_stored_with_the_standings(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid = store_tournament(db, BOTS, rounds=2, seed=9)
    first = json.loads(ok(arena_here("standings", "--json", cwd=tmp_path)))
    with Store(db, create=False) as store:  # a read computes them and writes nothing
        assert store.read_reports(tid) is None
    # recomputed and stored (--refit), the same documents
    assert json.loads(ok(arena_here("standings", "--json", "--refit", cwd=tmp_path))) == first
    with Store(db, create=False) as store:
        reports = store.read_reports(tid)
    assert reports is not None
    matches, body = reports.matches, reports.body
    assert matches == 12 and {"duplicate", "clones", "kingmaking"} <= set(body)
    # read back, the same again
    assert json.loads(ok(arena_here("standings", "--json", cwd=tmp_path))) == first
    collusion = json.loads(ok(arena_here("standings", "--collusion", "--json", cwd=tmp_path)))
    assert json.loads(ok(arena_here("standings", "--json", "--refit", cwd=tmp_path))) == first
    assert (
        json.loads(ok(arena_here("standings", "--collusion", "--json", cwd=tmp_path))) == collusion
    )
    # stored reports of other matches are never shown: more matches, reports made again
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE reports SET body = '{\"duplicate\": 1}' WHERE tournament_id = ?", (tid,)
        )
        conn.execute("UPDATE reports SET matches = 11 WHERE tournament_id = ?", (tid,))
    assert json.loads(ok(arena_here("standings", "--json", cwd=tmp_path))) == first


def test_a_report_reads_back_as_it_was_made(tmp_path: Path) -> None:
    from arena.views.reports import Reports, decode, encode, tournament_reports

    db = tmp_path / "arena.db"
    tid = store_tournament(db, BOTS, rounds=2, seed=9)
    with Store(db) as store:
        made = tournament_reports(store, tid)
        assert made.scores and made.bias.positions
        again = decode(Reports, json.loads(json.dumps(encode(made))))
        assert again == made
        assert tournament_reports(store, tid) == made  # this time read from the database


def test_what_an_unrated_bot_is_told() -> None:
    from arena.sandbox.faults import describe
    from arena.stats import BotStanding, rating_notes, rating_text

    # after one round the results are often one strict order: nobody rated, and it says so
    order = [BotStanding(b, n, matches=6, wins=w) for b, n, w in ((1, "h", 6), (2, "r", 0))]
    note = rating_notes(order)
    assert note.startswith("- : no rating yet:") and "decisive" not in note
    assert "ranked by mean place" in note
    # beside rated bots, the old reading stands
    mixed = [BotStanding(1, "a", matches=6, rating=1500.0), BotStanding(2, "b", matches=6)]
    assert rating_notes(mixed).startswith("- : no rating (no decisive result")
    # a bound without its value is no rating: never "<= ?"
    assert rating_text(None, None, None, "upper") == "-"
    assert rating_text(None, None, 1180.4, "upper") == "<= 1180"
    bounded = [BotStanding(1, "a", matches=6, bound="upper")]
    assert rating_notes(bounded).startswith("- : ") and "<=" not in rating_notes(bounded)
    # a fault before the first decision reads as English
    assert describe({"kind": "load", "message": "TypeError: x", "decision": None}) == (
        "failed to load: TypeError: x"
    )
    assert describe({"kind": "timeout", "message": "slow", "decision": None}) == (
        "timeout while loading: slow"
    )
    assert describe({"kind": "crash", "message": "boom", "decision": 2}).startswith(
        "crash at decision 3: "
    )


PRINTER = """
class Bot:
    name = "printer"

    def __init__(self):
        print("hello from init")

    def act(self, obs):
        print("\\x1b[31mthinking\\x1b[0m about", obs["phase"])
        return obs["legal"][0]
"""


def test_a_bots_output_is_shown_in_the_terminal(real_run: Path, tmp_path: Path) -> None:
    listed = json.loads(ok(arena_here("matches", "--json", "--db", "other.db", cwd=real_run)))
    match = listed[0]
    seat = next(s["seat"] for s in match["seats"] if s["bot"] == "raiser")
    out = ok(arena_here("logs", match["id"][:8], "--db", "other.db", cwd=real_run))
    assert f"raiser (seat {seat}) printed " in out
    assert "  | raiser sees play" in out
    for s in match["seats"]:
        if s["bot"] != "raiser":
            assert f"{s['bot']} (seat {s['seat']}) printed 0 lines." in out
    # the demo prints what each bot printed after the match, escapes stripped
    write_bot(tmp_path, "printer.py", PRINTER)
    demo = ok(arena("demo", "printer.py", "--seed", "2", cwd=tmp_path))
    after = demo[demo.index("printer (seat 0) printed ") :]
    assert "  | hello from init" in after and "  | [31mthinking[0m about play" in after
    assert "\x1b" not in demo and "heuristic (seat 1) printed 0 lines." in after


def test_a_demo_bot_that_fails_is_one_error_line(tmp_path: Path) -> None:
    write_bot(tmp_path, "raiser.py", RAISER)
    write_bot(
        tmp_path, "crash.py", "class Bot:\n    def act(self, obs):\n        return obs['x']\n"
    )
    line = one_error_line(arena("demo", "raiser.py", "--seed", "2", cwd=tmp_path))
    assert line.startswith("Error: raiser (seat 0) answered 'XX' in phase 'play'; legal: [")
    line = one_error_line(arena("demo", "crash.py", "--seed", "2", cwd=tmp_path))
    assert line == "Error: crash (seat 0) raised crash.py, line 3: KeyError: 'x'"


def test_play_explains_says_and_understands(tmp_path: Path) -> None:
    lines = "".join("1\n" if i % 2 == 0 else "1 2 3 4 5\n" for i in range(400))
    played = subprocess.run(
        [str(Path(sys.executable).with_name("arena")), "play", "--seed", "3", "random",
         "heuristic"],
        input="pass\n" + lines, capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    out = played.stdout
    assert played.returncode == 0, played.stderr
    assert "Your choice (1-1)" not in out and "Only one choice: " in out  # forced: said
    # a defender is asked with what it means (seed 3: heuristic makes trump in hand 1)
    assert "Defend alone? (your fellow defender sits out" in out
    # typed by name: "pass" answered the first question without a hint
    first = out.index("Your choice (1-2): pass")
    assert "Type a number" not in out[first : first + 80]
    if "Keep which 5" in out:  # the keep list marks trump, the left bower included
        assert "(* trump: " in out and "the left bower" in out


NEWBIE = """
class Bot:
    name = "newbie"

    def act(self, obs):
        return obs["legal"][-1]
"""


def test_play_and_demo_take_your_submitted_bot_by_name(tmp_path: Path) -> None:
    mine = {"ARENA_OWNER_KEY": "mine-9f2c7a1e5b3d80464e81b0c3d7a95f26"}
    write_bot(tmp_path, "newbie_file.py", NEWBIE)
    ok(arena("submit", "newbie_file.py", cwd=tmp_path, env=mine))
    (tmp_path / "newbie_file.py").unlink()  # by name, from the database
    played = subprocess.run(
        [str(Path(sys.executable).with_name("arena")), "play", "--seed", "4", "random", "newbie"],
        input="1\n1 2 3 4 5\n" * 200, capture_output=True, text=True, cwd=tmp_path,
        env={**os.environ, **mine}, timeout=300,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "Scores: You " in played.stdout and "newbie" in played.stdout
    demo = ok(arena("demo", "newbie", "--seed", "4", cwd=tmp_path, env=mine))
    assert "newbie (seat 0)" in demo
    # another author's code would run unsandboxed here: refused, in one line
    theirs = {"ARENA_OWNER_KEY": "theirs-1d6a03f9c2b8e7546b1f9a2d0c4e8735"}
    line = one_error_line(arena("demo", "newbie", cwd=tmp_path, env=theirs))
    assert line.startswith("Error: newbie is another author's bot: arena play and arena demo")
    line = one_error_line(arena("demo", "nobody", cwd=tmp_path, env=mine))
    assert "no bundled bot 'nobody'" in line and "no submitted bot of that name" in line
