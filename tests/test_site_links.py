"""Stable addresses for bot pages: ``bots/<name>.html``, old ``bots/<id>.html`` links kept."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils
from site_support import soup, store_tournament

from arena.site import render_site
from arena.site.data import bot_slugs
from arena.store import Store

# (name, whether its page is named after it). The first three play a tournament; the others
# are only submitted, in this order (ids follow it).
NAMES = [
    ("heuristic", True),
    ("a+b", True),
    ("v1.2_final-3", True),
    ("Heuristic", False),  # same as an older bot's name on a case-insensitive file system
    ("123", False),  # numeric stems are the old id addresses
    ("con", False),  # Windows device names cannot be file names
    ("LPT1.bot", False),
    ("<b>x</b>", False),  # stored before names were checked
    ("../up", False),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    root = tmp_path_factory.mktemp("links")
    db = root / "arena.db"
    store_tournament(db, [(n, None) for n, _ in NAMES[:3]])
    with Store(db) as store:
        for name, _ in NAMES[3:]:
            store.add_bot_version(name, f"class Bot:\n    x = {name!r}\n", "b.py", None)
        ids = {r["name"]: r["id"] for r in store.rows("SELECT id, name FROM bots")}
    render_site(db, root / "site")
    return root / "site", ids


def test_slugs(site: tuple[Path, dict[str, int]]) -> None:
    out, ids = site
    slugs = bot_slugs(sqlite_utils.Database(out.parent / "arena.db"))
    for name, by_name in NAMES:
        assert slugs[ids[name]] == (name if by_name else str(ids[name])), name


@pytest.mark.parametrize(("name", "by_name"), NAMES, ids=[n for n, _ in NAMES])
def test_every_bot_page_is_where_its_links_point(
    site: tuple[Path, dict[str, int]], name: str, by_name: bool
) -> None:
    out, ids = site
    page = out / "bots" / (f"{name}.html" if by_name else f"{ids[name]}.html")
    assert soup(page).h1.get_text() == name
    old = soup(out / "bots" / f"{ids[name]}.html")
    if by_name:
        # The old address redirects to the new one, whose URL escapes "+" for static hosts.
        href = old.select_one("link[rel=canonical]")["href"]
        assert href == "../bots/" + name.replace("+", "%2B") + ".html"
        assert old.select_one("meta[http-equiv=refresh]")["content"] == f"0; url={href}"
    else:
        assert not old.select("meta[http-equiv=refresh]")
    assert sorted(p.name for p in (out / "bots").iterdir()) == sorted(
        {f"{n}.html" for n, ok in NAMES if ok} | {f"{i}.html" for i in ids.values()}
    )


def test_links_to_bot_pages_use_the_name(site: tuple[Path, dict[str, int]]) -> None:
    out, _ = site
    links = {a["href"] for a in soup(out / "index.html").select("table.standings a.bot")}
    assert links == {"bots/heuristic.html", "bots/a%2Bb.html", "bots/v1.2_final-3.html"}
    match = next((out / "matches").glob("*.html"))
    links = {a["href"] for a in soup(match).select("table.seats a.bot")}
    assert links == {"../bots/heuristic.html", "../bots/a%2Bb.html", "../bots/v1.2_final-3.html"}
    page = soup(out / "bots" / "heuristic.html")
    versions = page.select("h2:-soup-contains('Versions') + div tr")
    assert [tr.get("id") for tr in versions[1:]] == ["v1"]  # bots/heuristic.html#v1
