"""The SQLite store on real files: the schema, bot versions, idempotent batches, bad databases."""

from __future__ import annotations

import inspect
import sqlite3
import typing
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ArenaError
from arena.matches.record import MatchRecord, SeatStats
from arena.store import LOG_CAP, VERSION, ListedMatch, Store, StoredMatch
from arena.store.runlock import RunLock


def record(match_id: str, bots: list[int], **over: Any) -> MatchRecord:
    """A worker record as :func:`arena.tournaments.runner.outcome_record` makes it (one short
    hand)."""
    hand = {
        "hand_number": 0,
        "dealer": 1,
        "upcard": "AS",
        "trump": "S",
        "maker": 0,
        "alone": [],
        "sitting_out": None,
        "passed_out": False,
        "tricks_won": [3, 1, 1],
        "points": [1, 0, 0],
        "scores_before": [0, 0, 0],
        "log": [[2, "bid1", "order"]],
    }
    rec = {
        "match_id": match_id,
        "round": 0,
        "seating": 0,
        "seed": 42,
        "set_key": ",".join(map(str, sorted(bots))),
        "bots": bots,
        "scores": [10, 4, 2],
        "placements": [1, 2, 3],
        "truncated": False,
        "hands": [hand],
        "faults": [],
        "stats": [SeatStats(5, 4, 0.1, 0.05).to_json()] * 3,
        "logs": ["", "", ""],
        "duration_seconds": 0.5,
    }
    rec.update(over)
    return MatchRecord.from_json(rec)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "arena.db")
    for name in ("a", "b", "c"):
        s.add_bot_version(name, f"class Bot: name = {name!r}", f"{name}.py")
    config = {"bots": [], "seed": 1, "rounds": 1, "rules": {}, "limits": {}}
    s.ensure_tournament("t1", config, [1, 2, 3], 6)
    return s


def count(s: Store, table: str) -> int:
    # Raw: the store's own tests count the rows of any table, the schema's too.
    return int(s.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def test_a_new_database_has_the_one_schema_and_wal(tmp_path: Path) -> None:
    s = Store(tmp_path / "x.db")
    assert s.schema_version() == VERSION == 1
    assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = set(s.db.table_names())
    for t in ("bots", "bot_versions", "tournaments", "matches", "match_seats", "hands"):
        assert t in tables
    assert {"faults", "bot_logs", "ratings", "pairwise", "reports", "schema_version"} <= tables
    # Required for every tournament: its deal secret.
    secret = {c.name: c for c in s.db.table("tournaments").columns}["secret_id"]
    assert secret.notnull
    s.add_bot_version("keeper", "class Bot: pass", "keeper.py", "me")
    s.close()
    # Opening again creates nothing twice and keeps the data.
    again = Store(tmp_path / "x.db")
    assert again.conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1
    kept = again.latest_version("keeper")
    assert kept is not None and kept.author == "me" and kept.version == 1
    again.close()


def test_same_content_is_not_stored_twice_but_a_change_is(store: Store) -> None:
    v, created = store.add_bot_version("a", "class Bot: name = 'a'", "a.py")
    assert not created and v.version == 1
    v2, created = store.add_bot_version("a", "class Bot: name = 'a'  # v2", "a.py")
    assert created and v2.version == 2 and v2.bot_id == v.bot_id
    # Going back to the first content is a change relative to the latest version.
    v3, created = store.add_bot_version("a", "class Bot: name = 'a'", "a.py")
    assert created and v3.version == 3
    assert [x.name for x in store.latest_versions()] == ["a", "b", "c"]
    assert store.latest_versions()[0].version == 3


def test_write_results_is_idempotent(store: Store) -> None:
    batch = [record("m1", [1, 2, 3]), record("m2", [2, 3, 1], seating=1)]
    store.write_results("t1", batch)
    first = {t: count(store, t) for t in ("matches", "match_seats", "hands")}
    store.write_results("t1", batch)
    assert (
        {t: count(store, t) for t in first}
        == first
        == {
            "matches": 2,
            "match_seats": 6,
            "hands": 2,
        }
    )
    assert store.finished_match_ids("t1") == {"m1", "m2"}


def test_a_failing_batch_stores_nothing(store: Store) -> None:
    # The second record names a bot version that does not exist: the foreign key fails
    # after the first record's rows were written, and the whole batch must roll back.
    bad = [record("m1", [1, 2, 3]), record("m2", [1, 2, 99])]
    with pytest.raises(sqlite3.IntegrityError):
        store.write_results("t1", bad)
    assert count(store, "matches") == 0 and count(store, "match_seats") == 0


def test_faults_and_capped_logs_are_stored(store: Store) -> None:
    fault = {"seat": 1, "kind": "timeout", "message": "no answer in 1 s", "decision": 4}
    store.write_results(
        "t1",
        [record("m1", [1, 2, 3], faults=[fault], logs=["", "x" * (LOG_CAP + 10), "hi"])],
    )
    f = store.match_faults("m1")
    assert [(r.seat, r.kind, r.decision, r.bot_version_id) for r in f] == [(1, "timeout", 4, 2)]
    logs = store.match_logs("m1")
    assert {s: len(t) for s, t in logs.items()} == {1: LOG_CAP, 2: 2} and logs[2] == "hi"
    assert [s.faulted for s in store.seat_rows("m1")] == [False, True, False]


def test_match_by_prefix(store: Store) -> None:
    store.write_results("t1", [record("abc123", [1, 2, 3]), record("abd456", [1, 2, 3])])
    row, hands = store.match("abc")
    assert row.id == "abc123" and hands[0]["upcard"] == "AS"
    assert store.match("ABC1")[0].id == "abc123"
    for prefix in ("ab", "zz", "", "%", "a_c"):
        with pytest.raises(ArenaError):
            store.match(prefix)


def test_not_a_sqlite_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    content = b"these are my notes, not a database\n" * 50
    path.write_bytes(content)
    with pytest.raises(ArenaError, match="is not a SQLite database"):
        Store(path)
    assert path.read_bytes() == content


def test_another_schema_or_program_is_refused_in_one_line_and_left_alone(tmp_path: Path) -> None:
    def made(name: str, sql: str) -> Path:
        path = tmp_path / name
        conn = sqlite3.connect(path)
        conn.executescript(sql)
        conn.close()
        return path

    Store(tmp_path / "newer.db").close()
    conn = sqlite3.connect(tmp_path / "newer.db", isolation_level=None)
    conn.execute("UPDATE schema_version SET version = 2")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    cases = {
        tmp_path / "newer.db": "has arena schema version 2; arena ",
        made("other.db", "CREATE TABLE notes (x TEXT)"): "is not an arena database",
    }  # fmt: skip
    for path, says in cases.items():
        content = path.read_bytes()
        for create in (True, False):
            with pytest.raises(ArenaError) as refused:
                Store(path, create=create)
            assert says in str(refused.value) and "\n" not in str(refused.value)
        assert path.read_bytes() == content


def test_a_locked_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    Store(path).close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        s = Store(path, create=False)  # a reader opens without a write lock...
        assert s.latest_versions() == []  # ...and reads beside the writer (WAL)
        with pytest.raises(ArenaError, match="locked by another process"):
            s.add_bot_version("z", "class Bot: pass", "z.py")
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_missing_database_for_readers_and_directories(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="no database"):
        Store(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()
    with pytest.raises(ArenaError, match="directory"):
        Store(tmp_path)


def test_tournament_status_and_lookup(store: Store) -> None:
    assert store.tournament().id == "t1"
    # Stored as running, but no run holds its lock: a run that was killed.
    assert store.tournament("t").status == "interrupted"
    with RunLock(store.path, "t1"):
        assert store.tournament("t").status == "running"
    assert store.tournament("t").status == "interrupted"
    store.set_status("t1", "finished")
    t = store.tournament("t1")
    assert t.status == "finished" and t.finished_at
    # Finding the same tournament again does not reopen a finished one.
    store.ensure_tournament("t1", {}, [], 6)
    assert store.tournament("t1").status == "finished"
    with pytest.raises(ArenaError, match="no tournament"):
        store.tournament("zz")


def test_the_match_listing_and_pages_read_typed_rows(store: Store) -> None:
    fault = {"seat": 2, "kind": "crash", "message": "boom", "decision": None}
    store.write_results(
        "t1", [record("m1", [1, 2, 3]), record("m2", [3, 1, 2], seating=1, faults=[fault])]
    )
    listed, total = store.match_listing(bot="c", tid="t1")
    assert total == 2 and [type(r) for r in listed] == [ListedMatch, ListedMatch]
    assert [(r.match.id, r.names, r.versions, r.faulted) for r in listed] == [
        ("m1", ("a", "b", "c"), (1, 1, 1), frozenset()),
        ("m2", ("c", "a", "b"), (1, 1, 1), frozenset({2})),
    ]
    rows = store.match_rows(versions=[3])
    assert [type(r) for r in rows] == [StoredMatch, StoredMatch]
    assert rows[1].bots == (3, 1, 2) and rows[1].places == (1, 2, 3) and rows[1].faults == 1
    assert rows[0].truncated is False and rows[0].seating == 0 and rows[0].hands_played == 1
    with pytest.raises(KeyError):
        StoredMatch.from_row({"id": "m1"})


def _loose(hint: object) -> bool:
    """Whether a type says nothing of its values somewhere: ``Any``, or a bare ``dict``."""
    if hint is Any or hint is dict:
        return True
    return any(_loose(arg) for arg in typing.get_args(hint))


def test_no_read_returns_an_untyped_row() -> None:
    # Every public method of the store returns typed values: rows are frozen dataclasses or
    # TypedDicts (arena.store.rows), never a dict of Any (what sqlite gives) or a bare dict.
    loose = []
    for name, method in inspect.getmembers(Store, inspect.isfunction):
        if name.startswith("_"):
            continue
        hints = typing.get_type_hints(method)
        if _loose(hints.get("return")):
            loose.append(f"{name} -> {hints['return']}")
    assert loose == []
    assert not hasattr(Store, "rows")  # the dict rows stay inside the store (_rows)
