"""``arena web``'s core, served for real (uvicorn on 127.0.0.1, httpx): authors and tokens,
the guards (host check, body caps, security headers, rate limits), logging in, CSRF, escaping,
and what one author can see of another's bots. The uploads that run the sandbox's checks are
in tests/test_web_upload.py."""

from __future__ import annotations

import io
import re
import sqlite3
import stat
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from web_support import web_server

from arena.api import Arena
from arena.cli import main
from arena.errors import ArenaError, NotFound
from arena.tournaments.owners import owner_id
from arena.web.context import WebSettings
from arena.web.guard import CSP
from arena.web.ratelimit import RateRules

BOT = (
    b"class Bot:\n    name = 'alicebot'\n\n"
    b"    def act(self, obs):\n        return obs['legal'][0]\n"
)


SECURITY = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


class Site:
    """A served database with authors alice and bob (bob owns the bot ``bobbot``)."""

    def __init__(self, url: str, db: Path, tokens: dict[str, str]) -> None:
        self.url = url
        self.db = db
        self.tokens = tokens

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, follow_redirects=False, timeout=30)

    def bearer(self, who: str) -> dict[str, str]:
        return {"authorization": f"Bearer {self.tokens[who]}"}


def make_db(path: Path) -> dict[str, str]:
    tokens = {}
    with Arena(path) as arena:
        for name in ("alice", "bob", "carol"):
            tokens[name] = arena.add_author(name)[1]
        # bob's bot, bound to his token's owner id as an upload would bind it (the sandbox
        # checks of uploads are tests/test_web_upload.py's)
        bob = arena.store.author("bob").owner
        arena.store.add_bot_version("bobbot", BOT.decode(), "bobbot.py", None, bob)
        arena.revoke_author("carol")
    return tokens


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db = tmp_path_factory.mktemp("web") / "arena.db"
    tokens = make_db(db)
    # Every test comes from 127.0.0.1: the limits are test_rate_limits_per_address_...'s.
    rates = RateRules(per_address="10000/minute", failures="10000/minute", uploads="10000/minute")
    with web_server(WebSettings(db), rates=rates) as url:
        yield Site(url, db, tokens)


def login(c: httpx.Client, token: str) -> httpx.Response:
    page = c.get("/login")
    csrf = csrf_of(page.text)
    return c.post("/login", data={"token": token, "csrf": csrf})


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html
    return found.group(1)


# --- authors and tokens ------------------------------------------------------------------


def test_tokens_are_stored_hashed_never_in_clear(site: Site) -> None:
    raw = b"".join(p.read_bytes() for p in site.db.parent.glob("arena.db*"))
    conn = sqlite3.connect(site.db)
    hashes = {n: h for n, h in conn.execute("SELECT name, token_hash FROM authors")}
    conn.close()
    for name, token in site.tokens.items():
        assert token.encode() not in raw
        assert hashes[name] == owner_id(token) != token
        assert len(token) >= 43  # 32 random bytes


def test_a_token_is_the_owner_key_of_its_authors_bots(site: Site) -> None:
    with Arena(site.db, create=False) as arena:
        bots = {b.name: b.owner for b in arena.bots()}
        assert bots["bobbot"] == owner_id(site.tokens["bob"])
        assert arena.author_bots("bob") == ["bobbot"]
        assert arena.author_bots("alice") == []
        assert arena.author_for_token(site.tokens["alice"]).name == "alice"  # type: ignore[union-attr]
        assert arena.author_for_token(site.tokens["carol"]) is None  # revoked
        assert arena.author_for_token(site.tokens["alice"] + "x") is None


def test_authors_library_errors(tmp_path: Path) -> None:
    with Arena(tmp_path / "a.db") as arena:
        arena.add_author("dave")
        with pytest.raises(ArenaError, match="already exists"):
            arena.add_author("dave")
        with pytest.raises(ArenaError, match="author name"):
            arena.add_author("<script>")
        with pytest.raises(NotFound):
            arena.revoke_author("nobody")
        assert arena.revoke_author("dave")[1] is True
        assert arena.revoke_author("dave")[1] is False
        with pytest.raises(ArenaError, match="revoked"):
            arena.submit(tmp_path / "x.py", author="dave")


def test_the_authors_commands(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    added = runner.invoke(main, ["authors", "add", "erin", "--db", db])
    assert added.exit_code == 0, added.output
    token = added.output.strip().splitlines()[-1]
    with Arena(db, create=False) as arena:
        assert arena.author_for_token(token).name == "erin"  # type: ignore[union-attr]
    listed = runner.invoke(main, ["authors", "list", "--db", db])
    assert "erin" in listed.output and "active" in listed.output and token not in listed.output
    assert runner.invoke(main, ["authors", "revoke", "erin", "--db", db]).exit_code == 0
    assert "revoked" in runner.invoke(main, ["authors", "list", "--db", db]).output
    again = runner.invoke(main, ["authors", "add", "erin", "--db", db])
    assert again.exit_code == 1 and "already exists" in again.output


def test_arena_web_refuses_a_public_address_without_tls(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    Arena(db).close()
    runner = CliRunner()
    refused = (
        ["--host", "0.0.0.0"],
        ["--host", "192.0.2.1", "--tls-cert", db],
        ["--behind-proxy"],  # without --server-name every request would be 421
        ["--host", "192.0.2.1", "--behind-proxy"],
    )
    for args in refused:
        done = runner.invoke(main, ["web", "--db", db, *args])
        assert done.exit_code == 1
        assert done.output.count("\n") == 1 and "Traceback" not in done.output
    missing = runner.invoke(main, ["web", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 1 and "none.db" in missing.output


# --- the guards --------------------------------------------------------------------------


def test_security_headers_on_every_response(site: Site) -> None:
    with site.client() as c:
        responses = [
            c.get("/login"),
            c.get("/me"),
            c.get("/no/such/page"),
            c.get("/static/site.css"),
            c.post("/api/bots"),
            c.get("/api/bots/bobbot"),
            c.get("/login", headers={"host": "evil.example"}),
            c.post("/login", content=b"x" * 100_000),
        ]
    assert [r.status_code for r in responses] == [200, 303, 404, 200, 401, 401, 421, 413]
    for r in responses:
        for name, value in SECURITY.items():
            assert r.headers.get(name) == value, (r.url, name)
        assert "server" not in r.headers
    assert responses[0].headers["cache-control"] == "no-store"
    assert "max-age" in responses[3].headers["cache-control"]


def test_error_pages_have_the_sites_look(site: Site) -> None:
    with site.client() as c:
        page = c.get("/no/such/page")
        api = c.post("/api/bots")
    assert page.status_code == 404 and "/static/site.css" in page.text and "404" in page.text
    assert api.headers["content-type"] == "application/json"
    assert "token" in api.json()["error"]
    assert api.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.evil", "127.1"],
)
def test_the_host_check_refuses_a_rebinding_name(site: Site, host: str) -> None:
    with site.client() as c:
        refused = c.get("/login", headers={"host": host})
    assert refused.status_code == 421


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "localhost:1234", "[::1]"])
def test_the_host_check_answers_loopback_names(site: Site, host: str) -> None:
    with site.client() as c:
        assert c.get("/login", headers={"host": host}).status_code == 200


def test_the_server_names_are_answered(tmp_path: Path) -> None:
    db = tmp_path / "names.db"
    make_db(db)
    settings = WebSettings(db, server_names=("arena.example.org",))
    with web_server(settings) as url, httpx.Client(base_url=url) as c:
        assert c.get("/login", headers={"host": "arena.example.org"}).status_code == 200
        assert c.get("/login", headers={"host": "ARENA.example.org:443"}).status_code == 200
        assert c.get("/login", headers={"host": "evil.example.org"}).status_code == 421
        assert c.get("/login").status_code == 200  # served on loopback: 127.0.0.1 too


def test_a_body_over_the_cap_is_refused_before_it_is_read(site: Site) -> None:
    big = b"x" * (2 << 20)
    with site.client() as c:
        declared = c.post("/api/bots", content=big, headers=site.bearer("alice"))

        def chunks() -> Iterator[bytes]:  # no Content-Length: cut while it streams
            yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.py"\r\n\r\n'
            for _ in range(64):
                yield b"y" * 65536

        form = {"content-type": "multipart/form-data; boundary=b", **site.bearer("alice")}
        streamed = c.post("/api/bots", content=chunks(), headers=form)
    assert declared.status_code == 413 and "bytes" in declared.json()["error"]
    assert streamed.status_code == 413


def test_a_bot_file_over_the_limit_is_413(site: Site) -> None:
    body = b"#" * ((1 << 20) + 10)
    with site.client() as c:
        r = c.post("/api/bots", headers=site.bearer("alice"), files={"file": ("big.py", body)})
    assert r.status_code == 413


def test_rate_limits_per_address_and_per_author(tmp_path: Path) -> None:
    db = tmp_path / "rate.db"
    tokens = make_db(db)
    rates = RateRules(per_address="100/minute", failures="3/minute", uploads="2/minute")
    with web_server(WebSettings(db), rates=rates) as url, httpx.Client(base_url=url) as c:
        wrong = [c.post("/api/bots", headers={"authorization": "Bearer nope"}) for _ in range(5)]
        assert [r.status_code for r in wrong] == [401, 401, 401, 429, 429]
        assert int(wrong[-1].headers["retry-after"]) >= 1
        # Per author: bob's uploads of another's name are refused, and counted all the same.
        bob = {"authorization": f"Bearer {tokens['bob']}"}
        names = [("bobbot", 0), ("bobbot", 0), ("bobbot", 0)]
        ups = [
            c.post("/api/bots", headers=bob, files={"file": ("x.py", b"!")}, data={"name": n})
            for n, _ in names
        ]
        assert [r.status_code for r in ups][-1] == 429
    rates = RateRules(per_address="2/minute")
    with web_server(WebSettings(db), rates=rates) as url, httpx.Client(base_url=url) as c:
        file = {"file": ("x.py", b"!")}
        codes = [c.post("/api/bots", headers=bob, files=file).status_code for _ in range(3)]
        polls = [c.get("/api/bots/bobbot", headers=bob).status_code for _ in range(5)]
    assert codes == [400, 400, 429]
    assert polls == [200] * 5  # polling a check's status is not limited per address


# --- authentication and what an author sees ------------------------------------------------


def test_uploads_need_a_valid_token(site: Site) -> None:
    file = {"file": ("alicebot.py", BOT)}
    with site.client() as c:
        assert c.post("/api/bots", files=file).status_code == 401
        for token in ("-", "x" * 43, site.tokens["alice"][:-1], site.tokens["carol"]):
            r = c.post("/api/bots", files=file, headers={"authorization": f"Bearer {token}"})
            assert r.status_code == 401, token


def test_an_author_cannot_upload_over_anothers_bot(site: Site) -> None:
    with site.client() as c:
        named = c.post(
            "/api/bots", headers=site.bearer("alice"), files={"file": ("mine.py", BOT)},
            data={"name": "bobbot"},
        )  # fmt: skip
        declared = c.post(
            "/api/bots", headers=site.bearer("alice"),
            files={"file": ("x.py", BOT.replace(b"alicebot", b"bobbot"))},
        )  # fmt: skip
        bundled = c.post(
            "/api/bots", headers=site.bearer("alice"), files={"file": ("x.py", BOT)},
            data={"name": "Heuristic"},
        )  # fmt: skip
    assert named.status_code == declared.status_code == bundled.status_code == 403
    assert "another author" in named.json()["error"]
    assert "reserved" in bundled.json()["error"]


def test_an_author_cannot_read_anothers_bot_status_or_page(site: Site) -> None:
    with site.client() as c:
        assert c.get("/api/bots/bobbot", headers=site.bearer("alice")).status_code == 403
        assert c.get("/api/bots/bobbot", headers=site.bearer("bob")).json()["version"] == 1
        assert c.get("/api/bots/nobot", headers=site.bearer("alice")).status_code == 404
        assert login(c, site.tokens["alice"]).status_code == 303
        mine = c.get("/me")
        assert mine.status_code == 200 and "alice" in mine.text and "bobbot" not in mine.text
        assert c.get("/api/bots/bobbot").status_code == 403  # the session, not a token
        # an upload through the API needs the token itself, never the session's cookie
        up = c.post("/api/bots", files={"file": ("alicebot.py", BOT)})
        assert up.status_code == 401
    with site.client() as c:
        login(c, site.tokens["bob"])
        assert "bobbot" in c.get("/me").text


def test_login_and_logout(site: Site) -> None:
    with site.client() as c:
        assert c.get("/me").headers["location"] == "/login"
        failed = login(c, "not-a-token-at-all")
        assert failed.status_code == 401 and "token" in failed.text
        assert login(c, site.tokens["carol"]).status_code == 401  # revoked
        done = login(c, site.tokens["alice"])
        assert done.status_code == 303 and done.headers["location"] == "/me"
        cookie = done.headers["set-cookie"].lower()
        assert "arena_session=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
        assert site.tokens["alice"] not in done.headers["set-cookie"]
        page = c.get("/me")
        assert page.status_code == 200
        assert c.get("/login").headers["location"] == "/me"
        out = c.post("/logout", data={"csrf": csrf_of(page.text)})
        assert out.status_code == 303
        assert c.get("/me").status_code == 303


def test_a_revoked_token_ends_its_session(tmp_path: Path) -> None:
    db = tmp_path / "revoke.db"
    tokens = make_db(db)
    with web_server(WebSettings(db)) as url, httpx.Client(base_url=url) as c:
        login(c, tokens["alice"])
        assert c.get("/me").status_code == 200
        with Arena(db, create=False) as arena:
            arena.revoke_author("alice")
        assert c.get("/me").status_code == 303
        file = {"file": ("alicebot.py", BOT)}
        r = c.post("/api/bots", files=file, headers={"authorization": f"Bearer {tokens['alice']}"})
        assert r.status_code == 401


def test_a_rotated_token_ends_the_old_one_and_its_sessions_and_keeps_the_bots(
    tmp_path: Path,
) -> None:
    """``arena authors rotate`` (the real command): the old token logs in, uploads and owns
    nothing any more, a session started with it ends (a copied cookie with it), and the new
    token owns the author's bots."""
    db = tmp_path / "rotate.db"
    tokens = make_db(db)
    with web_server(WebSettings(db)) as url, httpx.Client(base_url=url) as c:
        login(c, tokens["bob"])
        assert c.get("/me").status_code == 200
        copied = dict(c.cookies)
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "authors", "rotate", "bob", "--db", str(db)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        new = done.stdout.strip().splitlines()[-1]
        assert (
            len(new) == 43 and new != tokens["bob"] and new not in db.read_bytes().decode("latin-1")
        )
        assert c.get("/me").status_code == 303  # the session of the old token ended
        with httpx.Client(base_url=url, cookies=copied) as thief:
            assert thief.get("/me").status_code == 303
        old = {"authorization": f"Bearer {tokens['bob']}"}
        assert c.get("/api/bots/bobbot", headers=old).status_code == 401
        assert login(c, tokens["bob"]).status_code == 401
        assert (
            c.get("/api/bots/bobbot", headers={"authorization": f"Bearer {new}"}).json()["status"]
            == "stored"
        )
        assert login(c, new).status_code == 303 and "bobbot" in c.get("/me").text
    with Arena(db, create=False) as arena:
        assert arena.author_bots("bob") == ["bobbot"]
        with pytest.raises(ArenaError, match="revoked"):
            arena.rotate_author("carol")


# --- CSRF and escaping -------------------------------------------------------------------


def test_forms_without_the_sessions_csrf_token_are_refused(site: Site) -> None:
    with site.client() as c:
        c.get("/login")
        no_token = c.post("/login", data={"token": site.tokens["alice"]})
        wrong = c.post("/login", data={"token": site.tokens["alice"], "csrf": "x" * 43})
        assert no_token.status_code == wrong.status_code == 403
        assert c.get("/me").status_code == 303  # not logged in
        page = c.get("/me") if login(c, site.tokens["alice"]).status_code == 303 else None
        assert page is not None
        csrf = csrf_of(c.get("/me").text)
        file = {"file": ("alicebot.py", BOT)}
        assert c.post("/me/upload", files=file).status_code == 403
        assert c.post("/me/upload", files=file, data={"csrf": csrf[::-1]}).status_code == 403
        assert c.post("/logout", data={}).status_code == 403
        assert c.post("/logout", data={"csrf": "forged"}).status_code == 403
        assert c.get("/me").status_code == 200  # still logged in
    with site.client() as other:  # another browser's token is not this session's
        other.get("/login")
        stolen = other.post("/login", data={"token": site.tokens["alice"], "csrf": csrf})
        assert stolen.status_code == 403


def test_what_an_author_controls_comes_back_escaped(site: Site) -> None:
    evil = "<script>alert(1)</script>"
    with site.client() as c:
        login(c, site.tokens["alice"])
        csrf = csrf_of(c.get("/me").text)
        page = c.post(
            "/me/upload", data={"csrf": csrf, "name": evil},
            files={"file": ("alicebot.py", BOT + f"# {evil}\n".encode())},
        )  # fmt: skip
        api = c.post(
            "/api/bots", headers=site.bearer("alice"), data={"name": evil},
            files={"file": (f"{evil}.py", BOT)},
        )  # fmt: skip
        missing = c.get(f"/{evil}")
    assert page.status_code == 400
    assert evil not in page.text and "&lt;script&gt;" in page.text
    assert api.status_code == 400 and api.headers["content-type"] == "application/json"
    assert evil not in missing.text
    assert "<script>" not in re.sub(
        r'<script src="/static/[a-z]+\.js" defer></script>', "", page.text
    )


# --- zip archives: a bot of several files ------------------------------------------------


def zipped(members: list[tuple[str, bytes]], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
        if symlink is not None:
            link = zipfile.ZipInfo(symlink)
            link.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(link, "/etc/passwd")
    return buffer.getvalue()


MANIFEST = ("bot.toml", b'language = "python"\nentry = "main.py"\n')


@pytest.mark.parametrize(
    ("archive", "status", "said"),
    [
        # a zip bomb: 16 MB of zeros in about 16 KB, cut at 1 MiB unpacked
        (zipped([MANIFEST, ("main.py", b"\0" * (16 << 20))]), 413, "unpacks to over"),
        (zipped([MANIFEST, ("../evil.py", BOT)]), 400, "path that is not allowed"),
        (zipped([MANIFEST, ("/etc/evil.py", BOT)]), 400, "path that is not allowed"),
        (zipped([MANIFEST, ("a\\..\\evil.py", BOT)]), 400, "path that is not allowed"),
        (zipped([MANIFEST, (".hidden/x.py", BOT)]), 400, "path that is not allowed"),
        (zipped([MANIFEST, ("main.py", BOT)], symlink="link.py"), 400, "not a plain file"),
        (zipped([MANIFEST, *[(f"f{i}.py", b"") for i in range(200)]]), 400, "members"),
        (zipped([MANIFEST, ("main.py", BOT), ("MAIN.py", BOT)]), 400, "same name"),
        (zipped([("main.py", BOT)]), 400, "no manifest"),
        (b"PK\x03\x04 not really a zip", 400, "not a zip archive"),
    ],
    ids=[
        "bomb",
        "dotdot",
        "absolute",
        "backslash",
        "hidden",
        "symlink",
        "count",
        "twins",
        "no-manifest",
        "garbage",
    ],  # fmt: skip
)
def test_hostile_archives_are_refused_before_any_check(
    site: Site,
    archive: bytes,
    status: int,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The server runs in this process: its upload folders go to a temporary folder of this
    # test's own, where uploads of other tests (other workers) never appear.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    before = set(tmp_path.glob("arena-upload-*"))
    with site.client() as c:
        r = c.post(
            "/api/bots", headers=site.bearer("alice"), files={"file": ("bundle.zip", archive)}
        )
    assert r.status_code == status, r.text
    assert said in r.json()["error"]
    assert "arena-upload-" not in r.json()["error"]  # the private folder is never named
    assert set(tmp_path.glob("arena-upload-*")) <= before  # removed


def test_over_tls_the_cookie_is_secure_and_hsts_is_sent(tmp_path: Path) -> None:
    db = tmp_path / "tls.db"
    make_db(db)
    # https=True is what --tls-cert/--tls-key and --behind-proxy set (served plain here)
    with web_server(WebSettings(db, https=True)) as url, httpx.Client(base_url=url) as c:
        page = c.get("/login")
    assert "secure" in page.headers["set-cookie"].lower()
    assert page.headers["strict-transport-security"].startswith("max-age=")
