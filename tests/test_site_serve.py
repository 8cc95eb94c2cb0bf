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
from site_support import serving, store_tournament

from arena.site import render_site
from arena.site.serve import host_is_local, is_loopback_name


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
