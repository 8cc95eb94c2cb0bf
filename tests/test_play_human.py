"""A person's seat through the library (Arena.play_human, HumanGame, the human channel), with
real sandboxed bots: a whole match answered by a simple rule, stored as a human game (never
rated, in nobody's standings, its replay rendered and marked), a person who stops answering
or leaves (they forfeit; the bots finish unharmed), answers refused."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from play_support import OPPONENTS, first_legal, play_out, stored_bots

from arena import Arena
from arena.cli import main
from arena.errors import ArenaError, NotFound
from arena.sandbox.human import LEFT, human_limits
from arena.store.kinds import HUMAN_OWNER, KINDS
from arena.tournaments.human import HumanGame


def _wait_decision(game: HumanGame, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while game.decision is None:
        assert time.monotonic() < deadline and not game.finished, "no decision came"
        game.wait(game.version, 1)


@pytest.fixture
def arena(tmp_path: Path) -> Arena:
    with Arena(stored_bots(tmp_path / "arena.db")) as a:
        yield a


def test_a_whole_match_is_stored_as_a_human_game(arena: Arena, tmp_path: Path) -> None:
    game = arena.play_human(list(OPPONENTS), seat=1, name="<b>alice</b>")
    _wait_decision(game)
    table = game.table()
    assert table["names"][1] == "<b>alice</b>" and table["names"][0] == "random"
    assert len(table["hand"]) == 5 and table["turn"]["legal"]
    assert "result" not in table and len(table["commitment"]) == 64
    answers = play_out(game)
    assert answers > 5 and game.error is None
    r = game.result
    assert r is not None and r.faults == [] and sorted(r.placements)[0] == 1
    assert max(r.scores) >= 10  # the match was played to its end
    # Stored as one tournament of kind human, finished, its secret revealed and verifiable.
    [listed] = arena.tournaments()
    assert listed.tournament.kind == "human" and KINDS["human"].human
    assert not listed.tournament.ranked and listed.tournament.status == "finished"
    assert listed.secret == r.secret and listed.commitment == game.commitment
    assert arena.verify(game.id).ok
    with pytest.raises(NotFound):  # never "the latest tournament" of a command
        arena.standings()
    # The person's stand-in is no bot: not listed, in no field, never rated.
    assert sorted(v.name for v in arena.bots()) == sorted(OPPONENTS)
    assert sorted(v.name for v in arena.store.latest_versions()) == sorted(OPPONENTS)
    owners = arena.store.conn.execute(
        "SELECT name, retired_at FROM bots WHERE owner = ?", (HUMAN_OWNER,)
    )
    [(stand_in, retired)] = owners.fetchall()
    assert stand_in == "<b>alice</b> (human)" and retired is not None
    assert arena.store.conn.execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0
    listing = CliRunner().invoke(main, ["tournaments", "--db", str(arena.db)])
    assert listing.exit_code == 0 and "<b>alice</b> (hu" in listing.output
    # Replayable and marked on the site; escaped; no page for the stand-in; not on the front page.
    index = arena.render(tmp_path / "site")
    site = index.parent
    replay = (site / "matches" / f"{r.match_id}.html").read_text()
    assert "human game" in replay and "never rated" in replay
    assert "&lt;b&gt;alice&lt;/b&gt; (human)" in replay and "<b>alice</b>" not in replay
    assert "alice" not in index.read_text()
    assert not any("alice" in p.read_text() for p in (site / "bots").glob("*.html"))


def test_a_person_who_stops_answering_forfeits(arena: Arena) -> None:
    game = arena.play_human(list(OPPONENTS), seat=0, name="sleeper", seconds=1.0)
    game.join(120)
    assert game.finished and game.result is not None
    [fault] = game.result.faults
    assert fault.seat == 0 and fault.kind == "timeout" and fault.decision == 0
    assert "no answer within 1 s" in fault.message
    assert game.result.placements[0] == 3  # last, whatever the score
    # The bots played on, unharmed: the match went to its end without a fault of theirs.
    assert max(game.result.scores[1:]) >= 10
    assert arena.verify(game.id).ok


def test_a_person_who_leaves_forfeits_at_once(arena: Arena) -> None:
    game = arena.play_human(list(OPPONENTS), seat=2, name="quitter")
    _wait_decision(game)
    game.leave()
    game.join(120)
    assert game.result is not None
    [fault] = game.result.faults
    assert (fault.seat, fault.kind, fault.message) == (2, "timeout", LEFT)
    assert game.result.placements[2] == 3 and max(game.result.scores[:2]) >= 10


def test_answers_not_legal_or_not_meant_are_refused(arena: Arena) -> None:
    game = arena.play_human(list(OPPONENTS), seat=0)
    _wait_decision(game)
    decision = game.decision
    assert decision is not None
    with pytest.raises(ArenaError, match="not a legal action"):
        game.answer("nonsense", decision.turn)
    with pytest.raises(ArenaError, match="answered already"):
        game.answer(first_legal(decision.obs), decision.turn + 7)
    game.answer(first_legal(decision.obs), decision.turn)
    with pytest.raises(ArenaError, match="answered already|not your turn"):
        game.answer(first_legal(decision.obs), decision.turn)  # a second click
    play_out(game)
    assert game.result is not None and game.result.faults == []


def test_bad_games_are_refused(arena: Arena) -> None:
    with pytest.raises(ArenaError, match="seat"):
        arena.play_human(list(OPPONENTS), seat=3)
    with pytest.raises(ArenaError, match="bots|two"):
        arena.play_human(["random"])
    with pytest.raises(ValueError):
        human_limits(0.5)
    with Arena(":memory:") as memory, pytest.raises(ArenaError, match="database file"):
        memory.play_human(list(OPPONENTS))
