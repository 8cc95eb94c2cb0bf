"""The live pages (arena/web/pages.py) served for real: uvicorn on 127.0.0.1, httpx against
it, over a real SQLite file with a round robin, a ladder and a comparison written through the
store with matches played by the real engine.

Every page the static site links answers 200 at the same relative URL; unknown and malformed
ids are 404 (or 400) without a render; names a bot's author controls come back escaped; a
repeat request is answered from the kept page (renders counted); a set stored meanwhile moves
``/api/changes`` and the page is rendered again with it.
"""

from __future__ import annotations

import re
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from compare_support import store_comparison
from site_support import ladder_set, store_ladder, store_tournament
from web_support import live_site, wait_until

from arena.store import Store
from arena.web.changes import POLL_SECONDS, Streams
from arena.web.pages import LivePages

SCRIPT = "<script>alert('name')</script>"
LADDER = ["ace", "bea", "cy", "dot"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A round robin (one bot named with a script, its author too), a comparison, and a
    ladder, the front page's tournament (the latest)."""
    db = tmp_path_factory.mktemp("web") / "arena.db"
    ids = {"robin": store_tournament(db, [("rr1", SCRIPT), (SCRIPT, "Eve"), ("rr3", None)])}
    ids["compare"] = store_comparison(db).tid
    ids["ladder"] = store_ladder(db, LADDER, sets=4)
    return db, ids


@pytest.fixture
def served(db: tuple[Path, dict[str, str]]) -> Iterator[tuple[httpx.Client, LivePages]]:
    with live_site(db[0]) as (url, pages), httpx.Client(base_url=url, timeout=30) as client:
        yield client, pages


def _links(html: str, at: str) -> set[str]:
    """The site pages an HTML page links to, as absolute paths (its links are relative)."""
    out = set()
    for href in re.findall(r'href="([^"#]+)"', html):
        target = urllib.parse.urljoin("http://x" + at, href.replace("&amp;", "&"))
        parts = urllib.parse.urlsplit(target)
        if parts.netloc == "x" and parts.path.endswith(".html"):
            out.add(parts.path + (f"?{parts.query}" if parts.query else ""))
    return out


def test_every_linked_page_answers_with_its_data(served, db) -> None:
    client, _ = served
    _, ids = db
    front = client.get("/")
    assert front.status_code == 200
    assert front.headers["content-type"].startswith("text/html")
    assert f"tournaments/{ids['ladder']}.html" in front.text  # the ladder is featured
    seen: dict[str, int] = {}
    todo = ["/index.html"]
    while todo and len(seen) < 80:
        path = todo.pop(0)
        if path in seen:
            continue
        r = client.get(path)
        seen[path] = r.status_code
        if r.status_code == 200:
            todo += sorted(_links(r.text, path) - set(seen))
    assert set(seen.values()) == {200}, {p: s for p, s in seen.items() if s != 200}
    kinds = {p.split("/")[1].split(".")[0] for p in seen}
    assert {"index", "h2h", "tournaments", "bots", "matches"} <= kinds
    for tid in ids.values():
        assert f"/tournaments/{tid}.html" in seen
    listed = client.get(f"/matches.html?tournament={ids['ladder']}")
    assert listed.status_code == 200 and re.search(r'href="matches/[^"]+\.html"', listed.text)
    assert client.get("/matches.html?bot=ace&page=1").status_code == 200
    ladder = client.get(f"/tournaments/{ids['ladder']}.html").text
    for name in LADDER:
        assert f"../bots/{name}.html" in ladder


def test_the_page_loads_the_live_script_the_static_site_does_not(served, tmp_path, db) -> None:
    client, _ = served
    html = client.get("/bots/ace.html").text
    script = re.search(r'<script src="\.\./static/live\.js" data-changes="\.\./api/changes"', html)
    assert script is not None
    assert client.get("/static/live.js").status_code == 200
    from arena.site import render_site

    render_site(db[0], tmp_path / "site")
    assert "live.js" not in (tmp_path / "site" / "index.html").read_text()


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/tournaments/0123456789abcdef.html", 404),
        ("/tournaments/a;b.html", 404),
        ("/tournaments/..%2Findex.html", 404),
        ("/tournaments/x.txt", 404),
        ("/bots/nobody.html", 404),
        ("/bots/" + "a" * 300 + ".html", 404),
        ("/matches/nope.html", 404),
        ("/matches/%3Cscript%3E.html", 404),
        ("/nothing.html", 404),
        ("/matches.html?tournament=0123456789abcdef", 404),
        ("/matches.html?bot=nobody", 404),
        ("/matches.html?tournament=a&bot=b", 400),
        ("/matches.html?page=0&bot=ace", 400),
        ("/matches.html?bot=ace&page=99", 404),
    ],
)
def test_unknown_and_malformed_ids_render_nothing(served, path: str, status: int) -> None:
    client, pages = served
    before = pages.renders
    r = client.get(path)
    assert r.status_code == status
    assert "<script>" not in r.text  # nothing of the path reflected unescaped on the error page
    assert pages.renders == before


def test_what_an_author_controls_comes_back_escaped(served) -> None:
    client, _ = served
    robin = client.get("/").text
    # The round robin's bot: its page (a numeric address: the name is no file name), its row.
    slug = re.search(r'href="(bots/[0-9]+\.html)"', client.get("/h2h.html").text)
    pages = [robin]
    for path in re.findall(r'href="(tournaments/[^"]+)"', robin):
        pages.append(client.get("/" + path).text)
    if slug:
        pages.append(client.get("/" + slug.group(1)).text)
    text = "".join(pages)
    assert "&lt;script&gt;alert(" in text
    assert "<script>alert(" not in text


def _settled(client: httpx.Client) -> None:
    """Wait for the data version to stand still: the watching thread's first reading counts
    a move (what it could not see before it started), and a first render may store reports
    it computed."""
    versions = [""]

    def still() -> bool:
        client.get("/h2h.html")
        time.sleep(3 * POLL_SECONDS)
        versions.append(client.get("/api/version").json()["version"])
        return versions[-1] == versions[-2]

    assert wait_until(still)


def test_a_repeat_request_is_the_kept_page(served) -> None:
    client, pages = served
    _settled(client)
    first = client.get("/h2h.html")
    rendered = pages.renders
    for _ in range(5):
        again = client.get("/h2h.html")
        assert again.content == first.content
    assert pages.renders == rendered
    etag = first.headers["etag"]
    assert client.get("/h2h.html", headers={"If-None-Match": etag}).status_code == 304


def test_a_stored_set_is_announced_and_rendered_again(served, db) -> None:
    client, pages = served
    path, tid = db[0], db[1]["ladder"]
    page = f"/tournaments/{tid}.html"
    _settled(client)
    before = client.get(page)
    assert client.get(page).content == before.content
    rendered = pages.renders
    with client.stream("GET", "/api/changes") as events:
        assert events.headers["content-type"].startswith("text/event-stream")
        lines = events.iter_lines()
        opened = _event(lines)
        assert opened[0] == "version"
        with Store(path) as store:
            step = store.ladder_sets(tid)[-1].step + 1
            epoch = store.ladder_epochs(tid)[-1].epoch
            versions = [store.latest_version(n).id for n in LADDER[:3]]  # type: ignore[union-attr]
            new = ladder_set(store, tid, step, versions, epoch, finish=True)
        kind, version = _event(lines)
        assert kind == "change" and version != opened[1]
    after = client.get(page)
    assert after.status_code == 200 and after.content != before.content
    assert after.headers["x-arena-version"] != before.headers["x-arena-version"]
    assert pages.renders == rendered + 1
    assert client.get(f"/matches/{new[0]}.html").status_code == 200
    # The version moves on (the set is stored in two commits), never back.
    now = client.get("/api/version").json()["version"]
    assert _moves(now) >= _moves(after.headers["x-arena-version"]) > _moves(opened[1])


def _moves(version: str) -> int:
    return int(version.split(".")[1])


def _event(lines: Iterator[str]) -> tuple[str, str]:
    kind = data = ""
    for line in lines:
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data = line.removeprefix("data: ")
        elif line == "" and kind:
            return kind, data
    raise AssertionError("the stream ended")


def test_a_render_that_finds_no_turn_is_503_with_retry_after(served) -> None:
    client, pages = served
    pages.render_wait = 0.2
    taken = [pages._slots.acquire(timeout=5) for _ in range(2)]  # every render slot busy
    assert all(taken)
    try:
        busy = client.get("/bots/bea.html")
        assert busy.status_code == 503 and busy.headers["retry-after"]
    finally:
        for _ in taken:
            pages._slots.release()
    assert client.get("/bots/bea.html").status_code == 200


def test_a_stream_ends_after_its_time_and_a_second_from_one_address_is_refused(
    db: tuple[Path, dict[str, str]],
) -> None:
    with live_site(db[0]) as (url, pages), httpx.Client(base_url=url, timeout=30) as client:
        pages.stream_seconds = 1.0
        pages.streams.per_address = 1
        with client.stream("GET", "/api/changes") as events:
            refused = client.get("/api/changes")
            assert refused.status_code == 429 and refused.headers["retry-after"]
            lines = list(events.iter_lines())  # ends by itself
        assert lines[0].startswith("retry: ") and "event: version" in lines
        assert wait_until(lambda: pages.streams.count() == 0)  # given back once it ended
        with client.stream("GET", "/api/changes") as again:
            assert again.status_code == 200


def test_an_empty_database_has_a_front_page(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    Store(db).close()
    with live_site(db) as (url, _), httpx.Client(base_url=url, timeout=30) as client:
        for path in ("/", "/h2h.html"):
            assert client.get(path).status_code == 200
        assert client.get("/bots/anyone.html").status_code == 404


def test_streams_are_bounded_per_address_and_in_all() -> None:
    streams = Streams(per_address=2, total=3)
    assert streams.admit("a") is None and streams.admit("a") is None
    refused = streams.admit("a")
    assert refused is not None and refused.status_code == 429
    assert streams.admit("b") is None
    full = streams.admit("c")
    assert full is not None and full.status_code == 503
    streams.release("a")
    assert streams.admit("c") is None
    assert streams.count() == 3
