"""Uploads through ``arena web`` checked for real: ``POST /api/bots`` answers 202 at once,
the sandbox's checks of ``arena submit`` run in a worker thread, ``GET /api/bots/NAME`` and
the author's page show the outcome; the token is the owner key of ``arena submit``."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from web_support import web_server

from arena.api import Arena
from arena.store import UploadCheck, now
from arena.store.authors import STOPPED
from arena.web.context import WebSettings
from arena.web.ratelimit import RateRules

REPO = Path(__file__).resolve().parents[1]

GOOD = b"""class Bot:
    name = "firstbot"

    def act(self, obs):
        import sys
        print("<script>alert('log')</script>", file=sys.stderr)
        return obs["legal"][0]
"""

FAULTY = b"""class Bot:
    name = "crashbot"

    def act(self, obs):
        raise RuntimeError("<b>boom</b>")
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, dict[str, str]]]:
    db = tmp_path_factory.mktemp("upload") / "arena.db"
    with Arena(db) as arena:
        tokens = {n: arena.add_author(n)[1] for n in ("alice", "bob")}
    rates = RateRules(per_address="1000/minute", failures="1000/minute", uploads="100/minute")
    with web_server(WebSettings(db), rates=rates) as url:
        yield url, db, tokens


def wait_for(c: httpx.Client, url: str, token: str) -> dict[str, object]:
    """The check's outcome once it is no longer pending (bounded: 120 s)."""
    deadline = time.monotonic() + 120
    while True:
        r = c.get(url, headers={"authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        body: dict[str, object] = r.json()
        if body["status"] != "pending" or time.monotonic() > deadline:
            return body
        time.sleep(0.25)


def upload(c: httpx.Client, token: str, name: str, content: bytes) -> httpx.Response:
    return c.post(
        "/api/bots", headers={"authorization": f"Bearer {token}"}, files={"file": (name, content)}
    )


def test_an_upload_is_checked_in_the_sandbox_and_stored(
    served: tuple[str, Path, dict[str, str]],
) -> None:
    url, db, tokens = served
    with httpx.Client(base_url=url, timeout=60) as c:
        r = upload(c, tokens["alice"], "first.py", GOOD)
        assert r.status_code == 202, r.text
        body = r.json()
        assert body["name"] == "firstbot" and body["status"] == "pending"
        assert body["status_url"] == r.headers["location"] == "/api/bots/firstbot"
        done = wait_for(c, body["status_url"], tokens["alice"])
        assert done["status"] == "stored" and done["version"] == 1, done
        again = wait_for(c, upload(c, tokens["alice"], "first.py", GOOD).json()["status_url"],
                         tokens["alice"])  # fmt: skip
        assert again["status"] == "unchanged" and again["version"] == 1
        # bob may not read it, nor store over it
        assert c.get("/api/bots/firstbot", headers={"authorization": f"Bearer {tokens['bob']}"}
                     ).status_code == 403  # fmt: skip
        assert upload(c, tokens["bob"], "first.py", GOOD + b"\n").status_code == 403
    with Arena(db, create=False) as arena:
        assert arena.author_bots("alice") == ["firstbot"]


def test_a_faulting_upload_is_refused_with_its_reason(
    served: tuple[str, Path, dict[str, str]],
) -> None:
    url, db, tokens = served
    with httpx.Client(base_url=url, timeout=60) as c:
        r = upload(c, tokens["alice"], "crash.py", FAULTY)
        assert r.status_code == 202
        done = wait_for(c, r.json()["status_url"], tokens["alice"])
    assert done["status"] == "refused" and done["version"] is None
    reason = str(done["reason"])
    assert "boom" in reason and "\n" not in reason and "arena-upload-" not in reason
    with Arena(db, create=False) as arena:
        assert "crashbot" not in {b.name for b in arena.bots()}


def test_a_check_and_its_reason_outlive_a_restart_of_the_service(
    served: tuple[str, Path, dict[str, str]],
) -> None:
    """Outcomes are kept in the database: a second ``arena web`` on the same database answers
    with the refusal the first one found, and an upload whose check a killed process left
    pending is refused, saying why, instead of pending for ever."""
    url, db, tokens = served
    alice = {"authorization": f"Bearer {tokens['alice']}"}
    with httpx.Client(base_url=url, timeout=60) as c:
        r = upload(c, tokens["alice"], "crash2.py", FAULTY.replace(b"crashbot", b"crashbot2"))
        first = wait_for(c, r.json()["status_url"], tokens["alice"])
    assert first["status"] == "refused" and "boom" in str(first["reason"])
    with Arena(db, create=False) as arena:  # as a process killed while checking leaves it
        arena.store.record_check(UploadCheck("halfbot", "alice", "pending", now()))
    rates = RateRules(per_address="1000/minute", failures="1000/minute", uploads="100/minute")
    with web_server(WebSettings(db), rates=rates) as again, httpx.Client(base_url=again) as c:
        assert c.get("/api/bots/crashbot2", headers=alice).json() == first
        half = c.get("/api/bots/halfbot", headers=alice).json()
        assert half["status"] == "refused" and half["reason"] == STOPPED, half
        assert half["checked_at"] is not None
        bob = {"authorization": f"Bearer {tokens['bob']}"}
        assert c.get("/api/bots/halfbot", headers=bob).status_code == 404  # alice's upload
        form = c.get("/login").text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        c.post("/login", data={"token": tokens["alice"], "csrf": form})
        page = c.get("/me").text
        assert "halfbot" in page and "web service stopped" in page


def test_the_token_is_the_owner_key_of_arena_submit(
    served: tuple[str, Path, dict[str, str]], tmp_path: Path
) -> None:
    url, db, tokens = served
    with httpx.Client(base_url=url, timeout=60) as c:
        r = upload(c, tokens["bob"], "keyed.py", GOOD.replace(b"firstbot", b"keyedbot"))
        assert wait_for(c, r.json()["status_url"], tokens["bob"])["status"] == "stored"
    newer = tmp_path / "keyed.py"
    newer.write_bytes(GOOD.replace(b"firstbot", b"keyedbot") + b"# v2\n")
    arena_cli = [sys.executable, "-m", "arena.cli", "submit", str(newer), "--db", str(db)]
    for key, ok in ((tokens["alice"], False), (tokens["bob"], True)):
        env = {**os.environ, "ARENA_OWNER_KEY": key}
        done = subprocess.run(arena_cli, capture_output=True, text=True, env=env, cwd=REPO)
        assert (done.returncode == 0) == ok, done.stderr
        assert ok or "belongs to another owner key" in done.stderr


def test_the_authors_page_shows_checks_and_escapes_what_bots_print(
    served: tuple[str, Path, dict[str, str]],
) -> None:
    url, _, tokens = served
    with httpx.Client(base_url=url, timeout=60, follow_redirects=False) as c:
        page = c.get("/login")
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        c.post("/login", data={"token": tokens["alice"], "csrf": csrf})
        me = c.get("/me")
        csrf = me.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        crash2 = FAULTY.replace(b"crashbot", b"crash2")
        posted = c.post("/me/upload", data={"csrf": csrf}, files={"file": ("crash2.py", crash2)})
        assert posted.status_code == 303 and posted.headers["location"] == "/me"
        assert "pending" in c.get("/me").text or "refused" in c.get("/me").text
        wait_for(c, "/api/bots/crash2", tokens["alice"])
        mine = c.get("/me").text
    assert "crash2" in mine and "refused" in mine
    assert "<b>boom</b>" not in mine and "&lt;b&gt;boom&lt;/b&gt;" in mine


def test_a_bot_of_several_files_uploads_as_a_zip_archive(
    served: tuple[str, Path, dict[str, str]],
) -> None:
    url, db, tokens = served
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("crab/bot.toml", 'language = "python"\nentry = "main.py"\nname = "zipped"\n')
        z.writestr("crab/main.py", "from helpers import first\n\nclass Bot:\n"
                   "    def act(self, obs):\n        return first(obs)\n")  # fmt: skip
        z.writestr("crab/helpers.py", "def first(obs):\n    return obs['legal'][0]\n")
    with httpx.Client(base_url=url, timeout=60) as c:
        r = upload(c, tokens["alice"], "crab.zip", buffer.getvalue())
        assert r.status_code == 202, r.text
        assert r.json()["name"] == "zipped"
        done = wait_for(c, r.json()["status_url"], tokens["alice"])
    assert done["status"] == "stored", done
    with Arena(db, create=False) as arena:
        latest = arena.store.latest_version("zipped")
        assert latest is not None and latest.files is not None


def test_the_authors_page_links_each_stored_bot_to_its_public_page(
    served: tuple[str, Path, dict[str, str]],
) -> None:
    url, _, tokens = served
    source = GOOD.replace(b"firstbot", b"linked")
    with httpx.Client(base_url=url, timeout=60, follow_redirects=False) as c:
        r = upload(c, tokens["bob"], "linked.py", source)
        assert r.status_code == 202, r.text
        assert wait_for(c, r.json()["status_url"], tokens["bob"])["status"] == "stored"
        page = c.get("/login")
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        c.post("/login", data={"token": tokens["bob"], "csrf": csrf})
        mine = c.get("/me").text
        assert '<a href="/bots/linked.html">linked</a>' in mine
        public = c.get("/bots/linked.html")
    assert public.status_code == 200 and "linked" in public.text
