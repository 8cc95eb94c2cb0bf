"""The duplicate reports where users see them: ``arena standings`` (text and JSON) and the site.

Hand-computed values on a small database; then the same reports through the real console
script and in the rendered pages, which must all show one computation.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from cli_support import arena, ok
from compare_support import store_comparison, store_small_tournament
from site_support import soup, store_tournament, texts

from arena.site.render import make_env
from arena.stats import BotStanding, Pair
from arena.stats.duplicate import seat_records
from arena.store import Store
from arena.tournaments.standings import current_standings
from arena.views import reports

T1 = 12.706204736174698  # Student's t quantile 0.975 with 1 degree of freedom (tables)


@pytest.fixture
def small(tmp_path: Path) -> tuple[Path, str]:
    """The small tournament of compare_support (two deals of a, b, c)."""
    db = tmp_path / "arena.db"
    return db, store_small_tournament(db)


def test_the_reports_of_a_small_database_by_hand(small: tuple[Path, str]) -> None:
    db, tid = small
    with Store(db, create=False) as store:
        got = reports.tournament_reports(store, tid)
    doc = got.to_dict()
    # Duplicate scores (worked out in tests/test_duplicate_reports.py): bot a -5/4 with a
    # standard error of 1.75 over the two units (deals), bot b +5/4; c has no par (alone in
    # seat 2). The count of units is "units", the word every statistic uses for its samples.
    scores = {d["name"]: d for d in doc["duplicate"]["bots"]}
    assert list(scores) == ["b", "a"]
    assert scores["a"]["score"] == {
        "value": -1.25, "low": round(-1.25 - T1 * 1.75, 4), "high": round(-1.25 + T1 * 1.75, 4),
        "units": 2,
    }  # fmt: skip
    # Raw points: a 13 and 8 over two seats per deal, b 11 and 20. Luck share: each bot's
    # points against the other's on the same cards, co-moments -0.75 and -0.75, second
    # moments 38.75 and 24.75 (tests/test_duplicate_reports.py): pooled -1.5 / 63.5.
    assert scores["a"]["points"]["value"] == 5.25 and scores["b"]["points"]["value"] == 7.75
    assert got.luck_share == pytest.approx(-1.5 / 63.5)
    assert doc["duplicate"]["luck_share"] == round(-1.5 / 63.5, 3)
    # Seat bias: dealer seat 0 in deal x and seat 2 in deal y. By deal, the dealer's mean
    # place is 1.5 and 2.5, the left's 3 and 2, the right's 1.5 and 1.5: means 2, 2.5, 1.5,
    # standard errors 0.5, 0.5 and 0. The right's edge (-0.5, no spread) is significant, the
    # others' intervals (+-12.706 * 0.5) are wide.
    bias = doc["seat_bias"]
    assert [p["name"] for p in bias["positions"]] == ["dealer", "dealer's left", "dealer's right"]
    assert [p["matches"] for p in bias["positions"]] == [4, 4, 4]
    assert [p["place"]["value"] for p in bias["positions"]] == [2.0, 2.5, 1.5]
    assert [p["edge"]["value"] for p in bias["positions"]] == [0.0, 0.5, -0.5]
    assert bias["positions"][1]["edge"]["low"] == round(0.5 - T1 * 0.5, 4)
    assert bias["positions"][2]["edge"]["low"] == bias["positions"][2]["edge"]["high"] == -0.5
    assert bias["favoured"] == ["dealer's right"] and bias["disfavoured"] == []
    assert bias["verdict"] == (
        "the game as configured favours the dealer's right (mean place 1.500, -0.500 against "
        "the average), over 2 deals"
    )
    assert doc["cycles"] == []


def test_a_cycle_is_named_by_its_bots() -> None:
    def bot(i: int, name: str, beats: int) -> BotStanding:
        return BotStanding(i, name, matches=24, rank=1, above={beats: Pair(24, 16, 4, 0.56, 0.8)})

    table = [bot(1, "rock", 2), bot(2, "scissors", 3), bot(3, "paper", 1)]
    got = reports.build([], table)
    (cycle,) = got.cycles
    assert got.cycle_names(cycle) == ["rock", "scissors", "paper"]
    assert got.to_dict()["cycles"] == [
        {"bots": ["rock", "scissors", "paper"], "intervals": [[0.56, 0.8]] * 3}
    ]
    (line,) = reports.cycle_lines(got)
    assert line.startswith("Cycle: rock > scissors > paper > rock (every edge significant")
    assert got.scores == () and got.luck_share is None
    # The site's panel reads each edge's Interval (the same template as the pages).
    html = make_env().get_template("_partials/duplicate.html").render(duplicate=got, refs={})
    (item,) = BeautifulSoup(html, "html.parser").select("ul.cycles li")
    assert "rock > scissors > paper > rock" in item.get_text(" ", strip=True).replace("  ", " ")
    assert item.select_one(".hint").get_text() == "(placed above: 56%–80%, 56%–80%, 56%–80%)"


def test_standings_prints_and_exports_the_same_reports(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    tid = store_tournament(db, [("a", None), ("b", None), ("c", None), ("d", None)], rounds=2)
    with Store(db, create=False) as store:
        table = current_standings(store, tid)
        want = reports.build(seat_records(store.duplicate_seats(tid)), table).to_dict()
    doc = json.loads(ok(arena("standings", "--json", "--db", db, cwd=tmp_path)))
    assert {k: doc[k] for k in ("duplicate", "seat_bias", "cycles")} == want
    assert doc["tournament"] == tid and len(doc["duplicate"]["bots"]) == 4
    assert all(b["matches"] == 36 for b in doc["duplicate"]["bots"])  # 3 sets x 2 rounds x 6
    text = ok(arena("standings", "--db", db, cwd=tmp_path))
    assert "Duplicate score: points minus the par of the same cards" in text
    assert "Seat and dealer bias" in text
    assert f"Seat bias verdict: {want['seat_bias']['verdict']}\n" in text
    assert "No non-transitive cycle with every edge significant." in text
    best = want["duplicate"]["bots"][0]
    assert f"{best['score']['value']:+.2f} [{best['score']['low']:+.2f}," in text


# --- the site ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Any]:
    """A round robin, then a comparison (newer), rendered by ``arena render``."""
    root = tmp_path_factory.mktemp("reports-site")
    db = root / "arena.db"
    tid = store_tournament(db, [("a", None), ("b", None), ("c", None)], rounds=3)
    compared = store_comparison(db)
    ok(arena("render", "--db", db, "--out", root / "site", cwd=root))
    return root, tid, compared


def test_the_comparison_stays_off_the_leaderboard(site: tuple[Path, str, Any]) -> None:
    root, tid, compared = site
    page = soup(root / "site" / "index.html")
    assert page.select_one(".hero .lede a code").get_text() == tid  # the round robin
    assert sorted(texts(page.select("table.standings a.bot"))) == ["a", "b", "c"]
    (row,) = page.select("table.comparisons tbody tr")
    cells = texts(row.select("td"))
    assert cells[0].startswith(compared.tid) and cells[1:4] == ["heuristic", "random", "heuristic"]
    assert cells[4] == str(compared.test.sets) and cells[5] == "H1"
    kinds = texts(
        page.select("section h2 + .table-scroll table:not(.comparisons) tbody td:nth-of-type(2)")
    )
    assert sorted(kinds) == ["comparison", "round robin"]
    # A comparison has no standings of its own (`arena render` refreshed only the round robin).
    with Store(root / "arena.db", create=False) as store:
        assert store.read_standings(compared.tid) == ([], [])


def test_the_comparison_page_shows_its_chart_and_verdict(site: tuple[Path, str, Any]) -> None:
    root, _, compared = site
    page = soup(root / "site" / "tournaments" / f"{compared.tid}.html")
    assert texts(page.select(".decision")) == [compared.verdict() + "."]
    assert "decision-h1" in page.select_one(".decision")["class"]
    facts = dict(zip(texts(page.select(".test-state dt")), texts(page.select(".test-state dd")),
                     strict=True))  # fmt: skip
    assert facts["Sets counted"] == f"{compared.test.sets} ({compared.matches} matches stored)"
    assert facts["Evidence"].startswith(f"{compared.test.llr:+.2f}")
    # The chart: each gambler's evidence after each set from 0, and the two bounds.
    svg = page.select_one("#llr-chart-title").find_parent("svg")
    lines = svg.select("polyline")
    assert [len(p["points"].split()) for p in lines[:2]] == [compared.test.sets + 1] * 2
    assert [len(p["points"].split()) for p in lines[2:]] == [2, 2]
    assert texts(page.select(".legend .name")) == [
        "against p <= 0.5", "against p >= 0.75 (drawn down)", "accept H1 at +3.00",
        "accept H0 at -3.00",
    ]  # fmt: skip
    # The interval beside "H1 accepted" lies above p0: one construction for both.
    assert compared.test.decision == "H1" and compared.result.ci.low > 0.5
    roles = [texts(r.select("td")) for r in page.select("table.roles tbody tr")]
    assert [r[0] for r in roles] == ["A", "B", "third seat"]
    a = compared.roles[0]
    assert roles[0][2:5] == [str(a.matches), str(a.wins), f"{a.mean_place:.2f}"]
    assert page.select_one("#deals") is not None  # the deal commitment, as any tournament


def test_the_round_robin_pages_show_the_reports(site: tuple[Path, str, Any]) -> None:
    root, tid, _ = site
    with Store(root / "arena.db", create=False) as store:
        want = reports.tournament_reports(store, tid)
    for path in (root / "site" / "index.html", root / "site" / "tournaments" / f"{tid}.html"):
        page = soup(path)
        panel = page.select_one("#duplicate")
        rows = [texts(r.select("td")) for r in panel.select("table.duplicate-scores tbody tr")]
        assert [r[0] for r in rows] == [want.names[d.bot] for d in want.scores]
        first = want.scores[0].score
        assert rows[0][1] == f"{first.value:+.2f} [{first.low:+.2f}, {first.high:+.2f}]"
        bias = [texts(r.select("td"))[0] for r in panel.select("table.seat-bias tbody tr")]
        assert bias == ["dealer", "dealer's left", "dealer's right"]
        assert texts(panel.select(".bias-verdict")) == [f"Verdict: {want.bias.verdict}."]
        assert panel.select_one(".no-cycles") is not None


def test_reports_stored_by_another_version_are_made_again(tmp_path: Path) -> None:
    # A stored report of the same matches but another version (here: the variance ratio's
    # fields, no version) is a cache of other numbers: made again, not decoded.
    from arena.views.reports import VERSION, tournament_reports

    db = tmp_path / "arena.db"
    tid = store_tournament(db, [("a", None), ("b", None), ("c", None)], rounds=2, seed=9)
    with Store(db) as store:
        made = tournament_reports(store, tid)
        reports = store.read_reports(tid)
    assert reports is not None and reports.body["version"] == VERSION
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE reports SET body = ? WHERE tournament_id = ?",
            ('{"duplicate": {"scale": 1.0}}', tid),
        )
    with Store(db) as store:
        assert tournament_reports(store, tid) == made
        again = store.read_reports(tid)
        assert again is not None and again.body["version"] == VERSION


def test_a_read_command_writes_nothing_even_with_no_cache(tmp_path: Path) -> None:
    # The standings, reports and collusion tables are caches of the matches: a read with none
    # of them stored computes and shows them, and leaves the database as it found it.
    db = tmp_path / "arena.db"
    store_tournament(db, [("a", None), ("b", None), ("c", None)], rounds=2, seed=9)
    with sqlite3.connect(db) as conn:
        for table in ("reports", "ratings", "pairwise", "clone_pairs", "kingmaking"):
            conn.execute(f"DELETE FROM {table}")
        before = list(conn.iterdump())
    conn.close()
    for command in (
        ["standings"],
        ["standings", "--json"],
        ["standings", "--collusion", "--json"],
        ["tournaments", "--json"],
        ["matches", "--json"],
        ["faults", "--json"],
    ):
        assert ok(arena(*command, "--db", db, cwd=tmp_path)).strip(), command
        with sqlite3.connect(db) as conn:
            assert list(conn.iterdump()) == before, command
        conn.close()
