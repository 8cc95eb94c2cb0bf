"""Hostile bot names, authors, fault messages and logs are shown as text, never as markup."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from site_support import serving, soup, store_tournament

from arena.site import render_site
from arena.store import Store

SCRIPT = "<script>alert('name')</script>"
ATTR = '"><img src=x onerror=alert(1)>'
SVG = "</text><svg onload=alert(2)>"
HOSTILE_BOTS = [
    (SCRIPT, "<b onmouseover=alert(3)>author</b>"),
    (ATTR, "{{ 7*7 }} & ' \""),
    (SVG, None),
    ("plain", "</pre><script>alert(4)</script>"),
]
FAULT = "</pre></td><script>alert(5)</script><iframe src=javascript:alert(6)>"
LOG = "</details><script>alert(7)</script>{% raw %}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("xss")
    store_tournament(root / "arena.db", HOSTILE_BOTS, fault=(ATTR, FAULT), log=(SVG, LOG))
    render_site(root / "arena.db", root / "site", with_logs=True)
    return root / "site"


def test_no_injected_markup_anywhere(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        _no_markup(soup(page), page)


def test_no_injected_markup_in_pages_served_on_request(tmp_path: Path) -> None:
    # No replay kept as a file: every one, and the match lists, rendered by `arena serve`.
    db = tmp_path / "arena.db"
    tid = store_tournament(db, HOSTILE_BOTS, fault=(ATTR, FAULT), log=(SVG, LOG))
    render_site(db, tmp_path / "site", with_logs=True, replays=0)
    assert not (tmp_path / "site" / "matches").exists()
    with Store(db, create=False) as store:
        ids = [m.id for m in store.match_rows()]
    with serving(tmp_path / "site", db) as url:
        served = [f"matches/{m}.html" for m in ids] + [f"matches.html?tournament={tid}"]
        for path in served:
            with urllib.request.urlopen(url + path) as response:  # noqa: S310 (loopback)
                doc = BeautifulSoup(response.read(), "html.parser")
            _no_markup(doc, path)
            names = {a.get_text() for a in doc.select("a.bot")}
            assert names and names <= {name for name, _ in HOSTILE_BOTS}, path
            if path.startswith("matches/"):  # shown verbatim, as text
                assert (FAULT in doc.get_text()) == (ATTR in names), path
                assert (LOG in doc.get_text()) == (SVG in names), path


def _no_markup(doc: BeautifulSoup, page: object) -> None:
    # The only script is the site's own, loaded from static/.
    scripts = doc.find_all("script")
    assert [s.get("src", "").rsplit("/", 1)[-1] for s in scripts] == ["site.js"], page
    assert not doc.find_all(["img", "iframe", "object", "embed"]), page
    assert not doc.select("svg svg"), page
    for tag in doc.find_all(True):
        events = [a for a in tag.attrs if a.lower().startswith("on")]
        assert not events, (page, tag.name, events)
        for value in tag.attrs.values():
            assert "javascript:" not in str(value).lower(), (page, tag.name)


def test_hostile_text_is_shown_verbatim(site: Path) -> None:
    index = soup(site / "index.html")
    names = [a.get_text() for a in index.select("table.standings a.bot")]
    assert sorted(names) == sorted(name for name, _ in HOSTILE_BOTS)
    authors = " ".join(d.get_text() for d in index.select(".author"))
    assert "by <b onmouseover=alert(3)>author</b>" in authors
    assert "{{ 7*7 }}" in authors  # not evaluated as a template either
    chart_titles = " ".join(t.get_text() for t in index.select("svg title"))
    assert f"{SVG}: " in chart_titles and f"{SCRIPT}: " in chart_titles
    bot_pages = [soup(p) for p in (site / "bots").glob("*.html")]
    faults = [t.get_text() for doc in bot_pages for t in doc.select("table.faults pre")]
    assert faults and all(f == FAULT for f in faults)
    logs = [t.get_text() for doc in bot_pages for t in doc.select("details.log pre")]
    assert logs and all(text.startswith(LOG) for text in logs)
    titles = {doc.h1.get_text() for doc in bot_pages}
    assert titles == {name for name, _ in HOSTILE_BOTS}
