"""``arena serve`` as a real process, spoken to in raw HTTP with crafted ``Host`` headers.

The server must answer only requests addressed to this machine by a loopback name or literal
and its own port (a page elsewhere that rebinds its DNS name to 127.0.0.1 sends its own name),
and must never list a folder.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from site_support import serving, store_ladder, store_tournament

from arena.site import render_site
from arena.site.serve import host_is_local, is_loopback_name
from arena.store import Store


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve")
    store_tournament(root / "arena.db", [("alpha", None), ("beta", None), ("gamma", None)])
    render_site(root / "arena.db", root / "site")
    return root / "site"


@pytest.fixture(scope="module")
def port(site: Path) -> Iterator[int]:
    """A real ``arena serve --port 0`` process (the console script); yields its port."""
    with serving(site) as url:
        yield int(url.rsplit(":", 1)[1].strip("/"))


def raw_get(port: int, path: str, hosts: list[str], method: str = "GET") -> tuple[int, bytes]:
    """Send one request with exactly these ``Host`` lines; the status code and the body."""
    head = [f"{method} {path} HTTP/1.1", *(f"Host: {h}" for h in hosts), "Connection: close"]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    _, _, body = rest.partition(b"\r\n\r\n")
    return int(status_line.split()[1]), body


LOCAL = ["127.0.0.1:{p}", "localhost:{p}", "LocalHost:{p}", "127.4.5.6:{p}", "[::1]:{p}"]
FOREIGN = [
    "127.attacker.example:{p}",  # starts like a loopback literal: a DNS name like any other
    "127.0.0.1.attacker.example:{p}",
    "127.0.0.1.nip.io:{p}",
    "attacker.example:{p}",
    "localhost.attacker.example:{p}",
    "localhost.:{p}",
    "sub.localhost:{p}",
    "127.1:{p}",  # inet_aton shorthand: not a strict literal
    "0x7f.0.0.1:{p}",
    "2130706433:{p}",
    "10.0.0.1:{p}",
    "[::ffff:127.0.0.1]:{p}",
    "[::2]:{p}",
    "::1:{p}",  # IPv6 without brackets
    "127.0.0.1:{q}",  # the right machine, another port
    "localhost:{q}",
    "127.0.0.1",  # no port means 80
    "localhost",
    "127.0.0.1:",
    "127.0.0.1:{p}@attacker.example",
    "127.0.0.1:{p} x",
    "",
]


@pytest.mark.parametrize("host", LOCAL, ids=LOCAL)
def test_loopback_names_with_our_port_are_served(port: int, host: str) -> None:
    status, body = raw_get(port, "/", [host.format(p=port)])
    assert status == 200 and b"<h1>Leaderboard</h1>" in body


@pytest.mark.parametrize("host", FOREIGN, ids=[h or "empty" for h in FOREIGN])
def test_other_hosts_are_misdirected(port: int, host: str) -> None:
    other = port + 1 if port < 65535 else port - 1
    for method in ("GET", "HEAD"):
        status, body = raw_get(port, "/", [host.format(p=port, q=other)], method)
        assert status == 421, (host, method)
        assert b"Leaderboard" not in body


def test_a_request_without_a_host_or_with_two_is_refused(port: int) -> None:
    assert raw_get(port, "/", [])[0] == 421
    two = [f"127.0.0.1:{port}", "attacker.example"]
    assert raw_get(port, "/", two)[0] == 421
    assert raw_get(port, "/", list(reversed(two)))[0] == 421


@pytest.mark.parametrize(
    "path", ["/bots/", "/bots", "/matches/", "/static/", "/tournaments", "//bots/"]
)
def test_no_folder_is_listed(port: int, site: Path, path: str) -> None:
    assert (site / path.strip("/")).is_dir()
    status, body = raw_get(port, path, [f"127.0.0.1:{port}"])
    assert status == 404, path
    assert b".html" not in body and b"site.css" not in body


def test_pages_files_and_escapes(port: int, site: Path) -> None:
    local = [f"localhost:{port}"]
    assert raw_get(port, "/index.html", local)[0] == 200
    css = raw_get(port, "/static/site.css", local)
    assert css[0] == 200 and css[1] == (site / "static" / "site.css").read_bytes()
    page = next((site / "matches").glob("*.html"))
    assert raw_get(port, f"/matches/{page.name}", local)[0] == 200
    (site.parent / "secret.txt").write_text("not for the web")
    for path in ("/../secret.txt", "/..%2fsecret.txt", "/%2e%2e/secret.txt", "/../arena.db"):
        status, body = raw_get(port, path, local)
        assert status == 404 and b"not for the web" not in body, path


@pytest.mark.parametrize(
    ("name", "ok"),
    [("localhost", True), ("127.0.0.1", True), ("127.255.255.254", True), ("[::1]", True),
     ("[0:0:0:0:0:0:0:1]", True), ("127.example", False), ("127.0.0.1.", False),
     ("127.00.0.1", False), ("[::1", False), ("::1", False), ("[127.0.0.1]", False)],
)  # fmt: skip
def test_loopback_names(name: str, ok: bool) -> None:
    assert is_loopback_name(name) is ok


def test_host_header_needs_the_port() -> None:
    assert host_is_local("localhost:8000", 8000)
    assert not host_is_local("localhost:8000", 8001)
    assert host_is_local("localhost", 80) and host_is_local("[::1]", 80)
    assert not host_is_local("localhost:080x", 80)
    assert not host_is_local(None, 80)


# -- pages rendered on request from the database -------------------------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path, str]]:
    """A ladder's site keeping 3 replays as files, served with its database; yields the
    port, the folder and the ladder's id."""
    root = tmp_path_factory.mktemp("live")
    tid = store_ladder(root / "arena.db", ["ace", "bea", "cy", "dot"], sets=6)
    render_site(root / "arena.db", root / "site", replays=3)
    with serving(root / "site", root / "arena.db") as url:
        yield int(url.rsplit(":", 1)[1].strip("/")), root, tid


def _ids(db: Path, tid: str) -> list[str]:
    """The tournament's match ids, oldest first (its sets were stored in step order)."""
    with Store(db, create=False) as store:
        return [m.id for m in store.match_rows(tid=tid)]


def test_an_old_replay_is_rendered_on_request(live: tuple[int, Path, str], tmp_path: Path):
    port, root, tid = live
    ids = _ids(root / "arena.db", tid)
    assert len(ids) == 36 and not (root / "site" / "matches" / f"{ids[0]}.html").exists()
    # The page a render keeping every replay writes, byte for byte.
    render_site(root / "arena.db", tmp_path / "all", replays=1000)
    for match_id in (ids[0], ids[17], ids[-1]):  # two on request, one a file
        status, body = raw_get(port, f"/matches/{match_id}.html", [f"127.0.0.1:{port}"])
        assert status == 200
        assert body == (tmp_path / "all" / "matches" / f"{match_id}.html").read_bytes()
    status, body = raw_get(port, f"/matches/{ids[0]}.html", [f"127.0.0.1:{port}"], "HEAD")
    assert status == 200 and body == b""


@pytest.mark.parametrize(
    "path",
    ["/matches/nosuchmatch.html", "/matches/%3Cscript%3E.html", "/matches/..%2farena.db",
     "/matches/" + "a" * 65 + ".html", "/matches/x.html/",
     "/matches.html?tournament=nosuch", "/matches.html?bot=nosuch",
     "/matches.html?bot=%3Cscript%3E", "/matches.html?tournament={tid}&page=2"],
)  # fmt: skip
def test_only_stored_ids_are_rendered(live: tuple[int, Path, str], path: str) -> None:
    port, _, tid = live
    status, body = raw_get(port, path.format(tid=tid), [f"127.0.0.1:{port}"])
    assert status == 404, path
    assert b"<script>" not in body and b"ace" not in body


@pytest.mark.parametrize(
    "query",
    ["", "?", "?tournament={tid}&page=0", "?tournament={tid}&page=x", "?page=1",
     "?tournament={tid}&bot=ace", "?tournament={tid}&tournament={tid}", "?bot=ace&color=red",
     "?a=1&b=2&c=3&d=4&e=5", "?tournament={tid}&page=1&bot=ace&x=1&y=2", "?bot",
     "?bot=ace&&", "?bot=" + "a" * 600, "?%3Cscript%3E=1"],
)  # fmt: skip
def test_a_malformed_list_query_is_a_bad_request(live: tuple[int, Path, str], query: str):
    # Answered 400 (not dropped with a traceback on the server), and the server stays up.
    port, _, tid = live
    local = [f"127.0.0.1:{port}"]
    status, body = raw_get(port, "/matches.html" + query.format(tid=tid), local)
    assert status == 400, query
    assert b"<script>" not in body and b"ace" not in body
    assert raw_get(port, f"/matches.html?tournament={tid}", local)[0] == 200


def test_a_flood_of_unknown_ids_is_answered(live: tuple[int, Path, str]) -> None:
    # 120 requests at once for replays and lists that do not exist, on loopback: each gets an
    # HTTP answer (404, or 503 when it waited too long for a turn to render), none is reset,
    # and the server still answers afterwards.
    from concurrent.futures import ThreadPoolExecutor

    port, _, tid = live
    local = [f"127.0.0.1:{port}"]
    paths = [f"/matches/{tid[:8]}s999k{k}.html" for k in range(80)]
    paths += [f"/matches.html?tournament=nosuch{k}" for k in range(20)]
    paths += [f"/matches.html?page={k}&a=1&b=2&c=3" for k in range(20)]
    with ThreadPoolExecutor(max_workers=len(paths)) as pool:
        answers = list(pool.map(lambda p: raw_get(port, p, local)[0], paths))
    assert set(answers[:100]) <= {404, 503} and answers.count(404) >= 1
    assert set(answers[100:]) == {400}
    assert raw_get(port, "/index.html", local)[0] == 200
    assert raw_get(port, f"/matches.html?tournament={tid}", local)[0] == 200


def test_whole_match_lists_are_served(live: tuple[int, Path, str]) -> None:
    port, root, tid = live
    local = [f"127.0.0.1:{port}"]
    status, body = raw_get(port, f"/matches.html?tournament={tid}", local)
    page = BeautifulSoup(body, "html.parser")
    rows = page.select("table.matches tbody tr")
    assert status == 200 and len(rows) == 36
    # Newest first, each linking its replay (served whether or not it is a file).
    newest = [a.get_text() for a in page.select("table.matches tbody tr td:first-child a")]
    assert newest == list(reversed(_ids(root / "arena.db", tid)))
    with Store(root / "arena.db", create=False) as store:
        aces = [v.id for v in store.version_refs() if v.name == "ace"]
        mine = len(store.match_rows(versions=aces))
    status, body = raw_get(port, "/matches.html?bot=ace&page=1", local)
    assert (
        status == 200
        and len(BeautifulSoup(body, "html.parser").select("table.matches tbody tr")) == mine
    )


def test_another_database_is_not_read(live: tuple[int, Path, str], tmp_path: Path) -> None:
    # A site rendered from one database, served with another: only its files are served.
    _, root, tid = live
    other = tmp_path / "other.db"
    store_ladder(other, ["ace", "bea", "cy", "dot"], sets=6)
    first = _ids(root / "arena.db", tid)[0]
    with serving(root / "site", other) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        assert raw_get(port, f"/matches/{first}.html", [f"127.0.0.1:{port}"])[0] == 404
        assert raw_get(port, "/index.html", [f"127.0.0.1:{port}"])[0] == 200
