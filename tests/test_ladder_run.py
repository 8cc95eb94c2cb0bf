"""``arena ladder`` as a library call (:meth:`arena.Arena.ladder`): real sandboxed bots, real
worker processes, a real SQLite file. Serial equals parallel for a seed and a deal secret; a
new version replaces the old, a retired bot leaves and comes back; no bot starves; the
deal-secret epochs open, close and verify, and no set is scheduled on a revealed secret."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_support import write_bot

from arena import Arena
from arena.api import LadderRun, LadderStatus
from arena.cli.common import option_of
from arena.errors import ArenaError
from arena.events import SetDone
from arena.ladder.epochs import Epochs, verify_epoch
from arena.ladder.policy import Parameters
from arena.ladder.run import LadderSchedule, LadderSettings, plan_ladder
from arena.sandbox import Limits
from arena.store import Store
from arena.store.schema import LADDER
from arena.tournaments.entrants import submit

TINY = """
    class Bot:
        name = "{name}"
        def act(self, obs):
            legal = obs["legal"]
            return legal[{pick} % len(legal)]
"""


def tiny(name: str, pick: int) -> str:
    """A cheap bot: always the legal action at index ``pick`` (mod the legal count)."""
    return TINY.format(name=name, pick=pick)


def field_db(tmp_path: Path, bots: dict[str, int], db: str = "ladder.db") -> Path:
    """A database with tiny submitted bots (stored without an owner, as a library call does)."""
    path = tmp_path / db
    with Store(path) as store:
        for name, pick in bots.items():
            file = write_bot(tmp_path, f"{name}.py", tiny(name, pick))
            store.add_bot_version(name, file.read_text(encoding="utf-8"), file.name)
    return path


def ladder_status(
    db: Path, bundled: tuple[str, ...] = (), settings: LadderSettings | None = None
) -> LadderStatus:
    """:meth:`Arena.ladder_status` on ``db``."""
    with Arena(db, create=False) as arena:
        return arena.ladder_status(bundled, settings)


def retire(db: Path, name: str, *, force: bool = False) -> tuple[object, bool]:
    """:meth:`Arena.retire` on ``db``."""
    with Arena(db) as arena:
        return arena.retire(name, force=force)


def play(db: Path, bundled: tuple[str, ...] = ("random",), **settings: object) -> LadderRun:
    """One bounded run of the ladder, quiet."""
    workers = settings.pop("workers", 2)
    with Arena(db, workers=int(str(workers))) as arena:
        return arena.ladder(bundled, settings=LadderSettings(**settings))  # type: ignore[arg-type]


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    """Raw rows, for whole-table comparisons of two databases (serial == parallel, resumed ==
    straight): every stored column, not only what a store read returns."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def sets_of(db: Path) -> list[tuple[object, ...]]:
    """The latest ladder's sets, in step order, without their times (which differ by run)."""
    with Store(db, create=False) as store:
        sets = store.ladder_sets(store.tournament(prefer=LADDER).id)
    return [
        (s.step, *s.bots, s.epoch, s.set_key, s.reason, s.finished_at is not None) for s in sets
    ]


def test_serial_equals_parallel(tmp_path: Path) -> None:
    # One deal secret for both: the ladder is created (its epoch 0 drawn) and the file copied.
    a = field_db(tmp_path, {"first": 0, "last": -1, "second": 1}, "a.db")
    play(a, max_sets=0)
    b = tmp_path / "b.db"
    shutil.copy(a, b)
    serial = play(a, workers=1, seed=1, max_sets=14, lookahead=3)
    parallel = play(b, workers=2, seed=1, max_sets=14, lookahead=3)
    assert serial.tid == parallel.tid
    assert serial.result.played == parallel.result.played == 14 * 6
    assert sets_of(a) == sets_of(b) and len(sets_of(a)) == 14
    # Raw rows: the two databases compared column by column (rows() says why).
    matches = (
        "SELECT id, round, seating, seed, bot0, bot1, bot2, score0, score1, score2, place0, "
        "place1, place2, hands_played FROM matches ORDER BY id"
    )
    assert rows(a, matches) == rows(b, matches)
    standings = "SELECT bot_version_id, rank, round(rating, 6), units FROM ratings ORDER BY rank"
    assert rows(a, standings) == rows(b, standings) and len(rows(a, standings)) == 4
    # Not a degenerate schedule: the scheduler chose among the bots, new ones first.
    reasons = [s[6] for s in sets_of(a)]
    assert reasons[0] == "new" and len(set(reasons)) > 1


def test_a_resumed_ladder_equals_one_played_straight(tmp_path: Path) -> None:
    # The schedule rebuilds the rule's state from ladder_bots and ladder_sets: stopping and
    # resuming (here at bounds, a bot joining in between) changes nothing that is played.
    a = field_db(tmp_path, {"first": 0, "last": -1}, "a.db")
    play(a, max_sets=0)
    b = tmp_path / "b.db"
    shutil.copy(a, b)
    for db, runs in ((a, [4, 8]), (b, [4, 3, 1, 4])):
        play(db, max_sets=runs[0], lookahead=2)
        with Store(db) as store:
            store.add_bot_version("second", tiny("second", 1), "second.py")
        for sets in runs[1:]:
            play(db, max_sets=sets, lookahead=2)
    assert sets_of(a) == sets_of(b) and len(sets_of(a)) == 12
    assert [s[6] for s in sets_of(a)][4] == "new"  # the bot that joined plays at once
    # Raw rows: the two databases compared column by column (rows() says why).
    matches = "SELECT id, seed, bot0, bot1, bot2, place0, place1, place2 FROM matches ORDER BY id"
    assert rows(a, matches) == rows(b, matches)


def test_a_schedule_has_its_state_when_made_and_reads_what_another_run_stored(
    tmp_path: Path,
) -> None:
    # The ladder's schedule rebuilds the rule's state when it is made (plan_ladder), not in
    # start; start, under the run lock, reads the ladder again only if another run stored sets
    # since (else it keeps the state it was made with).
    db = field_db(tmp_path, {"first": 0, "last": -1, "second": 1})
    play(db, max_sets=2, lookahead=1)
    settings = LadderSettings(lookahead=1)
    with Store(db) as store:
        made = plan_ladder(store, ("random",), settings).schedule
        assert isinstance(made, LadderSchedule)
        assert made.state.finished == {0, 1} and made.describe().startswith("ladder: 2 sets")
        kept = made.state
        assert made.start(store) and made.state is kept
        again = plan_ladder(store, ("random",), settings).schedule
    play(db, max_sets=3, lookahead=1)  # another run, after `again` was made
    with Store(db) as store:
        assert isinstance(again, LadderSchedule) and again.start(store)
        assert again.state.finished == set(range(5)) and again.state.ladder.step == 5


def test_new_version_replaces_retired_leaves_submitted_again_comes_back(tmp_path: Path) -> None:
    db = field_db(tmp_path, {"first": 0, "last": -1, "third": 1})
    lid = play(db, max_sets=4, lookahead=1).tid
    with Store(db) as store:
        old = store.latest_version("first")
        assert old is not None
        new, created = store.add_bot_version("first", tiny("first", 2), "first.py")
        assert created
    play(db, max_sets=4, lookahead=1)
    with Store(db) as store:
        members = {m.version_id: m for m in store.ladder_members(lid)}
        sets = store.ladder_sets(lid)
    assert members[old.id].left_reason == "replaced" and members[old.id].left_step == 4
    assert members[new.id].joined_step == 4 and members[new.id].left_reason is None
    # The new version plays at once; the old one plays no more but keeps its results.
    assert new.id in sets[4].bots and sets[4].reason == "new"
    assert all(old.id not in s.bots for s in sets[4:])
    assert any(old.id in s.bots for s in sets[:4])
    with Store(db, create=False) as store:
        assert store.match_rows(versions=[old.id])
        assert old.id in {r["bot_version_id"] for r in store.read_standings(lid)[0]}

    # Retired: out of the field at the next step. These bots were stored without an owner
    # key, so only the organiser's force retires them; a bundled bot is never retired.
    with pytest.raises(ArenaError, match="has no owner key") as refused:
        retire(db, "last")
    # The library names its setting; the command line shows its option there.
    assert refused.value.settings == ("force",) and "--" not in str(refused.value)
    assert refused.value.spelled(option_of).endswith("(or the organiser, with --force)")
    with pytest.raises(ArenaError, match="bundled bot"):
        retire(db, "random")
    last, changed = retire(db, "last", force=True)
    assert changed and retire(db, "last", force=True)[1] is False
    play(db, max_sets=3, lookahead=1)
    with Store(db) as store:
        gone = {m.version_id: m for m in store.ladder_members(lid)}[last.id]
        assert gone.left_reason == "retired" and gone.left_step == 8
        assert all(last.id not in s.bots for s in store.ladder_sets(lid)[8:])
        assert set(ladder_status(db).to_dict()["field"]) == {  # type: ignore[arg-type]
            "first", "third", "random"
        }  # fmt: skip
        # Submitted again (the same file): back in the field, with its results.
        again, created, rejoined = submit(
            store, tmp_path / "last.py", None, Limits(), unsafe=False, owner=None
        )
        assert again.id == last.id and not created and rejoined
        assert not store.is_retired("last")
    play(db, max_sets=8, lookahead=1)  # its wait passes the bound's slack within 8 sets
    with Store(db) as store:
        back = {m.version_id: m for m in store.ladder_members(lid)}[last.id]
        assert back.left_reason is None and back.joined_step == 0
        assert any(last.id in s.bots for s in store.ladder_sets(lid)[11:])


def play_tid(db: Path, bundled: tuple[str, ...] = ("random",)) -> str:
    return ladder_status(db, bundled).tid


def test_no_bot_waits_longer_than_the_bound(tmp_path: Path) -> None:
    bots = {"first": 0, "last": -1, "second": 1}
    db = field_db(tmp_path, bots)
    run = play(db, ("random", "heuristic"), max_sets=24, lookahead=2)
    steps = [s[:4] for s in sets_of(db)]
    assert len(steps) == 24 and run.result.played == 24 * 6
    n = len(bots) + 2
    bound = Parameters().wait_bound(n)
    played: dict[object, list[int]] = {}
    for step, *three in steps:
        for b in three:
            played.setdefault(b, []).append(int(str(step)))
    assert len(played) == n  # everyone played
    for bot, at in played.items():
        waits = [at[0], *(b - a - 1 for a, b in zip(at, at[1:], strict=False)), 23 - at[-1]]
        assert max(waits) <= bound, (bot, at, bound)


def test_epochs_open_close_and_verify(tmp_path: Path) -> None:
    db = field_db(tmp_path, {"first": 0, "last": -1})
    run = play(db, max_sets=8, lookahead=1, epoch_sets=3)
    lid = run.tid
    with Store(db) as store:
        epochs = store.ladder_epochs(lid)
        sets = store.ladder_sets(lid)
        assert [e.epoch for e in epochs] == [0, 1, 2]
        assert [e.first_step for e in epochs] == [0, 3, 6]
        assert [e.closed_at is not None for e in epochs] == [True, True, False]
        assert all(e.secret.revealed_at for e in epochs[:2]) and not epochs[2].secret.revealed_at
        assert [s.epoch for s in sets] == [0, 0, 0, 1, 1, 1, 2, 2]
        # Every set of a closed epoch was scheduled before its secret was revealed, and
        # nothing can be scheduled or played on a revealed secret.
        for e in epochs[:2]:
            assert e.closed_at is not None
            assert all(s.scheduled_at <= e.closed_at for s in sets if s.epoch == e.epoch)
        with pytest.raises(ArenaError, match="epoch 1 is closed"):
            store.schedule_ladder_set(lid, 8, sets[0].bots, 1, sets[0].set_key, "given")
        with pytest.raises(ArenaError, match="revealed"):
            Epochs(store, lid, 1, 3).secret(0)
        report = verify_epoch(store, lid[:6], 0)
        assert report.ok and report.matches == 18 and report.deals >= 18, report.line()
        with pytest.raises(ArenaError, match="epoch 2 of ladder .* is open"):
            verify_epoch(store, lid, 2)
        with pytest.raises(ArenaError, match="has no epoch 7"):
            verify_epoch(store, lid, 7)
    # The commitments were published, the closed epochs' secrets revealed:
    public = ladder_status(db, ("random",), LadderSettings(epoch_sets=3)).to_dict()
    shown = public["epochs"]
    assert isinstance(shown, list) and [e["secret"] is None for e in shown] == [False, False, True]
    assert all(len(e["commitment"]) == 64 for e in shown)

    # A tampered deal is found: two cards swapped between two hands of one stored deal
    # (raw SQL: the store has no way to rewrite a stored hand, and must not have one).
    conn = sqlite3.connect(db)
    try:
        mid, number, record = conn.execute(
            "SELECT h.match_id, h.hand_number, h.record FROM hands h JOIN matches m "
            "ON m.id = h.match_id WHERE m.round = 1 ORDER BY h.match_id LIMIT 1"
        ).fetchone()
        doc = json.loads(record)
        hands = doc["deal"]["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
        with conn:
            conn.execute(
                "UPDATE hands SET record = ? WHERE match_id = ? AND hand_number = ?",
                (json.dumps(doc), mid, number),
            )
    finally:
        conn.close()
    with Store(db) as store:
        report = verify_epoch(store, lid, 0)
    assert not report.ok and report.differing[0][0] == mid
    assert "not the deal of its seed" in report.line()


def test_the_python_example_of_the_ladder_page_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    from arena.tournaments.owners import current_owner

    page = (Path(__file__).resolve().parents[1] / "docs" / "ladder.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", page, re.M | re.S)
    (code,) = [b for b in blocks if ".ladder(" in b]
    monkeypatch.chdir(tmp_path)
    with Store(tmp_path / "arena.db") as store:
        store.add_bot_version("greedy", tiny("greedy", 0), "greedy.py", owner=current_owner())
    exec(compile(code, "docs/ladder.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()  # what it prints, and nothing else
    assert out[0].startswith("ladder ") and "after 6 sets in this run" in out[0]
    table = [line.split() for line in out if re.fullmatch(r"\d \w+ \d+ \d+", line)]
    assert sorted(row[1] for row in table) == ["greedy", "heuristic", "random"]
    assert sum(int(row[3]) for row in table) == 3 * 6  # every set counted: 3 bots each
    assert "commitment" in out[-1]
    with Store(tmp_path / "arena.db") as store:
        assert store.is_retired("greedy")


def test_site_and_the_sets_stored_hook(tmp_path: Path) -> None:
    db = field_db(tmp_path, {"first": 0, "last": -1})
    seen: list[int] = []

    def on_event(e: object) -> None:
        if isinstance(e, SetDone):
            seen.extend(e.steps)

    with Arena(db, workers=2, on_event=on_event) as arena:
        done = arena.ladder(
            ["random"], settings=LadderSettings(max_sets=4, lookahead=1), site=tmp_path / "site",
            site_every=2,
        )  # fmt: skip
    assert sorted(seen) == [0, 1, 2, 3]  # once per stored set
    assert done.site == tmp_path / "site" / "index.html" and done.site.is_file()
    assert done.tid in (tmp_path / "site" / "index.html").read_text(encoding="utf-8") or any(
        done.tid in p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html")
    )
    # Three bots: every set is the same triple under the same key; the ladder's page still
    # links each set's six matches once (a set is its key and its step).
    page = (tmp_path / "site" / "tournaments" / f"{done.tid}.html").read_text(encoding="utf-8")
    links = re.findall(r'href="\.\./matches/([0-9a-f]+)\.html"', page)
    assert len(links) == len(set(links)) == 4 * 6
