"""The live site: incremental renders equal to full ones, atomic page writes, replays bounded
per tournament, a ladder's page from its tables, and the bot counts summed by the database.

Real SQLite files written through the store, matches played by the real engine in-process
(:func:`site_support.store_ladder`, :func:`site_support.store_tournament`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from site_support import ladder_set, soup, store_ladder, store_tournament, texts

from arena.cli import main
from arena.cli.site import render as render_command
from arena.errors import ArenaError
from arena.ladder.ratings import PROVISIONAL_SETS
from arena.site import RECENT_REPLAYS, render_site, update
from arena.site.output import MANIFEST
from arena.store import Store
from arena.tournaments.standings import current_standings

LADDER_BOTS = ["ace", "bea", "cy", "dot", "eve"]


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def _one_more_set(db: Path, tid: str, triple_names: list[str]) -> list[str]:
    """Store the ladder's next set, of these three bots' latest versions; its match ids."""
    with Store(db) as store:
        step = store.ladder_sets(tid)[-1].step + 1
        epoch = store.ladder_epochs(tid)[-1].epoch
        ids = [_version_id(store, n) for n in triple_names]
        return ladder_set(store, tid, step, ids, epoch, finish=True)


def _version_id(store: Store, name: str) -> int:
    version = store.latest_version(name)
    assert version is not None
    return version.id


@pytest.fixture
def two_kinds(tmp_path: Path) -> tuple[Path, str]:
    """A round robin, then a ladder (the site's current tournament)."""
    db = tmp_path / "arena.db"
    store_tournament(db, [("rr1", None), ("rr2", None), ("rr3", None)])
    return db, store_ladder(db, LADDER_BOTS, sets=6)


def test_incremental_render_equals_a_full_render(two_kinds: tuple[Path, str], tmp_path: Path):
    db, tid = two_kinds
    inc = tmp_path / "incremental"
    render_site(db, inc, replays=10)
    before = _files(inc)
    new_ids = _one_more_set(db, tid, ["ace", "cy", "eve"])
    with Store(db, create=False) as store:
        done = update(store, inc, replays=10)
    after = _files(inc)
    full = tmp_path / "full"
    render_site(db, full, full=True, replays=10)
    assert _files(full) == after  # every file, byte for byte, the manifest too
    # Only what the set changed was written: its replays, its three bots, the ladder's page
    # and the leaderboard; the others were left alone, head-to-head too (a ladder's is its
    # stored standings, which this set did not refit).
    changed = {p for p in after if before.get(p) != after[p]} - {MANIFEST}
    assert changed == {
        "index.html",
        f"tournaments/{tid}.html",
        "bots/ace.html",
        "bots/cy.html",
        "bots/eve.html",
        *(f"matches/{m}.html" for m in new_ids),
    }
    assert done.written == 11 and done.kept > 0
    # The ladder keeps its 10 latest replays as files: the 6 new ones pushed 6 out.
    assert done.removed == 6 and len(set(before) - set(after)) == 6
    assert "bots/bea.html" in after and before["bots/bea.html"] == after["bots/bea.html"]
    # New standings of the ladder: its head-to-head is written again, dated by them.
    with Store(db, create=False) as store:
        current_standings(store, tid, refit=True)
        store.conn.execute(
            "UPDATE ratings SET computed_at = '2031-01-01T00:00:00Z' WHERE tournament_id = ?",
            (tid,),
        )
        store.conn.commit()
        update(store, inc, replays=10)
    h2h = (inc / "h2h.html").read_text(encoding="utf-8")
    assert h2h != after["h2h.html"].decode() and 'datetime="2031-01-01T00:00:00Z"' in h2h
    render_site(db, full, full=True, replays=10)
    assert _files(full) == _files(inc)


def test_an_update_without_new_results_writes_nothing(two_kinds: tuple[Path, str], tmp_path):
    db, _ = two_kinds
    out = tmp_path / "site"
    render_site(db, out)
    with Store(db, create=False) as store:
        done = update(store, out)
    assert (done.written, done.removed) == (0, 0) and done.kept > 10


def test_pages_are_replaced_whole(two_kinds: tuple[Path, str], tmp_path: Path) -> None:
    db, tid = two_kinds
    out = tmp_path / "site"
    render_site(db, out)
    old = (out / "index.html").read_bytes()
    with (out / "index.html").open("rb") as reader:  # a reader in the middle of the page
        head = reader.read(100)
        _one_more_set(db, tid, ["ace", "bea", "cy"])
        with Store(db, create=False) as store:
            update(store, out)
        rest = reader.read()
    # The reader finished the page it had started (the new one is another file, moved over
    # the old name in one step): old and complete, never half of each.
    assert head + rest == old
    new = (out / "index.html").read_bytes()
    assert new != old and new.rstrip().endswith(b"</html>")
    assert not [p for p in out.rglob("*") if p.name.startswith(".tmp-")]


def test_replays_are_kept_for_the_latest_matches_only(
    two_kinds: tuple[Path, str], tmp_path: Path
) -> None:
    db, tid = two_kinds
    out = tmp_path / "site"
    render_site(db, out, replays=4)
    with Store(db, create=False) as store:
        latest = {
            t.tournament.id: [m.id for m in store.match_page_rows(tid=t.tournament.id, limit=4)]
            for t in store.tournaments()
        }
        ids = [m.id for m in store.match_rows(tid=tid)]
    kept = sorted(p.stem for p in (out / "matches").glob("*.html"))
    assert kept == sorted(m for ids in latest.values() for m in ids)
    manifest = json.loads((out / MANIFEST).read_text())
    assert {p for p in manifest["pages"] if p.startswith("matches/")} == {
        f"matches/{m}.html" for m in kept
    }
    # The ladder's page links every match of its latest sets: the 4 latest are files, the
    # others are rendered on request by `arena serve` (tests/test_site_serve.py).
    page = soup(out / "tournaments" / f"{tid}.html")
    linked = {a["href"] for a in page.select("table.ladder-sets a[href*='matches/']")}
    assert linked == {f"../matches/{m}.html" for m in ids} and len(ids) == 36
    assert sum((out / "matches" / f"{m}.html").is_file() for m in ids) == 4


def test_a_negative_bound_is_refused(two_kinds: tuple[Path, str], tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="replay pages"):
        render_site(two_kinds[0], tmp_path / "site", replays=-1)


def test_ladder_page(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid = store_ladder(db, LADDER_BOTS, sets=8, epoch_sets=3, running=1, replace="bea",
                       retire="dot")  # fmt: skip
    out = tmp_path / "site"
    render_site(db, out)
    page = soup(out / "tournaments" / f"{tid}.html")
    assert page.h1.get_text(" ", strip=True).startswith(f"Ladder {tid}")
    with Store(db, create=False) as store:
        field = {m.version_id: m.name for m in store.ladder_members(tid) if m.left_reason is None}
        ratings = store.read_standings(tid)[0]
        finished = [s for s in store.ladder_sets(tid) if s.finished_at is not None]
        epochs = store.ladder_epochs(tid)
    # The order is the stored standings', with their intervals: the bots that left keep
    # their rank (no gap in the ranks), marked with why they left.
    ordered = sorted(ratings, key=lambda r: (r["rank"] is None, r["rank"] or 0, r["name"]))
    rows = page.select("table.ladder-field tbody tr")
    assert texts([r.select_one("a.bot") for r in rows]) == [r["name"] for r in ordered]
    marks = {
        texts([r.select_one("a.bot")])[0]: texts(r.select(".tag.retired, .tag.left"))
        for r in rows
        if "left-field" in (r.get("class") or [])
    }
    assert marks.get("dot") == ["retired"], marks
    in_field = [r for r in rows if "left-field" not in (r.get("class") or [])]
    assert sorted(texts([r.select_one("a.bot") for r in in_field])) == sorted(field.values())
    # Sets per bot, counted independently from ladder_sets.
    sets = {name: sum(v in s.bots for s in finished) for v, name in field.items()}
    shown = {texts([r.select_one("a.bot")])[0]: int(r.select("td")[3].get_text()) for r in in_field}
    assert shown == sets and sum(sets.values()) > 0
    # A bot of the field with fewer than PROVISIONAL_SETS sets says so, with its count (a bot
    # that left carries its "retired" mark instead).
    assert not any(r.select_one(".provisional") for r in rows if r not in in_field)
    for r in in_field:
        name, cell = texts([r.select_one("a.bot")])[0], r.select("td")[2]
        tag = cell.select_one(".provisional")
        if sets[name] < PROVISIONAL_SETS:
            assert tag is not None
            assert tag.get_text() == f"provisional ({sets[name]} of {PROVISIONAL_SETS} sets)"
        else:
            assert tag is None
    assert "1500 is the plain mean of the rated bots’ ratings" in page.get_text(" ")
    for r in rows:
        assert re.search(r"\d", r.select("td")[2].get_text())  # a rating and its interval
    # No run holds it: paused, nothing "playing now"; the set a stop cut short (step 8) is
    # named as the first to play when it runs again.
    assert not page.select("ul.running li")
    paused = page.select_one("p.paused").get_text(" ", strip=True)
    assert "not running" in paused and "step 8" in paused
    # Every reason in the "Why" column is explained in the legend under it.
    why = set(texts(page.select("table.ladder-sets abbr.why")))
    legend = texts(page.select("dl.why-legend dt"))
    assert why and why <= set(legend), (why, legend)
    # The latest sets, newest first, each linking its six matches.
    steps = [int(r.select_one("td").get_text()) for r in page.select("table.ladder-sets tbody tr")]
    assert steps == list(range(7, -1, -1))
    assert all(
        len(r.select("td:last-child a")) == 6 for r in page.select("table.ladder-sets tr")[1:]
    )
    # Epochs: the closed ones show their secret, the open one only its commitment.
    html = (out / "tournaments" / f"{tid}.html").read_text()
    assert len(epochs) == 3
    for e in epochs:
        assert e.secret.commitment in html
        assert (e.secret.secret.hex() in html) == (e.closed_at is not None)
    assert any(e.closed_at is None for e in epochs)
    # The versions that left: bea's first (replaced) and dot (retired).
    left = {
        tuple(texts(r.select("td"))[i] for i in (0, 2))
        for r in page.select("table.ladder-left tbody tr")
    }
    assert left == {("bea", "replaced"), ("dot", "retired")}
    # A ladder's matches count on its bots' pages.
    assert soup(out / "bots" / "ace.html").select("table.matches tbody tr a[href*='matches/']")


def play_stats(hands: Sequence[Mapping[str, Any]], seat: int) -> dict[str, int]:
    """The oracle of the stored play counts: one seat's counts over a match's hands (hands,
    made trump, went alone, made it, euchred, defended), read from the hands themselves."""
    out = {"hands": 0, "maker": 0, "alone": 0, "made": 0, "euchred": 0, "defended": 0}
    for h in hands:
        if h["trump"] is None:
            continue
        out["hands"] += 1
        if seat in h["alone"]:
            out["alone"] += 1
        if h["maker"] == seat:
            out["maker"] += 1
            if h["points"][seat] > 0:
                out["made"] += 1
            else:
                out["euchred"] += 1
        elif h["points"][seat] > 0:
            out["defended"] += 1
    return out


def test_bot_play_counts_equal_the_replays(two_kinds: tuple[Path, str]) -> None:
    db, _ = two_kinds
    with Store(db, create=False) as store:
        for name in ("ace", "rr2"):
            v = _version_id(store, name)
            want = {"hands": 0, "maker": 0, "alone": 0, "made": 0, "euchred": 0, "defended": 0}
            for match in store.match_rows(versions=[v]):
                for k, n in play_stats(store.hand_records(match.id), match.bots.index(v)).items():
                    want[k] += n
            assert dataclasses.asdict(store.play_counts([v])) == want and want["hands"] > 0


def test_render_command_keeps_the_library_bound(two_kinds: tuple[Path, str], tmp_path: Path):
    db, _ = two_kinds
    (option,) = [p for p in render_command.params if p.name == "replays"]
    assert option.default == RECENT_REPLAYS
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["render", "--db", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(
        main, ["render", "--db", str(db), "--out", str(out), "--replays", "1", "--full"]
    )
    assert result.exit_code == 0, result.output
    assert len(list((out / "matches").glob("*.html"))) == 2  # one per tournament
    result = CliRunner().invoke(main, ["render", "--db", str(db), "--replays", "-1"])
    assert result.exit_code == 2 and "--replays" in result.output


def test_a_ladder_on_the_leaderboard(two_kinds: tuple[Path, str], tmp_path: Path) -> None:
    db, tid = two_kinds
    render_site(db, tmp_path / "site")
    index = soup(tmp_path / "site" / "index.html")
    lede = " ".join(index.select_one("p.lede").get_text(" ", strip=True).split())
    assert lede.startswith(f"Ladder {tid}") and "36 matches so far" in lede and " of " not in lede
    with Store(db, create=False) as store:
        rated = sorted(store.read_standings(tid)[0], key=lambda r: r["rank"])
    assert texts(index.select("table.standings a.bot")) == [r["name"] for r in rated]
