"""The running totals (``seat_totals``, ``pair_totals``): kept in the transaction that stores
matches, equal to a recomputation over every stored row, and what the site shows.

Real SQLite files written through the store with matches played by the real engine
in-process (:mod:`site_support`), faults and a comparison included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest
from site_support import _ladder_set, ladder_set, store_ladder, store_tournament

from arena.engine import Rules
from arena.site import render_site
from arena.store import COMPARE, Store

LADDER_BOTS = ["ace", "bea", "cy", "dot", "eve"]
RANKED = "(SELECT id FROM tournaments WHERE kind IN ('round-robin', 'ladder'))"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A round robin with a faulty bot, then a ladder."""
    path = tmp_path / "arena.db"
    store_tournament(path, [("rr1", None), ("rr2", None), ("rr3", None)], fault=("rr2", "boom"))
    store_ladder(path, LADDER_BOTS, sets=6)
    return path


def _seat_totals(store: Store, where: str = "1", params: Sequence[object] = ()) -> list[dict]:
    """``seat_totals`` rows (all, or those ``where`` selects) by column name, read straight
    from the table (the store's reads of it are typed sums)."""
    cur = store.conn.execute(f"SELECT * FROM seat_totals WHERE {where}", params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur]


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_totals_equal_a_recomputation(db: Path) -> None:
    with Store(db, create=False) as store:
        assert store.totals_problems() == []
        rows = _seat_totals(store)
        assert sum(r["seats"] for r in rows) == 3 * sum(t.done for t in store.tournaments())
        assert sum(r["faulted"] for r in rows) > 0  # rr2's faults are counted


def test_a_changed_total_is_found(db: Path) -> None:
    with Store(db, create=False) as store, store.conn:
        store.conn.execute("UPDATE seat_totals SET hands = hands + 1 WHERE bot_version_id = 1")
        store.conn.execute("DELETE FROM pair_totals WHERE bot_version_id = 2")
    with Store(db, create=False) as store:
        problems = store.totals_problems()
    assert any("seat_totals" in p and " hands: " in p for p in problems)
    assert any(p.startswith("pair_totals") and p.endswith("missing") for p in problems)


def test_pages_read_what_the_lifetime_sums_gave(db: Path) -> None:
    """Each read the pages make from the totals equals the SQL over every stored seat and
    hand that the pages used to run."""
    with Store(db, create=False) as store:
        for (v,) in store.conn.execute("SELECT id FROM bot_versions").fetchall():
            want = store.conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(decisions), 0), COALESCE(SUM(asked), 0), "
                "COALESCE(MAX(max_think_seconds), 0), COALESCE(MAX(clock_seconds), 0) "
                f"FROM match_seats WHERE bot_version_id = ? AND tournament_id IN {RANKED}",
                (v,),
            ).fetchone()
            t = store.timing([v])
            assert (t.seats, t.decisions, t.asked, t.max_think_seconds) == want[:4]
            assert t.max_clock_seconds == want[4]
            hands = store.conn.execute(
                "SELECT COUNT(*) FROM hands h JOIN match_seats s ON s.match_id = h.match_id "
                "WHERE h.trump IS NOT NULL AND s.bot_version_id = ? "
                f"AND s.tournament_id IN {RANKED}",
                (v,),
            ).fetchone()[0]
            assert store.play_counts([v]).hands == hands
            opp = {
                r[0]: (r[1], r[2], r[3])
                for r in store.conn.execute(
                    "SELECT b.bot_version_id, COUNT(*), SUM(CASE WHEN a.place < b.place THEN 1.0 "
                    "WHEN a.place = b.place THEN 0.5 ELSE 0.0 END), SUM(a.place) "
                    "FROM match_seats a JOIN match_seats b ON a.match_id = b.match_id "
                    "AND a.seat != b.seat WHERE a.bot_version_id = ? "
                    f"AND a.tournament_id IN {RANKED} "
                    "GROUP BY b.bot_version_id",
                    (v,),
                )
            }
            rows = store.opponent_totals([v])
            got = {o.opponent: (o.matches, o.above, o.place_sum) for o in rows}
            assert got == opp
        for listed in store.tournaments():
            tid = listed.tournament.id
            count, faults = store.conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(faults), 0) FROM matches WHERE tournament_id = ?",
                (tid,),
            ).fetchone()
            assert (listed.done, listed.faults) == (count, faults)
            places = {(c.version_id, c.place): c.matches for c in store.place_counts(tid)}
            for p in store.place_totals(tid):
                assert [places.get((p.version_id, k), 0) for k in (1, 2, 3)] == list(p.places)


def test_storing_a_batch_again_keeps_the_totals(db: Path) -> None:
    """Upserting stored matches again, unchanged or with other seat timings, leaves totals
    equal to a recomputation (and unchanged when the matches are)."""
    with Store(db, create=False) as store:
        tid = next(t.tournament.id for t in store.tournaments() if t.tournament.kind == "ladder")
        epoch = store.ladder_epochs(tid)[-1].epoch
        step = store.ladder_sets(tid)[-1].step + 1
        ids = [r[0] for r in store.conn.execute("SELECT id FROM bot_versions LIMIT 3")]
        ladder_set(store, tid, step, ids, epoch, finish=True)
        before = _seat_totals(store)
        # The same matches again (the engine plays them again from the same seeds).
        records = _ladder_set(tid, step, store.ladder_sets(tid)[-1].bots, Rules())
        store.write_results(tid, records)
        assert _seat_totals(store) == before
        slower = [
            dataclasses.replace(
                r, stats=tuple(dataclasses.replace(s, clock_seconds=9.5) for s in r.stats)
            )
            for r in records
        ]
        store.write_results(tid, slower)
        assert store.totals_problems() == []
        assert store.timing(ids[:1]).max_clock_seconds == 9.5


def test_a_comparison_is_kept_but_off_the_bot_pages(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid = store_tournament(db, [("a", None), ("b", None), ("c", None)])
    with Store(db, create=False) as store:
        v = store.entrant_ids(tid)[0]
        seats = store.timing([v]).seats
        assert seats > 0
        with store.conn:
            store.conn.execute("UPDATE tournaments SET kind = ? WHERE id = ?", (COMPARE, tid))
        assert store.timing([v]).seats == 0 and store.play_counts([v]).hands == 0
        assert store.totals_problems() == []


def test_pages_from_recomputed_totals_are_the_same(db: Path, tmp_path: Path) -> None:
    """The site rendered from the running totals equals, byte for byte, the site rendered
    after every total was recomputed from the stored rows."""
    kept = tmp_path / "kept"
    render_site(db, kept, full=True)
    with Store(db, create=False) as store:
        store.rebuild_totals()
    again = tmp_path / "again"
    render_site(db, again, full=True)
    first, second = _files(kept), _files(again)
    assert len(first) > 20 and first == second


def test_a_ladder_set_adds_its_six_matches(db: Path) -> None:
    """A set stored as a ladder stores it (``finish_ladder_set``, one transaction with its
    ``finished_at``) adds its six matches to its three bots' totals, and only to theirs."""
    with Store(db, create=False) as store:
        tid = next(t.tournament.id for t in store.tournaments() if t.tournament.kind == "ladder")
        last = store.ladder_sets(tid)[-1]
        ids = sorted(store.entrant_ids(tid))
        triple = (ids[0], ids[2], ids[4])
        before = {r["bot_version_id"]: r for r in _seat_totals(store, "tournament_id = ?", [tid])}
        step = last.step + 1
        store.schedule_ladder_set(tid, step, triple, last.epoch, f"set{step:05d}", "random")
        store.finish_ladder_set(tid, step, _ladder_set(tid, step, triple, Rules()))
        after = {r["bot_version_id"]: r for r in _seat_totals(store, "tournament_id = ?", [tid])}
        assert store.totals_problems() == []
    for v in ids:
        grew = after[v]["seats"] - (before[v]["seats"] if v in before else 0)
        assert grew == (6 if v in triple else 0)
        if v not in triple:
            assert after[v] == before[v]
