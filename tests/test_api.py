"""The library under the command line: ``arena run``, ``arena compare`` and ``arena render`` as
Python calls, on real sandboxes, real worker processes and a real SQLite file."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from cli_support import arena, ok, stored_matches, write_bot

from arena import Arena
from arena.api import TournamentRun
from arena.errors import ArenaError, InvalidSetting
from arena.events import Event, Planned
from arena.stats.sequential import Design
from arena.store import Store
from arena.tournaments.compare import comparison
from arena.tournaments.entrants import SameBot

DOCS = Path(__file__).resolve().parents[1] / "docs"

FIRST = """
    class Bot:
        name = "first"
        def act(self, obs):
            return obs["legal"][0]
"""


def test_run_tournament_plays_stores_rates_and_renders(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "first.py", FIRST)
    db = tmp_path / "lib.db"
    seen: list[tuple[str, int, int]] = []

    def on_event(e: Event) -> None:
        if isinstance(e, Planned):
            seen.append((e.tid, e.workers, stored_matches(db)))

    with Arena(db, workers=2, on_event=on_event) as library:
        done = library.run([bot, "heuristic", "random"], rounds=1, site=tmp_path / "pub")
    assert isinstance(done, TournamentRun)
    assert seen == [(done.tid, 2, 0)]  # planned before any match was played
    assert done.completed and done.status == "finished" and done.reason is None
    assert done.result.played == done.result.total == 6 == stored_matches(db)
    assert done.log_path == tmp_path / "lib.log" and done.log_path.is_file()
    assert {s.name for s in done.standings} == {"first", "heuristic", "random"}
    assert done.site == tmp_path / "pub" / "index.html" and done.site.is_file()
    with Store(db, create=False) as store:
        assert store.tournament(done.tid).status == "finished"

    # The same call again finds the tournament and plays nothing; no site unless asked.
    with Arena(db, workers=1) as library:
        again = library.run([bot, "heuristic", "random"], rounds=1)
    assert again.tid == done.tid and again.result.played == 0 and again.result.already == 6
    assert again.site is None
    assert [(s.name, s.rank) for s in again.standings] == [(s.name, s.rank) for s in done.standings]


def test_the_command_line_stores_what_the_library_does(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "first.py", FIRST)
    with Arena(tmp_path / "lib.db", workers=1) as library:
        lib = library.run([bot, "heuristic", "random"], rounds=1)
    out = ok(arena("run", bot, "heuristic", "random", "--rounds", "1", "--workers", "1",
                   "--db", tmp_path / "cli.db", "--no-site", cwd=tmp_path))  # fmt: skip
    assert f"Tournament {lib.tid}" in out
    assert "Site written" not in out
    with Store(tmp_path / "cli.db", create=False) as store:
        assert store.tournament(lib.tid).status == "finished"


@pytest.mark.parametrize(
    ("settings", "line"),
    [
        pytest.param({"rounds": 0}, "rounds must be at least 1, not 0", id="rounds"),
        pytest.param({"workers": 0}, "workers must be at least 1, not 0", id="workers"),
    ],
)
def test_library_errors_name_the_parameter(
    tmp_path: Path, settings: dict[str, int], line: str
) -> None:
    db = tmp_path / "bad.db"
    with pytest.raises(InvalidSetting) as refused:
        with Arena(db, workers=settings.get("workers")) as a:
            a.run(["heuristic", "random", "montecarlo"], rounds=settings.get("rounds"))
    assert str(refused.value) == line and "--" not in str(refused.value)
    assert isinstance(refused.value, ArenaError)
    assert stored_matches(db) == 0


def test_run_comparison_decides_and_stores(tmp_path: Path) -> None:
    db = tmp_path / "cmp.db"
    seen: list[int] = []
    design = Design(0.5, 0.75, 0.05, 0.05, max_sets=2)
    with Arena(db, workers=2) as library:
        library.on_event = lambda e: (
            seen.append(library.comparison(e.tid).matches) if isinstance(e, Planned) else None
        )
        done = library.compare("heuristic", "random", design=design)
    assert seen == [0]
    assert done.result.completed and done.workers == 2
    assert 0 < done.comparison.matches == stored_matches(db) <= 12
    assert done.comparison.names() == ("heuristic", "random")
    with Store(db, create=False) as store:
        assert comparison(store, done.comparison.tid).to_dict() == done.comparison.to_dict()
    with pytest.raises(SameBot):
        Arena(tmp_path / "same.db", workers=1).compare("random", "random", design=design)


def test_the_tournaments_page_example_runs_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (DOCS / "tournaments.md").read_text(encoding="utf-8")
    section = text.split("### Running a tournament from Python", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    monkeypatch.chdir(tmp_path)
    write_bot(tmp_path, "my_bot.py", FIRST.replace('"first"', '"my_bot"'))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "tournaments.md", "exec"), {})
    (promised,) = re.findall(r"^print\(.*?\)\s+# (.+)$", block, re.M)
    assert promised in out.getvalue().splitlines()
    ranked = {line.split()[0] for line in out.getvalue().splitlines()[-3:]}
    assert ranked == {"my_bot", "heuristic", "random"}
    assert stored_matches(tmp_path / "example.db") == 6
