"""Python bots of several files (a directory with a manifest): the entry imports its own
modules and packages and reads its data files, in the real sandbox, through the real command
line (`arena check`, `arena run`, `arena submit`); files the bot host could not stage faithfully
are refused in one line."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.sandbox.artifacts import load_artifact
from arena.sandbox.pyfiles import python_source
from arena.sandbox.runtime import Artifact

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import arena, ok  # noqa: E402

MAIN = """import os
import helpers
from strategy import pick

with open(os.path.join(os.path.dirname(__file__), "data", "greeting.txt")) as f:
    GREETING = f.read().strip()


class Bot:
    name = "multi"

    def act(self, obs):
        helpers.CALLS[0] += 1
        if helpers.CALLS[0] == 1:
            print(GREETING, pick.__name__, helpers.__file__)
        return pick.choose(obs["legal"])
"""


def make_bot(d: Path, **extra: str) -> Path:
    files = {
        "bot.toml": 'language = "python"\nentry = "main.py"\nname = "multi"\n',
        "main.py": MAIN,
        "helpers.py": "CALLS = [0]\n",
        "strategy/__init__.py": "",
        "strategy/pick.py": "def choose(legal):\n    return legal[-1]\n",
        "data/greeting.txt": "hello from a data file\n",
        # A helper named like a standard module the host uses: it shadows nothing.
        "json.py": "raise SystemExit('the bot host imported the bot json.py')\n",
        **extra,
    }
    for path, text in files.items():
        (d / path).parent.mkdir(parents=True, exist_ok=True)
        (d / path).write_text(text)
    return d


def test_python_source_keeps_every_file_beside_the_entry(tmp_path: Path) -> None:
    source = python_source(load_artifact(make_bot(tmp_path)))
    assert not isinstance(source, str), source
    assert source.filename == "main.py" and "import helpers" in source.source
    assert {p for p, _ in source.files} == {
        "bot.toml",
        "helpers.py",
        "json.py",
        "strategy/__init__.py",
        "strategy/pick.py",
        "data/greeting.txt",
    }


@pytest.mark.parametrize(
    ("files", "entry", "error"),
    [
        ({"a/main.py": "", "b/x.py": ""}, "a/main.py", "b/x.py: not in the directory of the entry"),
        ({"a/main.py": "", "a.json": ""}, "a/main.py", "a.json: not in the directory of the entry"),
        ({"main.py": "", "x.py": "# coding: unicode_escape\n"}, "main.py", "coding declaration"),
        ({"main.py": "", "x.py": b"\xff"}, "main.py", "x.py: not UTF-8 text"),
        ({"main.py": "", "-x.py": ""}, "main.py", "not a plain relative file name"),
        ({"main.py": b"\xfe"}, "main.py", "main.py: not UTF-8 text"),
    ],
)
def test_files_the_host_cannot_stage_faithfully_are_refused(
    files: dict[str, str | bytes], entry: str, error: str
) -> None:
    data = tuple(sorted((p, v if isinstance(v, bytes) else v.encode()) for p, v in files.items()))
    why = python_source(Artifact("python", data, entry))
    assert isinstance(why, str) and error in why, why


def test_a_refused_python_directory_is_one_error_line(tmp_path: Path) -> None:
    make_bot(tmp_path, **{"helpers.py": "# -*- coding: utf_7 -*-\nCALLS = [0]\n"})
    with pytest.raises(ArenaError, match="helpers.py: a coding declaration other than utf-8"):
        load_artifact(tmp_path)


@pytest.mark.slow
def test_a_python_bot_of_several_files_checks_runs_and_submits(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "multi")
    run = tmp_path / "run"
    run.mkdir()
    assert "ok: the bot speaks protocol v1" in ok(arena("check", bot, cwd=run))
    ok(arena("run", bot, "random", "heuristic", "--rounds", "1", "--seed", "4", cwd=run))
    rows = {r["name"]: r for r in json.loads(ok(arena("standings", "--json", cwd=run)))["bots"]}
    # It loaded: its helpers, its package and its data file were there (and its json.py
    # shadowed nothing of the host's, or the host would have exited).
    assert rows["multi"]["matches"] == 6 and rows["multi"]["faults"] == 0, rows
    env = {"ARENA_OWNER_KEY": secrets.token_hex(32)}
    out = ok(arena("submit", bot, cwd=run, env=env))
    assert "multi" in out
    # A refused one is one line, no traceback, nothing stored.
    (bot / "strategy" / "pick.py").write_text(
        "# coding: latin-1\ndef choose(l):\n    return l[0]\n"
    )
    bad = arena("submit", bot, cwd=run, env=env)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "strategy/pick.py: a coding declaration other than utf-8" in bad.stderr


def test_an_entry_below_the_manifest_has_its_directory(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "bot.toml").write_text('language = "python"\nentry = "src/main.py"\n')
    (tmp_path / "src" / "main.py").write_text("import util\n")
    (tmp_path / "src" / "util.py").write_text("")
    source = python_source(load_artifact(tmp_path))
    assert not isinstance(source, str) and source.files == (("util.py", b""),), source


def test_staging_never_writes_outside_the_bots_directory(tmp_path: Path) -> None:
    from arena.sandbox.pyfiles import write_bot_files
    from arena.sandbox.values import BotSource

    (tmp_path / "bot").mkdir()
    for bad in ("../escaped.py", "/abs.py", "a/../../x.py"):
        with pytest.raises(ValueError, match="not a plain relative file name"):
            write_bot_files(
                tmp_path / "bot" / "bot.py", BotSource("b", "", "bot.py", ((bad, b""),))
            )
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["bot", "bot.py"]
