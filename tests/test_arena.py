"""``from arena import Arena``: the library under every command, on real worker processes and a
real SQLite file (or ``:memory:``). It prints nothing, reports events, raises errors a caller
can catch, and gives the same standings as before it was built."""

from __future__ import annotations

import importlib
import json
import random
import re
import sqlite3
import sys
from pathlib import Path

import pytest
from cli_support import arena as arena_cli
from cli_support import ok, write_bot

from arena import Arena, LadderSettings, RunSettings, Standing
from arena.errors import (
    AlreadyRunning,
    ArenaError,
    BadBotFile,
    DatabaseBusy,
    DatabaseDamaged,
    NotFound,
)
from arena.events import FaultRecorded, Joined, MatchesStored, Planned, SetDone, Stopped
from arena.store.runlock import RunLock

GOLDEN = Path(__file__).resolve().parent / "golden" / "standings"


class Greedy:
    """A bot written in the test's own file: the lowest legal action."""

    name = "greedy"

    def act(self, obs: dict) -> object:
        return min(obs["legal"], key=str)


class Coin:
    """A bot that uses a module-level import (``random``) and its seeded generator."""

    def act(self, obs: dict) -> object:
        return random.choice(obs["legal"])


@pytest.mark.slow
def test_standings_json_unchanged_for_a_fixed_seed_and_secret(tmp_path: Path) -> None:
    # Recorded from `arena run random heuristic first.py --seed 5 --rounds 4 --secret-file
    # secret.json` (first recorded before Arena existed and unchanged by it; recorded again
    # when bots became artifacts, whose hash seeds the deals, and 1500 became the plain mean):
    # the same seed and secret give the same rows, with 1 worker or 2.
    db = tmp_path / "same.db"
    settings = RunSettings(rounds=4, secret_file=GOLDEN / "secret.json")
    with Arena(db, workers=2, unsafe=True) as arena:
        done = arena.run(["random", "heuristic", GOLDEN / "first.py"], seed=5, settings=settings)
    assert done.completed
    out = ok(arena_cli("standings", "--json", "--db", db, cwd=tmp_path))
    assert json.loads(out) == json.loads((GOLDEN / "seed5.json").read_text())
    assert [(s.name, s.rank) for s in done.standings] == [
        (b["name"], b["rank"]) for b in json.loads(out)["bots"]
    ]
    # A read writes nothing: with the stored reports gone, `arena standings` computes them,
    # shows the same, and stores nothing.
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DELETE FROM reports")
    before = conn.execute("PRAGMA data_version").fetchone()
    again = ok(arena_cli("standings", "--json", "--db", db, cwd=tmp_path))
    assert json.loads(again) == json.loads(out)
    assert conn.execute("SELECT count(*) FROM reports").fetchone() == (0,)
    assert conn.execute("PRAGMA data_version").fetchone() == before  # nobody else wrote
    conn.close()


@pytest.mark.slow
def test_a_tournament_and_a_ladder_print_nothing_and_report_events(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    seen: list[object] = []
    with Arena(tmp_path / "quiet.db", workers=2, unsafe=True, on_event=seen.append) as arena:
        done = arena.run(["random", "heuristic", Greedy], rounds=1, seed=3)
        rows = arena.standings()
        ladder = arena.ladder(["random", "heuristic", "montecarlo"], max_sets=2)
    assert capfd.readouterr() == ("", "")  # nothing on stdout or stderr, not even a bar
    assert done.completed and done.result.played == 6
    assert all(isinstance(r, Standing) for r in [*rows, *ladder.status.standings])
    assert {r.name for r in rows} == {"random", "heuristic", "greedy"}
    kinds = [type(e) for e in seen]
    assert kinds[0] is Planned and kinds.count(Stopped) == 2
    stored = [e for e in seen if isinstance(e, MatchesStored) and e.tid == done.tid]
    assert stored[-1].done == 6 and sum(e.added for e in stored) == 6
    sets = [e for e in seen if isinstance(e, SetDone)]
    assert sum(len(e.steps) for e in sets) == 2 and ladder.status.sets == 2
    # A file (or class) played in a tournament is registered: it joins the ladder's field too.
    joined = {e.name for e in seen if isinstance(e, Joined)}
    assert joined == {"random", "heuristic", "montecarlo", "greedy"}
    assert not [e for e in seen if isinstance(e, FaultRecorded)]


@pytest.mark.slow
def test_in_memory_with_python_classes(tmp_path: Path) -> None:
    seen: list[object] = []
    with Arena(":memory:", workers=2, unsafe=True, on_event=seen.append) as arena:
        done = arena.run([Greedy, Coin, "random"], rounds=1)
        assert {r.name for r in arena.standings()} == {"greedy", "Coin", "random"}
        site = arena.render(tmp_path / "site")
    assert done.completed and done.log_path is None
    assert site.is_file()
    assert not list(Path.cwd().glob(":memory:*"))  # no file named after it
    with pytest.raises(ArenaError, match="unsafe") as refused:
        Arena(":memory:").run([Greedy, "random", "heuristic"])
    assert refused.value.settings == ("unsafe",)


def test_errors_a_caller_can_catch(tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        Arena(tmp_path / "missing.db", create=False)
    with Arena(tmp_path / "empty.db") as arena:
        with pytest.raises(NotFound):
            arena.standings()
        with pytest.raises(NotFound):
            arena.ladder_status()
        with pytest.raises(NotFound):
            arena.run(["random", "heuristic", "no-such-bot"], rounds=1)
        bad = write_bot(tmp_path, "broken.py", "class Bot:\n    def act(self, obs)\n")
        with pytest.raises(BadBotFile, match="syntax error"):
            arena.submit(bad)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 100)
    with pytest.raises(DatabaseDamaged):
        Arena(garbage)
    with RunLock(tmp_path / "empty.db", "ladder"), Arena(tmp_path / "empty.db") as arena:
        with pytest.raises(AlreadyRunning):
            arena.ladder(["random", "heuristic", "montecarlo"], max_sets=1)
    holder = sqlite3.connect(tmp_path / "empty.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write lock
    with pytest.raises(DatabaseBusy, match="locked by another process"):
        Arena(tmp_path / "empty.db")
    holder.execute("ROLLBACK")
    holder.close()
    for cls in (NotFound, AlreadyRunning, BadBotFile, DatabaseBusy, DatabaseDamaged):
        assert issubclass(cls, ArenaError)


def test_settings_are_checked_and_frozen() -> None:
    with pytest.raises(ArenaError):
        LadderSettings(max_sets=-1).check()
    s = RunSettings(rounds=2)
    with pytest.raises(AttributeError):
        s.rounds = 3  # type: ignore[misc]


@pytest.mark.slow
def test_the_python_api_page_runs_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "python-api.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", page, re.M | re.S)
    assert "A tournament in ten lines" in page.split("```python", 1)[0]
    assert [len(b.strip().splitlines()) <= 10 for b in blocks[:2]] == [True, True]
    monkeypatch.chdir(tmp_path)
    # The class of the last example must live in a file, as the page says: a module imported.
    (tmp_path / "api_page_example.py").write_text("\n".join(blocks), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "api_page_example", raising=False)
    importlib.import_module("api_page_example")
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert "finished 6 matches, " in lines[3] and lines[3].endswith(" events")
    assert sorted(line.split()[1] for line in lines[:3]) == ["heuristic", "montecarlo", "random"]
    assert lines[4].startswith("ladder ") and "after 3 sets" in lines[4]
    assert out.err == ""


def test_the_library_logs_nothing_to_the_terminal_by_default() -> None:
    # Without a handler, Python prints a library's warnings to stderr; arena's logger has one
    # (a NullHandler) until its user configures logging.
    import subprocess

    code = "import arena, logging; logging.getLogger('arena.tournaments').error('not shown')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (done.stdout, done.stderr) == ("", "")
