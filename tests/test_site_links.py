"""Stable addresses for bot pages (``bots/<name>.html``, old ``bots/<id>.html`` links kept) and
friendly dates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from site_support import soup, store_tournament

from arena.site import render_site
from arena.site.data import bot_slugs
from arena.site.render import when
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
        ids = {b.name: b.id for b in store.bot_rows()}
    render_site(db, root / "site")
    return root / "site", ids


def test_slugs(site: tuple[Path, dict[str, int]]) -> None:
    out, ids = site
    with Store(out.parent / "arena.db", create=False) as store:
        slugs = bot_slugs(store)
    for name, by_name in NAMES:
        assert slugs[ids[name]] == (name if by_name else str(ids[name])), name


@pytest.mark.parametrize(("name", "by_name"), NAMES, ids=[n for n, _ in NAMES])
def test_every_bot_page_is_where_its_links_point(
    site: tuple[Path, dict[str, int]], name: str, by_name: bool
) -> None:
    out, ids = site
    page = out / "bots" / (f"{name}.html" if by_name else f"{ids[name]}.html")
    assert soup(page).h1.get_text() == name
    # One page per bot, under its name where the name makes a safe file name, else its id.
    assert sorted(p.name for p in (out / "bots").iterdir()) == sorted(
        f"{n}.html" if ok else f"{ids[n]}.html" for n, ok in NAMES
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


@pytest.mark.parametrize(
    ("stored", "shown", "iso"),
    [
        ("2026-12-01T14:03:27Z", "1 Dec 2026, 14:03 UTC", "2026-12-01T14:03:27Z"),
        ("2027-01-09T00:00:00Z", "9 Jan 2027, 00:00 UTC", "2027-01-09T00:00:00Z"),
        ("2026-05-31T23:59:59+02:00", "31 May 2026, 21:59 UTC", "2026-05-31T21:59:59Z"),
        ("2026-07-04T08:15:00", "4 Jul 2026, 08:15 UTC", "2026-07-04T08:15:00Z"),
    ],
    ids=["utc", "new-year", "offset", "naive"],
)
def test_friendly_dates(stored: str, shown: str, iso: str) -> None:
    doc = BeautifulSoup(str(when(stored, relative=True)), "html.parser")
    assert doc.time.get_text() == shown and doc.time["datetime"] == iso
    assert doc.time["class"] == ["rel"]
    assert "class" not in BeautifulSoup(str(when(stored)), "html.parser").time.attrs


@pytest.mark.parametrize(
    ("stored", "missing", "shown"),
    [(None, "not yet", "not yet"), ("", "\u2014", "\u2014"),
     ("<b>soon</b>", "-", "&lt;b&gt;soon&lt;/b&gt;")],
    ids=["none", "empty", "not-a-date"],
)  # fmt: skip
def test_dates_that_are_not_dates(stored: str | None, missing: str, shown: str) -> None:
    assert str(when(stored, missing)) == shown


def test_pages_show_friendly_dates(site: tuple[Path, dict[str, int]]) -> None:
    out, _ = site
    tournament = soup(next((out / "tournaments").glob("*.html")))
    facts = dict(zip([dt.get_text() for dt in tournament.select("dl.facts dt")],
                     tournament.select("dl.facts dd"), strict=True))  # fmt: skip
    for key in ("Started", "Last run", "Finished"):
        stamp = facts[key].time
        assert stamp is not None and "rel" in stamp["class"], key
        assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC", stamp.get_text()), key
    footer = soup(out / "index.html").select_one("footer time.rel")
    assert footer is not None and footer["datetime"].endswith("Z")
    bot = soup(out / "bots" / "heuristic.html")
    assert bot.select_one(".lede time.rel") is not None
    assert bot.select_one("tr#v1 time") is not None
