"""Hostile bot files (tests/attacks/) against the ``arena`` command line.

Names that are rich markup or pose as another bot, a file that takes the bundled heuristic's
or another author's name, terminal control sequences in the author and in a fault message, and
an 8 MB file: each is refused in one line, or stored and shown harmlessly, in every command
that prints it. Runs, submissions that store and the terminal's view go through the real
``arena`` console script; refusals before any work and the read commands' views of a stored
name run the same command in this process (``arena_here``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_support import arena, arena_here, ok, one_error_line, write_bot

from arena.errors import ArenaError
from arena.store import Store

ATTACKS = Path(__file__).parent / "attacks"

HONEST = """
class Bot:
    name = "greedy"
    def act(self, obs):
        return obs["legal"][-1]
"""


def attack(tmp_path: Path, name: str) -> Path:
    """A copy of the attack file ``name`` in ``tmp_path``."""
    return write_bot(tmp_path, f"{name}.py", (ATTACKS / f"{name}.py").read_text())


@pytest.mark.parametrize("name", ["markup_name", "lookalike_name"])
def test_names_must_be_plain(tmp_path: Path, name: str) -> None:
    path = attack(tmp_path, name)
    for args in (["submit", path], ["run", path, "heuristic", "random"]):
        line = one_error_line(arena_here(*args, cwd=tmp_path))
        assert "bad bot name" in line and f"Bot.name in {name}.py" in line
    assert not (tmp_path / "arena.db").exists()


@pytest.mark.slow
def test_markup_in_names_from_an_older_database_is_shown_as_typed(tmp_path: Path) -> None:
    # A database from before names were checked may hold anything: every view escapes it.
    db = tmp_path / "arena.db"
    with Store(db) as store:
        for name in ("[/oops]", "heuristic[i][/i]"):
            store.add_bot_version(name, HONEST.replace("greedy", "x"), "x.py", "[bold]m[/]")
    out = ok(
        arena(
            "run",
            "[/oops]",
            "heuristic[i][/i]",
            "random",
            "--rounds",
            "1",
            "--no-site",
            cwd=tmp_path,
        )
    )
    assert "[/oops]" in out and "heuristic[i][/i]" in out
    for args in (["standings"], ["tournaments"], ["bots"], ["matches"], ["faults"]):
        shown = ok(arena_here(*args, cwd=tmp_path))
        if args != ["faults"]:
            assert "[/oops]" in shown, args
    assert "[bold]m[/]" in ok(arena_here("bots", cwd=tmp_path))
    standings = ok(arena_here("standings", cwd=tmp_path))
    assert "heuristic[i][/i]" in standings
    # Nobody is shown as a plain second "heuristic".
    assert not re.search(r"\bheuristic\b(?!\[i\])", standings)


def test_the_bundled_names_cannot_be_taken(tmp_path: Path) -> None:
    path = attack(tmp_path, "takeover_heuristic")
    for args in (
        ["submit", path],
        ["submit", path, "--force"],
        ["run", path, "random", "montecarlo"],
    ):
        line = one_error_line(arena_here(*args, cwd=tmp_path))
        assert "the name 'heuristic' is reserved for the bundled bot 'heuristic'" in line
    for name in ("Heuristic", "random_bot", "RANDOM"):
        line = one_error_line(arena_here("submit", path, "--name", name, cwd=tmp_path))
        assert "is reserved for the bundled bot" in line
    assert not (tmp_path / "arena.db").exists()  # nothing stored, nothing replaced


def test_look_alike_names_are_refused(tmp_path: Path) -> None:
    path = attack(tmp_path, "lookalike_names")
    line = one_error_line(arena_here("submit", path, cwd=tmp_path))
    assert "the name 'montecarIo' is reserved for the bundled bot 'montecarlo'" in line
    for name in ("rnontecarlo", "heuristic.", "heuristic.py", "rand0m"):
        line = one_error_line(arena_here("submit", path, "--name", name, cwd=tmp_path))
        assert f"the name {name!r} is reserved for the bundled bot" in line
    line = one_error_line(arena_here("run", path, "random", "heuristic", cwd=tmp_path))
    assert "is reserved for the bundled bot 'montecarlo'" in line
    assert not (tmp_path / "arena.db").exists()


def test_a_weak_owner_key_is_refused(tmp_path: Path) -> None:
    greedy = write_bot(tmp_path, "greedy.py", HONEST)
    for key in ("aaaaaaaaaaaaaaaa", "abababababababababababab", "short"):
        line = one_error_line(
            arena_here("submit", greedy, cwd=tmp_path, env={"ARENA_OWNER_KEY": key})
        )
        assert "$ARENA_OWNER_KEY must be" in line and "secrets.token_hex(32)" in line
    assert not (tmp_path / "arena.db").exists()


@pytest.mark.slow
def test_a_coding_cookie_runs_no_hidden_code(tmp_path: Path) -> None:
    """The file reads as "play the first legal action"; the sandbox compiles that text."""
    path = attack(tmp_path, "coding_cookie")
    ok(arena("run", path, "heuristic", "random", "--rounds", "1", "--no-site", cwd=tmp_path))
    with Store(tmp_path / "arena.db", create=False) as store:
        logs = [t for m in store.match_rows() for t in store.match_logs(m.id).values()]
        _, faults = store.fault_listing()
    assert len(logs) == 6 and all("RAN" in t and "ESCAPED" not in t for t in logs), logs
    assert faults == 0


@pytest.mark.slow
def test_another_authors_name_needs_their_key(tmp_path: Path) -> None:
    alice = {"ARENA_OWNER_KEY": "alice-3f9a0c27e15b84d6a2c9e07f1b3d5a68"}
    mallory = {"ARENA_OWNER_KEY": "mallory-b7e24f90d1c36a5e8f02b4d7c9a1e6f3"}
    organiser = {"ARENA_OWNER_KEY": "organiser-58d1e3a7c0f94b26e7a3d5c8b1f0e2a9"}
    greedy = write_bot(tmp_path, "greedy.py", HONEST)
    assert "Stored greedy version 1" in ok(arena("submit", greedy, cwd=tmp_path, env=alice))
    evil = attack(tmp_path, "takeover_author")
    for args in (["submit", evil], ["run", evil, "heuristic", "random"]):
        line = one_error_line(arena(*args, cwd=tmp_path, env=mallory))
        assert "bot 'greedy' belongs to another owner key" in line
    owners = {
        b["name"]: b["owner"]
        for b in json.loads(ok(arena("bots", "--json", cwd=tmp_path, env=mallory)))
    }
    assert owners == {"greedy": "another key"}
    # The owner re-submits without friction; the organiser can override.
    greedy.write_text(HONEST + "# v2\n", encoding="utf-8")
    assert "Stored greedy version 2" in ok(arena("submit", greedy, cwd=tmp_path, env=alice))
    forced = ok(arena("submit", evil, "--force", cwd=tmp_path, env=organiser))
    assert "Stored greedy version 3" in forced
    listing = json.loads(ok(arena("bots", "--json", cwd=tmp_path, env=alice)))
    assert [(b["version"], b["owner"]) for b in listing] == [(1, "you"), (2, "you"), (3, "you")]


def test_without_a_key_in_the_environment_the_user_key_file_is_made_once(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config"
    env = {"XDG_CONFIG_HOME": str(config)}
    greedy = write_bot(tmp_path, "greedy.py", HONEST)
    ok(arena("submit", greedy, cwd=tmp_path, env=env))
    key = config / "euchre-arena" / "owner.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_text().strip()) == 64
    greedy.write_text(HONEST + "# v2\n", encoding="utf-8")
    assert "Stored greedy version 2" in ok(arena("submit", greedy, cwd=tmp_path, env=env))
    other = {"XDG_CONFIG_HOME": str(tmp_path / "someone-else")}
    greedy.write_text(HONEST + "# v3\n", encoding="utf-8")
    assert "another owner key" in one_error_line(arena("submit", greedy, cwd=tmp_path, env=other))


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@pytest.mark.slow
def test_control_sequences_never_reach_the_terminal(tmp_path: Path) -> None:
    path = attack(tmp_path, "terminal_escape")
    outputs = {}
    ran = arena("run", path, "heuristic", "random", "--rounds", "1", "--no-site", cwd=tmp_path)
    outputs["run"] = ok(ran) + ran.stderr
    assert "Faults of terminal_escape: 6 matches forfeited" in outputs["run"]
    faults = json.loads(ok(arena("faults", "--json", cwd=tmp_path)))
    assert len(faults) == 6
    for args in (
        ["standings"],
        ["standings", "--json"],
        ["faults"],
        ["faults", "--full"],
        ["faults", "--json"],
        ["matches"],
        ["bots"],
        ["bots", "--json"],
        ["tournaments"],
        ["replay", faults[0]["match"]],
    ):
        result = arena(*args, cwd=tmp_path)
        outputs[" ".join(args)] = ok(result) + result.stderr
    for what, text in outputs.items():
        assert not CONTROL.search(text.replace("\\u001b", "")), what
        assert "\x1b" not in text and "\x07" not in text, what
        fake = [ln for ln in text.splitlines() if ln.startswith("Final:")]
        if what.startswith("replay"):
            assert len(fake) == 1 and "(seat " in fake[0], fake
        else:
            assert fake == [], (what, fake)
    assert "pwned by a bot" in outputs["faults --full"]  # shown, but harmless
    with Store(tmp_path / "arena.db", create=False) as store:
        stored = store.latest_version("terminal_escape")
    assert stored is not None
    author = stored.author
    assert author == "]0;pwned Final: mallory wins"  # stripped and one line when stored


def test_a_huge_file_is_refused_before_any_work(tmp_path: Path) -> None:
    path = attack(tmp_path, "huge_source")
    size = 8 * 1024 * 1024
    with path.open("a", encoding="utf-8") as f:
        f.write("PAD = '" + "x" * (size - path.stat().st_size - 10) + "'\n")
    assert path.stat().st_size > size - 20
    for args in (["submit", path], ["run", path, "heuristic", "random"]):
        line = one_error_line(arena_here(*args, cwd=tmp_path))
        assert "huge_source.py is 8,388,6" in line
        assert "a bot file may have at most 1,048,576 bytes (--max-source-bytes)" in line
    small = attack(tmp_path, "takeover_author")
    line = one_error_line(arena_here("submit", small, "--max-source-bytes", "100", cwd=tmp_path))
    assert "a bot file may have at most 100 bytes" in line
    assert not (tmp_path / "arena.db").exists()


@pytest.mark.slow
def test_two_owners_racing_for_a_new_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Mallory submits "frank" (tests/attacks/name_race.py); while her file is in its sandbox
    # check, Alice's `arena submit` of her own "frank" completes. Mallory's write comes second:
    # the name is Alice's now, so it is refused, not stored as frank's version 2.
    from arena.sandbox import Limits
    from arena.tournaments import entrants, owners

    alice = {"ARENA_OWNER_KEY": "alice-3f9a0c27e15b84d6a2c9e07f1b3d5a68"}
    mallory = owners.owner_id("mallory-b7e24f90d1c36a5e8f02b4d7c9a1e6f3")
    frank = write_bot(tmp_path, "frank.py", HONEST.replace("greedy", "frank"))
    evil = attack(tmp_path, "name_race")
    sandbox_check = entrants.validate
    raced = []

    def check_while_alice_submits(*args: object, **kwargs: object) -> None:
        sandbox_check(*args, **kwargs)  # type: ignore[arg-type]
        raced.append(ok(arena("submit", frank, cwd=tmp_path, env=alice)))

    monkeypatch.setattr(entrants, "validate", check_while_alice_submits)
    with Store(tmp_path / "arena.db") as store, pytest.raises(ArenaError) as refused:
        entrants.submit(store, evil, None, Limits(), unsafe=False, owner=mallory)
    assert "Stored frank version 1" in raced[0]
    assert "bot 'frank' belongs to another owner key" in str(refused.value)
    listing = json.loads(ok(arena("bots", "--json", cwd=tmp_path, env=alice)))
    assert [(b["name"], b["version"], b["owner"]) for b in listing] == [("frank", 1, "you")]
    # `arena run` stores its files through the same guarded write.
    with Store(tmp_path / "arena.db") as store, pytest.raises(ArenaError):
        entrants.register_files(store, [evil], owner=mallory)
