"""The standings site rendered from a real database, parsed and checked page by page."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from jinja2 import StrictUndefined, UndefinedError
from site_support import RUN_BOTS, run_tournament, soup, texts

from arena.cards import sort_cards, trick_winner
from arena.cli import main
from arena.site import render_site
from arena.site.data import without_source_lines
from arena.site.render import make_env
from arena.store import Store

BOTS = list(RUN_BOTS)
FAULTY = "crashy"
FAULT_MESSAGE = "RuntimeError: crashy gives up in the second hand"
LOG_TEXT = "crashy thinks about"


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real ``arena run`` of four bots; its site re-rendered with ``--with-logs``."""
    root = run_tournament(tmp_path_factory.getbasetemp() / "arena-run")
    store = Store(root / "arena.db", create=False)
    out = root / "site-logs"
    return {"db": root / "arena.db", "tid": store.tournament().id, "index": out / "index.html",
            "out": out, "run_site": root / "site", "store": store}  # fmt: skip


def stored(built: dict[str, Any]) -> Store:
    store: Store = built["store"]
    return store


def version_names(built: dict[str, Any]) -> dict[int, str]:
    return {v.id: v.name for v in stored(built).version_refs()}


AUTHORS = {"random": "Euchre Arena", "heuristic": "Euchre Arena", "last": "Site tests",
           "crashy": "Site tests"}  # fmt: skip


def bot_ids(built: dict[str, Any]) -> dict[str, int]:
    return {b.name: b.id for b in stored(built).bot_rows()}


def test_render_writes_every_page(built: dict[str, Any]) -> None:
    out: Path = built["out"]
    assert (built["run_site"] / "index.html").is_file()  # arena run renders at the end
    assert (out / "h2h.html").is_file()
    assert (out / "tournaments" / f"{built['tid']}.html").is_file()
    for name, bot_id in bot_ids(built).items():
        assert soup(out / "bots" / f"{name}.html").h1.get_text(strip=True) == name
        assert not (out / "bots" / f"{bot_id}.html").exists()  # one page a bot, by name
    match_ids = [m.id for m in stored(built).match_rows()]
    assert len(match_ids) == 4 * 6  # C(4,3) sets x 1 round x 6 seatings
    assert sorted(p.stem for p in (out / "matches").glob("*.html")) == sorted(match_ids)
    for asset in ("site.css", "site.js", "favicon.svg"):
        assert (out / "static" / asset).stat().st_size > 0


def test_pages_use_nothing_remote(built: dict[str, Any]) -> None:
    # The site must work from file:// and any static host: no CDN, no absolute URLs.
    for page in built["out"].rglob("*.html"):
        doc = soup(page)
        for tag in doc.find_all(src=True) + doc.find_all(href=True):
            url = tag.get("src") or tag.get("href")
            assert not re.match(r"^(https?:)?//", url), (page, url)
            assert not url.startswith("/"), (page, url)
            if not url.startswith("#"):
                target = (page.parent / unquote(url.split("#")[0])).resolve()
                assert target.is_file(), (page, url)


def test_leaderboard(built: dict[str, Any]) -> None:
    doc = soup(built["index"])
    table = doc.select_one("table.standings")
    assert table is not None and "sortable" in table["class"]
    headers = texts(table.select("thead th"))
    assert headers[:2] == ["#", "Bot"] and "Faults" in headers and "Version" in headers
    rows = table.select("tbody tr")
    db_rows = sorted(stored(built).read_standings(built["tid"])[0], key=lambda r: r["rank"])
    assert len(rows) == len(BOTS) == len(db_rows)
    for tr, r in zip(rows, db_rows, strict=True):
        cells = tr.find_all("td")
        assert cells[0].get_text(strip=True) == str(r["rank"])
        assert cells[1].a.get_text(strip=True) == r["name"]
        assert cells[1].get_text(" ", strip=True).endswith(f"by {AUTHORS[r['name']]}")
        rating = cells[2].get_text(" ", strip=True)
        if r["rating_bound"] == "upper":  # never placed above a rated bot: a bound only
            assert rating == f"\u2264\u00a0{r['rating_high']:,.0f}"
        elif r["rating_bound"] == "lower":  # never placed below a rated bot
            assert rating == f"\u2265\u00a0{r['rating_low']:,.0f}"
        else:
            assert f"{r['rating']:,.0f}" in rating
            assert f"{r['rating_low']:,.0f}\u2013{r['rating_high']:,.0f}" in rating
        assert cells[3].get_text(strip=True) == str(r["matches"])
        assert cells[4].get_text(strip=True) == str(r["wins"])
        assert cells[6].get_text(strip=True) == f"{r['mean_place']:.2f}"
        assert cells[7].get_text(strip=True) == str(r["faults"])
        assert cells[8].get_text(" ", strip=True).startswith("v1")
    faulty = next(tr for tr in rows if tr.find_all("td")[1].a.get_text(strip=True) == FAULTY)
    _, n = stored(built).fault_listing(bot=FAULTY)
    assert n > 0 and faulty.find_all("td")[7].get_text(strip=True) == str(n)
    assert "bad" in faulty.find_all("td")[7]["class"]
    # What the note says 1500 is, is what it is: the plain mean of the stored ratings of the
    # rated bots (those with a two-sided interval), as on the ladder's page.
    note = doc.select_one("p.note").get_text(" ", strip=True)
    assert (
        "1500 is the plain mean of the rated bots’ ratings, those with a two-sided interval" in note
    )
    rated = [
        r["rating"] for r in db_rows if r["rating_low"] is not None and r["rating_high"] is not None
    ]
    assert len(rated) >= 2 and sum(rated) / len(rated) == pytest.approx(1500, abs=1e-6)


def test_leaderboard_charts(built: dict[str, Any]) -> None:
    doc = soup(built["index"])
    rating_svg = doc.select_one("svg.line-chart")
    assert rating_svg is not None
    # A line per bot that had a rating at some point: every bot rated at the end has one;
    # FAULTY forfeits every match, so it only ever has an upper bound and no line.
    ratings = stored(built).read_standings(built["tid"])[0]
    final = {r["name"] for r in ratings if r["rating"] is not None}
    legend = set(texts(rating_svg.find_parent("figure").select(".legend .key")))
    assert final and final <= legend <= set(BOTS) - {FAULTY}
    assert len(rating_svg.select("polyline")) == len(legend)
    places = doc.select_one("svg.place-chart")
    assert places is not None
    assert sorted(texts(places.select(".bar-label"))) == sorted(BOTS)
    titles = texts(places.select("rect title"))
    names = version_names(built)
    for c in stored(built).place_counts(built["tid"]):
        title = (
            f"{names[c.version_id]}: {c.place}{['st', 'nd', 'rd'][c.place - 1]} {c.matches} of 18"
        )
        assert title in " ".join(titles)


def test_head_to_head_matrix(built: dict[str, Any]) -> None:
    doc = soup(built["out"] / "h2h.html")
    matrix = doc.select_one("table.matrix")
    assert matrix is not None
    order = texts(matrix.select("tbody th[scope=row]"))
    assert len(order) == len(BOTS)
    ids = {name: v for v, name in version_names(built).items()}
    pairwise = stored(built).read_standings(built["tid"])[1]
    for tr, row_name in zip(matrix.select("tbody tr"), order, strict=True):
        cells = tr.find_all("td")
        for cell, col_name in zip(cells, order, strict=True):
            if col_name == row_name:
                assert "self" in cell["class"]
                continue
            (p,) = [
                r for r in pairwise if (r["bot_a"], r["bot_b"]) == (ids[row_name], ids[col_name])
            ]
            assert cell.strong.get_text() == f"{100 * p['rate']:.0f}%"
            assert cell.select_one(".n").get_text() == str(p["matches"])
            assert cell["style"].startswith("background: hsl(")


def test_bot_page(built: dict[str, Any]) -> None:
    doc = soup(built["out"] / "bots" / "last.html")
    assert doc.h1.get_text(strip=True) == "last"
    assert "by Site tests" in doc.select_one(".lede").get_text(" ", strip=True)
    v = stored(built).latest_version("last")
    assert v is not None and v.version == 1
    page_text = doc.get_text(" ", strip=True)
    assert v.sha256[:12] in page_text
    # No page publishes any bot's source (only its hash).
    sources = [stored(built).bot_version(r).source for r in version_names(built)]
    for page in built["out"].rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not any(src.strip() in html for src in sources), page
    opponents = texts(doc.select("h2:-soup-contains('Results by opponent') + div tbody td a"))
    assert sorted(opponents) == ["crashy", "heuristic", "random"]
    # Play statistics agree with the hands table.
    stats = dict(
        zip(texts(doc.select(".stat-label")), texts(doc.select(".stat-value")), strict=True)
    )
    seats = [
        (s, h)
        for m in stored(built).match_rows(versions=[v.id])
        for s in range(3)
        if m.bots[s] == v.id
        for h in stored(built).match(m.id)[1]
    ]
    maker = sum(1 for s, h in seats if h["maker"] == s)
    played = sum(1 for s, h in seats if h["trump"] is not None)
    alone = sum(1 for s, h in seats if s in h["alone"])
    euchred = sum(1 for s, h in seats if h["maker"] == s and h["points"][s] == 0)
    assert stats["matches"] == "18"
    assert f"of hands it made trump ({maker} of {played})" in stats
    assert stats["times went alone"] == str(alone)
    assert stats["times euchred as maker"] == str(euchred)
    assert doc.find(string=re.compile("No faults"))
    assert doc.find(string=re.compile("It printed nothing"))
    assert len(doc.select("svg.line-chart polyline")) == 1
    bar = texts(doc.select("svg.place-chart rect title"))
    assert bar and all(t.startswith(built["tid"][:12]) and "of 18" in t for t in bar)


def test_bot_page_shows_think_time_wall_and_cpu(built: dict[str, Any]) -> None:
    """Per decision asked (mean, slowest) and per match (mean, most), wall and CPU: the
    figures the database holds for the bot's seats."""
    doc = soup(built["out"] / "bots" / "last.html")
    table = doc.select_one("h2:-soup-contains('Think time') + div table.think-time")
    assert table is not None
    assert texts(table.select("thead th")) == ["", "Wall", "CPU"]
    shown = {
        tr.th.get_text(strip=True): [td.get_text(strip=True) for td in tr.find_all("td")]
        for tr in table.select("tbody tr")
    }
    v = stored(built).latest_version("last")
    assert v is not None
    seats = (
        stored(built)
        .conn.execute(
            "SELECT asked, think_seconds, max_think_seconds, cpu_seconds, max_cpu_seconds, "
            "clock_seconds FROM match_seats WHERE bot_version_id = ?",
            (v.id,),
        )
        .fetchall()
    )
    asked = sum(r[0] for r in seats)
    n = len(seats)
    assert n == 18 and asked > 0
    assert shown == {
        "mean per decision": [
            f"{1000 * sum(r[1] for r in seats) / asked:,.1f} ms",
            f"{1000 * sum(r[3] for r in seats) / asked:,.1f} ms",
        ],
        "slowest decision": [
            f"{1000 * max(r[2] for r in seats):,.1f} ms",
            f"{1000 * max(r[4] for r in seats):,.1f} ms",
        ],
        "mean per match": [
            f"{sum(r[5] for r in seats) / n:,.2f} s",
            f"{sum(r[3] for r in seats) / n:,.2f} s",
        ],
        "most in a match": [
            f"{max(r[5] for r in seats):,.2f} s",
            f"{max(r[3] for r in seats):,.2f} s",
        ],
    }
    # The fixture's seats differ by seat: the figures are the bot's own, not a constant.
    assert len({r[5] for r in seats}) > 1


def test_faulty_bot_page_lists_faults(built: dict[str, Any]) -> None:
    doc = soup(built["out"] / "bots" / f"{FAULTY}.html")
    rows = doc.select("table.faults tbody tr")
    listed, _ = stored(built).fault_listing(bot=FAULTY)
    faults = sorted((r.fault for r in listed), key=lambda f: (f.tournament_id, f.match_id, f.seat))
    assert len(rows) == len(faults) > 0
    for tr, f in zip(rows, faults, strict=True):
        cells = texts(tr.find_all("td"))
        assert cells[0] == f.match_id and cells[2] == f.kind == "crash"
        assert f.decision is not None and cells[3] == str(f.decision + 1)  # from 1, as arena faults
        shown = tr.pre.get_text()
        assert shown.startswith(FAULT_MESSAGE) and shown == without_source_lines(f.message)
        # The traceback's frames stay, the bot's quoted source line does not.
        assert 'crashy.py", line' in shown and "raise RuntimeError" in f.message
        assert "raise RuntimeError" not in shown
        href = tr.a["href"]
        assert (built["out"] / "bots" / href).resolve().is_file()


def test_match_page(built: dict[str, Any]) -> None:
    m = min((m for m in stored(built).match_rows() if m.faults == 0), key=lambda m: m.id)
    names = version_names(built)
    doc = soup(built["out"] / "matches" / f"{m.id}.html")
    seat_rows = doc.select("table.seats tbody tr")
    for s, tr in enumerate(seat_rows):
        cells = tr.find_all("td")
        assert cells[1].a.get_text(strip=True) == names[m.bots[s]]
        assert cells[2].get_text(strip=True) == str(m.scores[s])
        assert cells[3].get_text(strip=True).startswith(f"{m.places[s]}")
        seat = stored(built).seat_rows(m.id)[s]
        assert cells[6].get_text(strip=True) == (
            f"{seat.clock_seconds:,.2f} s / {seat.cpu_seconds:,.2f} s"
        )
    _, hands = stored(built).match(m.id)
    articles = doc.select("article.hand")
    assert len(articles) == len(hands) == m.hands_played
    for art, h in zip(articles, hands, strict=True):
        seat_boxes = art.select(".seat-box")
        for s, box in enumerate(seat_boxes):
            shown = sorted(c["title"] for c in box.select(".card"))
            assert shown == sorted(h["deal"]["hands"][s])
        # Cards hidden during the hand are shown only in their own box, after the hand.
        hidden = art.select_one("section.hidden-info").extract()
        assert not {c["title"] for c in art.select(".card")} & set(h["deal"]["kitty"][1:])
        dummy = [c["title"] for c in hidden.select(".hidden-cards.dummy .card")]
        assert dummy == sort_cards(h["deal"]["dummy"])
        kitty = [c["title"] for c in hidden.select(".hidden-cards.kitty .card")]
        turned_down = [] if h["pickup"] and h["trump"] else h["deal"]["kitty"][:1]
        assert sorted(kitty) == sorted(h["deal"]["kitty"][1:] + turned_down)
        discards = [c["title"] for c in hidden.select(".hidden-cards.discard .card")]
        assert sorted(discards) == sorted(c for seat in h["discards"] for c in seat)
        assert len(art.select("ol.bids li")) == len(h["bids"])
        tricks = art.select("tr.trick")
        if h["trump"] is None:
            assert not tricks and art.select_one(".verdict.passed")
            continue
        assert len(tricks) == len(h["tricks"])
        for tr, t in zip(tricks, h["tricks"], strict=True):
            assert [c["title"] for c in tr.select(".play .card")] == [c for _, c in t["cards"]]
            assert t["winner"] == trick_winner(t["cards"], h["trump"])
            win = tr.select_one(".play.wins .card")
            assert win is not None and win["title"] == dict(t["cards"])[t["winner"]]
            assert tr.find_all("td")[-1].get_text(strip=True) == names[m.bots[t["winner"]]]
        # Cards marked "from the dummy" are the maker's, and were not in the maker's deal.
        maker_name = names[m.bots[h["maker"]]]
        for mark in art.select(".from-dummy"):
            play = mark.find_parent(class_="play")
            assert play.select_one(".who").get_text(strip=True).startswith(maker_name[:15])
            assert play.select_one(".card")["title"] not in h["deal"]["hands"][h["maker"]]
    chart = doc.select_one("svg.line-chart")
    assert chart is not None and len(chart.select("polyline")) == 3


def test_match_page_of_a_fault(built: dict[str, Any]) -> None:
    m = min((m for m in stored(built).match_rows() if m.faults == 1), key=lambda m: m.id)
    doc = soup(built["out"] / "matches" / f"{m.id}.html")
    items = texts(doc.select("ul.fault-list li"))
    assert len(items) == 1 and FAULTY in items[0] and FAULT_MESSAGE in items[0]
    logs = doc.select("details.log")
    assert len(logs) == 1 and LOG_TEXT in logs[0].pre.get_text()
    assert "forfeit: crash" in doc.select_one("table.seats").get_text(" ", strip=True)


def test_tournament_page(built: dict[str, Any]) -> None:
    doc = soup(built["out"] / "tournaments" / f"{built['tid']}.html")
    facts = dict(
        zip(texts(doc.select("dl.facts dt")), texts(doc.select("dl.facts dd")), strict=True)
    )
    assert facts["Seed"] == "11"
    assert facts["Rounds"].startswith("1 deal seed")
    assert facts["deck"] == "24" and facts["target"] == "10"
    assert "24 of 24 matches played (100%)" in doc.select_one(".lede").get_text(" ", strip=True)
    assert "finished" in doc.h1.get_text()
    links = {a["href"] for a in doc.select("table.matches a[href^='../matches/']")}
    assert len(links) == 24
    assert sorted(texts(doc.select("ul.chips a.bot"))) == sorted(BOTS)


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("TimeoutError: no answer in 1.0 s", "TimeoutError: no answer in 1.0 s"),
        (
            'Traceback (most recent call last):\n  File "/bot/b.py", line 3, in act\n'
            "    return secret_strategy(obs)\n           ^^^^^^^^^^^^^^^\nKeyError: 'x'",
            'Traceback (most recent call last):\n  File "/bot/b.py", line 3, in act\n'
            "KeyError: 'x'",
        ),
        ("    indented text, no frame\nsecond", "    indented text, no frame\nsecond"),
    ],
    ids=["plain", "traceback", "no-frame"],
)
def test_fault_messages_lose_quoted_source(message: str, shown: str) -> None:
    assert without_source_lines(message) == shown


def test_templates_are_strict_and_autoescaped() -> None:
    env = make_env()
    assert env.undefined is StrictUndefined
    assert env.autoescape is True
    with pytest.raises(UndefinedError):
        env.get_template("leaderboard.html").render(root="", page_path="index.html")
    macros = env.from_string(
        '{% from "_partials/macros.html" import bot_link with context %}{{ bot_link(b) }}'
    )

    class Ref:
        href = "bots/1.html"
        name = '"><script>alert(1)</script>'

    html = macros.render(b=Ref(), root="")
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_logs_are_published_only_on_request(built: dict[str, Any], tmp_path: Path) -> None:
    render_site(built["db"], tmp_path, with_logs=False)
    for page in [*tmp_path.rglob("*.html"), *built["run_site"].rglob("*.html")]:
        assert LOG_TEXT not in page.read_text(encoding="utf-8")
    with_logs = "".join(p.read_text(encoding="utf-8") for p in built["out"].rglob("*.html"))
    assert LOG_TEXT in with_logs


def test_render_command(built: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "public"
    result = CliRunner().invoke(main, ["render", "--db", str(built["db"]), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"Site written to {out / 'index.html'}"
    assert BeautifulSoup((out / "index.html").read_text(), "html.parser").select("table.standings")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["render", "--db", "missing.db"], "Error: no database at missing.db"),
        (["serve", "--out", "nowhere"], "Error: no site in nowhere"),
        (["serve", "--host", "0.0.0.0"], "Error: refusing to serve on 0.0.0.0"),
        (["serve", "--host", "192.168.1.4"], "Error: refusing to serve on 192.168.1.4"),
    ],
    ids=["no-db", "no-site", "any-host", "lan-host"],
)
def test_site_commands_report_errors(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<html></html>")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert result.output.startswith(message) and result.output.count("\n") == 1


def test_render_refuses_a_file_that_is_not_an_arena_db(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    result = CliRunner().invoke(main, ["render", "--db", str(other), "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "is not an arena database" in result.output


def test_long_match_shows_middle_hands_in_brief(
    built: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A match cut at the engine's hand limit has 200 hands: the page shows the first and last
    # ones in full and one line for each of the others. Small limits make any match "long".
    monkeypatch.setattr("arena.site.data.REPLAY_HEAD", 2)
    monkeypatch.setattr("arena.site.data.REPLAY_TAIL", 1)
    render_site(built["db"], tmp_path)
    m = min(stored(built).match_rows(), key=lambda m: (-m.hands_played, m.id))
    assert m.hands_played > 3
    doc = soup(tmp_path / "matches" / f"{m.id}.html")
    full = [a["id"] for a in doc.select("article.hand")]
    n = m.hands_played
    assert full == ["hand-1", "hand-2", f"hand-{n}"]
    rows = doc.select("details.brief tbody tr")
    assert [r["id"] for r in rows] == [f"hand-{k}" for k in range(3, n)]
    _, records = stored(built).match(m.id)
    for tr, h in zip(rows, records[2:-1], strict=True):
        after = [b + p for b, p in zip(h["scores_before"], h["points"], strict=True)]
        assert tr.find_all("td")[-1].get_text(strip=True) == " / ".join(map(str, after))


def test_render_an_empty_database(tmp_path: Path) -> None:
    from arena.store import Store

    Store(tmp_path / "arena.db").close()
    index = render_site(tmp_path / "arena.db", tmp_path / "site")
    doc = soup(index)
    assert "No tournament has been run yet" in doc.select_one(".lede").get_text(" ", strip=True)
    assert texts(doc.select("table.standings td.empty")) == ["No matches played yet."]
    assert "needs at least two bots" in soup(tmp_path / "site" / "h2h.html").get_text()


def test_render_a_tournament_without_ratings(tmp_path: Path) -> None:
    # An interrupted run has matches but no ratings yet: counts, ordered by mean place.
    from site_support import store_tournament

    from arena.store import Store

    db = tmp_path / "arena.db"
    tid = store_tournament(db, [("a", None), ("b", None), ("c", None)])
    with Store(db) as store:
        store.write_standings(tid, [], [])
        store.set_status(tid, "interrupted")
    doc = soup(render_site(db, tmp_path / "site"))
    rows = doc.select("table.standings tbody tr")
    assert len(rows) == 3
    means = [float(tr.find_all("td")[6].get_text(strip=True)) for tr in rows]
    assert means == sorted(means)
    assert all(tr.find_all("td")[2].get_text(strip=True) == "\u2014" for tr in rows)
    assert "interrupted" in doc.select_one(".lede .status").get_text()


def test_the_tournament_page_shows_what_a_cluster_checked_of_its_workers(
    built: dict[str, Any], tmp_path: Path
) -> None:
    """A run on a cluster stores what it held its workers to (arena.tournaments.driving);
    the tournament page lists it, a worker's name (from its certificate) escaped. A run on
    this machine has no such section (the built tournament ran locally)."""
    from site_support import store_tournament

    from arena.store import Store

    assert 'id="workers"' not in (built["out"] / "tournaments" / f"{built['tid']}.html").read_text()
    db = tmp_path / "arena.db"
    tid = store_tournament(db, [("a", None), ("b", None), ("c", None)])
    with Store(db) as store:
        store.record_worker_check(tid, 4, 1, 0.1, {})
        store.record_worker_check(
            tid, 7, 2, 0.1, {"<b>liar</b> (tls://127.0.0.1:1)": "its record of m1 differs"}
        )
        assert [(c.replayed, len(c.dropped)) for c in store.worker_checks(tid)] == [(4, 0), (7, 1)]
    render_site(db, tmp_path / "site")
    html = (tmp_path / "site" / "tournaments" / f"{tid}.html").read_text()
    doc = soup(tmp_path / "site" / "tournaments" / f"{tid}.html")
    rows = doc.select("#workers tbody tr")
    assert [tr.find_all("td")[1].get_text(strip=True) for tr in rows] == ["4", "7"]
    assert "none" in rows[0].get_text() and "its record of m1 differs" in rows[1].get_text()
    assert "<b>liar</b>" not in html and "&lt;b&gt;liar&lt;/b&gt;" in html


def test_two_tournaments(tmp_path: Path) -> None:
    from site_support import store_tournament

    db = tmp_path / "arena.db"
    bots = [("a", None), ("b", None), ("c", None)]
    first = store_tournament(db, bots, seed=1)
    second = store_tournament(db, [*bots, ("d", None)], seed=2)
    out = tmp_path / "site"
    doc = soup(render_site(db, out))
    # The leaderboard is the latest tournament's; every tournament is listed and linked.
    assert second in doc.select_one(".lede").get_text()
    assert len(doc.select("table.standings tbody tr")) == 4
    listed = [a["href"] for a in doc.select("h2:-soup-contains('All tournaments') + div a")]
    assert listed == [f"tournaments/{second}.html", f"tournaments/{first}.html"]
    assert (out / "tournaments" / f"{first}.html").is_file()
    bot = soup(out / "bots" / "a.html")
    rows = bot.select("h2:-soup-contains('Tournaments') + div tbody tr")
    assert {tr.code.get_text() for tr in rows} == {first, second}
    assert bot.select_one(".stat-value").get_text() == str(6 + 18)  # 1 set + 3 sets, 6 seatings


def test_serve_renders_a_missing_site_first(built: dict[str, Any], tmp_path: Path) -> None:
    import subprocess
    import sys
    import urllib.request

    out = tmp_path / "fresh"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--db", str(built["db"]), "--out", str(out),
         "--port", "0", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == f"Site written to {out / 'index.html'}"
        found = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline())
        assert found
        with urllib.request.urlopen(found.group(0) + "h2h.html", timeout=10) as resp:
            assert b'table class="matrix"' in resp.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
