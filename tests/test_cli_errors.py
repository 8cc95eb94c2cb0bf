"""Bad input through the ``arena`` command line: one line, exit 1, nothing lost.

Every command that takes ``--db`` is pointed at a missing file, a text file, a directory, a
database another process keeps locked, a database on a read-only file system and one written
by a newer arena; the same bot file given twice is refused. No command leaves a file it
created behind when it fails. The many one-line checks of a command's reading of ``--db`` run
the command in this process (``arena_here``, the same code); the others run the real console
script in a subprocess.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from cli_support import REPO, arena, arena_here, ok, one_error_line, write_bot

from arena.cli.common import option_of
from arena.errors import ArenaError
from arena.tournaments.entrants import read_bot_file

LAST = """
class Bot:
    name = "last"
    def act(self, obs):
        return obs["legal"][-1]
"""

READERS = [
    ["standings"],
    ["standings", "--json"],
    ["bots"],
    ["tournaments"],
    ["matches"],
    ["faults"],
    ["replay", "abc"],
    ["render", "--out", "out"],
    ["serve", "--out", "nosite", "--port", "0"],
]
WRITERS = [["submit", "BOT"], ["run", "BOT", "heuristic", "random", "--rounds", "1", "--no-site"]]


def _args(args: list[str], bot: Path) -> list[str]:
    return [str(bot) if a == "BOT" else a for a in args]


@pytest.fixture
def last(tmp_path: Path) -> Path:
    return write_bot(tmp_path, "last.py", LAST)


def test_the_same_file_twice_is_one_line_and_stores_nothing(tmp_path: Path, last: Path) -> None:
    copy = write_bot(tmp_path, "random_copy.py", (REPO / "bots" / "random_bot.py").read_text())
    line = one_error_line(arena("run", copy, copy, "heuristic", cwd=tmp_path))
    assert "bot 'random' is given twice" in line
    line = one_error_line(arena("run", last, "./last.py", "heuristic", cwd=tmp_path))
    assert "bot 'last' is given twice" in line
    assert not (tmp_path / "arena.db").exists()


@pytest.mark.parametrize("args", READERS + WRITERS, ids=lambda a: "-".join(a[:2]))
def test_a_text_file_as_database(tmp_path: Path, last: Path, args: list[str]) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n" * 200, encoding="utf-8")
    before = notes.read_bytes()
    line = one_error_line(arena_here(*_args(args, last), "--db", notes, cwd=tmp_path))
    assert "notes.txt is not a SQLite database" in line
    assert notes.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.py", "notes.txt"]


@pytest.mark.parametrize("args", READERS, ids=lambda a: "-".join(a[:2]))
def test_readers_never_create_a_database(tmp_path: Path, last: Path, args: list[str]) -> None:
    line = one_error_line(arena_here(*_args(args, last), "--db", "none.db", cwd=tmp_path))
    assert "no database at none.db" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.py"]


def test_a_refused_write_leaves_no_empty_database(tmp_path: Path, last: Path) -> None:
    refusals = [
        ["run", last, "--rounds", "1"],  # too few bots
        ["run", last, "heuristic", "nobody"],  # unknown bot
        ["submit", tmp_path / "missing.py"],
        ["run", last, "heuristic", "random", "--db", tmp_path / "no" / "such" / "dir.db"],
    ]
    for args in refusals:
        one_error_line(arena(*args, cwd=tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.py"]


def test_a_directory_as_database_is_one_error_line(tmp_path: Path, last: Path) -> None:
    (tmp_path / "folder").mkdir()
    for args in [["bots"], ["submit", str(last)]]:
        line = one_error_line(arena(*args, "--db", "folder", cwd=tmp_path))
        assert line == "Error: --db folder is a folder, not a file"


def _database(tmp_path: Path, last: Path) -> Path:
    db = tmp_path / "data" / "arena.db"
    db.parent.mkdir()
    ok(
        arena(
            "run",
            last,
            "heuristic",
            "random",
            "--rounds",
            "1",
            "--no-site",
            "--db",
            db,
            cwd=tmp_path,
        )
    )
    return db


@pytest.mark.slow
def test_locked_newer_and_read_only_databases(tmp_path: Path, last: Path) -> None:
    db = _database(tmp_path, last)
    # Locked by another process's write transaction: writers refuse at once, readers read.
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        for args in WRITERS:
            line = one_error_line(arena(*_args(args, last), "--db", db, cwd=tmp_path))
            assert "is locked by another process" in line
        assert "last" in ok(arena("standings", "--db", db, cwd=tmp_path))
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    # On a read-only file system: readers read it as it is, writers say why they cannot.
    prefix = _read_only(db.parent)
    assert "last" in ok(arena("standings", "--db", db, cwd=tmp_path, prefix=prefix))
    assert "heuristic" in ok(arena("matches", "--db", db, cwd=tmp_path, prefix=prefix))
    for args in WRITERS:
        result = arena(*_args(args, last), "--db", db, cwd=tmp_path, prefix=prefix)
        assert "is read-only here" in one_error_line(result)

    # Of another schema version (a newer arena's): refused untouched (one check in the store,
    # under every command; readers and writers here).
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all of it in the file itself
    conn.close()
    before = db.read_bytes()
    for args in [["standings"], ["render", "--out", "out"], *WRITERS]:
        line = one_error_line(arena(*_args(args, last), "--db", db, cwd=tmp_path))
        assert "has arena schema version 99; arena " in line and "reads only version 1" in line
    assert db.read_bytes() == before


def _read_only(folder: Path) -> list[str]:
    """A command prefix that runs the command with ``folder`` mounted read-only."""
    if os.geteuid() == 0:
        # As root, file modes do not stop writes: a private mount namespace with a read-only
        # bind mount of the folder does (and leaves the real mount table alone).
        script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
        return ["unshare", "--mount", "sh", "-c", script, "sh", str(folder)]
    for p in folder.iterdir():
        p.chmod(0o444)
    folder.chmod(0o555)
    return []


def test_the_library_names_its_settings_and_the_command_line_its_options(tmp_path: Path) -> None:
    # The library's message names the setting to change as its own parameter; `arena` shows
    # the option for it, in the same one line.
    big = tmp_path / "big.py"
    big.write_text("class Bot:\n    def act(self, obs):\n        return 1\n" + "#" * 99)
    with pytest.raises(ArenaError) as err:
        read_bot_file(big, max_bytes=64)
    assert str(err.value).endswith("(`source_bytes`)") and "--" not in str(err.value)
    assert err.value.settings == ("source_bytes",)
    assert err.value.spelled(option_of).endswith("(--max-source-bytes)")
    assert option_of("unsafe_no_sandbox") == "--unsafe-no-sandbox"
    line = one_error_line(arena("submit", big, "--max-source-bytes", "64", cwd=tmp_path))
    assert line.endswith("a bot file may have at most 64 bytes (--max-source-bytes)"), line


def test_ladder_json_without_status_is_a_usage_error(tmp_path: Path) -> None:
    """``--json`` only shapes what ``--status`` prints: alone it is refused, and no ladder
    starts (no database is made)."""
    out = arena("ladder", "random", "heuristic", "--json", cwd=tmp_path)
    assert out.returncode == 2 and "--json goes with --status" in out.stderr, out.stderr
    assert not (tmp_path / "arena.db").exists()


def _damage(db: Path) -> None:
    """Overwrite the middle of every page but the first two (the header and the schema) with
    a fixed pattern: the pages of the tables are damaged, the file still opens."""
    size = db.stat().st_size
    with db.open("r+b") as f:
        for page in range(2, size // 4096):
            f.seek(page * 4096 + 96)
            f.write(b"\xa5\x00\xff\x13" * 200)


@pytest.mark.parametrize(
    "args",
    [["standings"], ["standings", "--json"], ["tournaments"], ["tournaments", "--wide"],
     ["matches"], ["ladder", "--status"], ["ladder", "random", "heuristic", "--max-sets", "1"],
     ["render", "--out", "out"]],
    ids=" ".join,
)  # fmt: skip
def test_damaged_pages_are_one_line_naming_the_database(tmp_path: Path, args: list[str]):
    # Found only when a query reads them, long after the file opened: still one line that
    # names the database and what to run, never a traceback.
    from site_support import store_ladder, store_tournament

    db = tmp_path / "club.db"
    store_tournament(db, [("ace", None), ("bea", None), ("cy", None)], rounds=2)
    store_ladder(db, ["ace", "bea", "cy", "dot"], sets=8)
    _damage(db)
    line = one_error_line(arena_here(*args, "--db", db, cwd=tmp_path))
    assert f"database {db} is damaged" in line
    assert f"sqlite3 {db} .recover" in line
