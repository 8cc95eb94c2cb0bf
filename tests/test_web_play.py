"""The play routes of the web app (arena/web/play.py) served for real by uvicorn on 127.0.0.1
and called with httpx: a whole game through the API, the game secret required, bad requests
refused, the bounds on games at once, and the organiser's policy ("anyone", "authors", "off")."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from play_support import OPPONENTS, app, serving, stored_bots

from arena import Arena
from arena.tournaments.entrants import resolve
from arena.web.play import GAME_HEADER, MAX_BODY, PlayLimits

NEW = {"opponents": list(OPPONENTS), "seat": 1, "name": "bob"}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return stored_bots(tmp_path / "arena.db")


@pytest.fixture
def client(db: Path) -> Iterator[httpx.Client]:
    with serving(app(db, limits=PlayLimits(per_client=1))) as url:
        with httpx.Client(base_url=url, timeout=60) as c:
            yield c


def _state(c: httpx.Client, game: dict[str, Any], after: int = -1) -> dict[str, Any]:
    r = c.get(f"/api/games/{game['id']}", params={"after": after}, headers=_key(game))
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    return dict(r.json())


def _key(game: dict[str, Any]) -> dict[str, str]:
    return {GAME_HEADER: game["secret"]}


def _finish(c: httpx.Client, game: dict[str, Any]) -> dict[str, Any]:
    """Answer the last legal action at every turn until the game ends; its last state. (The
    last orders up, so the game ends in a few hands: the first passes every bid, and a game in
    which only one bot ever bids may last a hundred hands.)"""
    deadline = time.monotonic() + 120
    state = _state(c, game)
    while not state["finished"]:
        assert time.monotonic() < deadline
        turn = state["turn"]
        if turn is not None:
            body = {"action": turn["legal"][-1], "turn": turn["turn"]}
            r = c.post(f"/api/games/{game['id']}/answer", json=body, headers=_key(game))
            assert r.status_code == 200, r.text
        state = _state(c, game, state["version"])
    return state


def test_a_whole_game_through_the_api(client: httpx.Client, db: Path) -> None:
    page = client.get("/play")
    assert page.status_code == 200 and all(f'value="{b}"' in page.text for b in OPPONENTS)
    assert "<script>" not in page.text and "static/play.js" in page.text
    r = client.post("/api/games", json=NEW)
    assert r.status_code == 201, r.text
    game = r.json()
    assert game["url"] == f"/games/{game['id']}" and len(game["secret"]) >= 32
    assert client.get(game["url"]).status_code == 200
    bad = client.get('/games/"><script>x</script>')
    assert bad.status_code == 404 and "<script>x" not in bad.text
    first = _state(client, game)
    assert first["seat"] == 1 and first["names"][1] == "bob"
    state = _finish(client, game)
    result = state["result"]
    assert result["faults"] == [] and max(result["scores"]) >= 10 and len(result["secret"]) == 64
    assert result["hands"] and "deal" not in result["hands"][0]  # public facts only
    with Arena(db) as arena:
        [listed] = arena.tournaments()
        assert listed.tournament.kind == "human" and listed.tournament.id == game["id"]
        assert arena.verify(game["id"]).ok
    # Finished: another game may start for the same client (one at a time here).
    again = client.post("/api/games", json=NEW)
    assert again.status_code == 201
    client.post(f"/api/games/{again.json()['id']}/leave", headers=_key(again.json()))


def test_the_game_secret_is_required(client: httpx.Client) -> None:
    game = client.post("/api/games", json=NEW).json()
    url = f"/api/games/{game['id']}"
    wrong = {GAME_HEADER: "x" * len(game["secret"])}
    for headers in ({}, wrong, {GAME_HEADER: ""}):
        assert client.get(url, headers=headers).status_code == 404
        answer = client.post(f"{url}/answer", json={"action": "pass"}, headers=headers)
        assert answer.status_code == 404
        assert client.post(f"{url}/leave", headers=headers).status_code == 404
    # A secret in the query string is no secret: ignored.
    assert client.get(url, params={GAME_HEADER: game["secret"]}).status_code == 404
    assert client.post(f"{url}/leave", headers=_key(game)).status_code == 200
    # Unknown games answer like a wrong secret (nothing learned about which ids exist).
    assert client.get("/api/games/0123456789abcdef", headers=_key(game)).status_code == 404


def test_bad_requests_are_refused(client: httpx.Client) -> None:
    cases = [
        ({"opponents": ["random", "nosuchbot"], "seat": 0}, 400),
        ({"opponents": ["random"], "seat": 0}, 400),
        ({"opponents": ["random", "random"], "seat": 0}, 400),
        ({"opponents": list(OPPONENTS), "seat": 3}, 400),
        ({"opponents": list(OPPONENTS), "seat": True}, 400),
        ({"opponents": list(OPPONENTS), "name": 7}, 400),
    ]
    for body, status in cases:
        assert client.post("/api/games", json=body).status_code == status, body
    form = client.post("/api/games", data={"opponents": "random"})
    assert form.status_code == 415  # a plain form (a cross-site one) is not JSON
    big = client.post(
        "/api/games", content=b"[" + b" " * MAX_BODY + b"]",
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    assert big.status_code == 413
    game = client.post("/api/games", json=NEW).json()
    state = _state(client, game)
    while state["turn"] is None:
        state = _state(client, game, state["version"])
    url = f"/api/games/{game['id']}/answer"
    turn = state["turn"]
    assert client.post(url, json={"action": "nonsense"}, headers=_key(game)).status_code == 409
    stale = {"action": turn["legal"][0], "turn": turn["turn"] - 1}
    assert client.post(url, json=stale, headers=_key(game)).status_code == 409
    client.post(f"/api/games/{game['id']}/leave", headers=_key(game))


def test_games_at_once_are_bounded(client: httpx.Client, db: Path) -> None:
    first = client.post("/api/games", json=NEW)
    assert first.status_code == 201
    second = client.post("/api/games", json=NEW)
    assert second.status_code == 429 and "at most 1" in second.json()["error"]
    game = first.json()
    assert client.post(f"/api/games/{game['id']}/leave", headers=_key(game)).status_code == 200
    state = _state(client, game)
    while not state["finished"]:
        state = _state(client, game, state["version"])
    [fault] = state["result"]["faults"]
    assert fault["seat"] == 1 and fault["kind"] == "timeout"
    assert client.post("/api/games", json=NEW).status_code == 201
    with serving(app(db, limits=PlayLimits(max_games=1, per_client=1))) as url:
        with httpx.Client(base_url=url, timeout=60) as other:
            taken = other.post("/api/games", json=NEW)
            assert taken.status_code == 201
            assert other.post("/api/games", json=NEW).status_code in (429, 503)
            other.post(f"/api/games/{taken.json()['id']}/leave", headers=_key(taken.json()))


def test_an_idle_game_ends_and_is_forgotten(db: Path) -> None:
    limits = PlayLimits(idle_seconds=0.5, keep_seconds=0.0)
    with serving(app(db, limits=limits)) as url, httpx.Client(base_url=url, timeout=60) as c:
        game = c.post("/api/games", json=NEW).json()
        time.sleep(1.0)
        c.get("/play")  # any visit sweeps: the idle game is ended (its seat forfeits)
        with Arena(db) as arena:
            deadline = time.monotonic() + 60
            while not arena.tournaments():
                assert time.monotonic() < deadline, "the idle game was not ended"
                time.sleep(0.2)
            [listed] = arena.tournaments()
            [listed_fault] = arena.faults(tid=listed.tournament.id)[0]
            fault = listed_fault.fault
            assert fault.kind == "timeout" and "left" in (fault.message or "")
            assert listed_fault.name == "bob (human)"
        c.get("/play")
        assert c.get(f"/api/games/{game['id']}", headers=_key(game)).status_code == 404


def test_the_policy_off(db: Path) -> None:
    with serving(app(db, policy="off")) as url, httpx.Client(base_url=url) as c:
        assert c.get("/play").status_code == 404
        r = c.post("/api/games", json=NEW)
        assert r.status_code == 404 and "off" in r.json()["error"]


def test_the_policy_authors(db: Path) -> None:
    with serving(app(db, policy="authors")) as url, httpx.Client(base_url=url, timeout=60) as c:
        assert c.get("/play").status_code == 403
        assert c.post("/api/games", json=NEW).status_code == 403
        assert c.post("/test-login").status_code == 200
        assert c.get("/play").status_code == 200
        r = c.post("/api/games", json={"opponents": list(OPPONENTS), "seat": 0})
        assert r.status_code == 201
        game = r.json()
        assert _state(c, game)["names"][0] == "alice"  # the author's name by default
        c.post(f"/api/games/{game['id']}/leave", headers=_key(game))


def test_a_hostile_opponent_cannot_reach_the_web_process(tmp_path: Path) -> None:
    # The bots of a human game run in the web process's own sandboxes: one that signals
    # the arena (this process serves the app), its parent, its group and pid 1 reaches none.
    attack = Path(__file__).parent / "attacks" / "kill_arena.py"
    bot = tmp_path / "kill_arena.py"
    bot.write_text(attack.read_text().replace("@@ARENA_PID@@", str(os.getpid())))
    db = tmp_path / "arena.db"
    with Arena(db) as arena:
        resolve(arena.store, [str(bot), "random"], minimum=2)
    with serving(app(db)) as url, httpx.Client(base_url=url, timeout=60) as c:
        body = {"opponents": ["kill_arena", "random"], "seat": 2}
        game = c.post("/api/games", json=body).json()
        state = _finish(c, game)
        assert c.get("/play").status_code == 200  # the server lives on
    result = state["result"]
    assert all(f["seat"] != 2 for f in result["faults"])
    with Arena(db) as arena:
        logs = arena.store.match_logs(result["match_id"])
    assert "RAN" in logs[0] and "ESCAPED" not in logs[0]
