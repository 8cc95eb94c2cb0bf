"""Bot files: names and authors read from the syntax tree (never by running the file), checks,
the size cap, owners and reserved names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.sandbox.botfile import bundled
from arena.store import Store
from arena.tournaments.entrants import BotFile, check_owner, declared, read_bot_file
from arena.tournaments.owners import BUNDLED


@pytest.mark.parametrize(
    ("source", "name"),
    [
        pytest.param('class Bot:\n    name = "greedy"\n', "greedy", id="plain"),
        pytest.param('class Bot:\n    name: str = "typed"\n', "typed", id="annotated"),
        pytest.param("class Bot:\n    name = 'x' + 'y'\n", None, id="not-a-literal"),
        pytest.param('class Other:\n    name = "nope"\n', None, id="other-class"),
        pytest.param('name = "module"\nclass Bot:\n    pass\n', None, id="module-level"),
        pytest.param("class Bot(:\n", None, id="syntax-error"),
    ],
)
def test_declared_name(source: str, name: str | None) -> None:
    assert declared(source, "name") == name


def test_the_file_is_parsed_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "sneaky.py"
    path.write_text(
        f"open({str(marker)!r}, 'w').write('x')\n"
        "class Bot:\n    name = 'sneaky'\n    author = 'mallory'\n"
        "    def act(self, obs):\n        return obs['legal'][0]\n",
        encoding="utf-8",
    )
    bot = read_bot_file(path)
    assert (bot.name, bot.author, bot.filename) == ("sneaky", "mallory", "sneaky.py")
    assert not marker.exists()


def test_name_falls_back_to_the_stem_and_can_be_overridden(tmp_path: Path) -> None:
    path = tmp_path / "my_bot.py"
    path.write_text("class Bot:\n    def act(self, obs):\n        return 0\n", encoding="utf-8")
    assert read_bot_file(path).name == "my_bot"
    assert read_bot_file(path, "chosen-name").name == "chosen-name"


@pytest.mark.parametrize(
    "bad", ["", "   ", "x" * 41, "tab\there", "[/oops]", "heuristic[i][/i]", "Chosen Name"]
)
def test_bad_names_are_refused(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "b.py"
    path.write_text("class Bot:\n    pass\n", encoding="utf-8")
    with pytest.raises(ArenaError, match="bad bot name"):
        read_bot_file(path, bad)
    declared_bad = tmp_path / "c.py"
    declared_bad.write_text(f"class Bot:\n    name = {bad!r}\n", encoding="utf-8")
    with pytest.raises(ArenaError, match=r"bad bot name .*\(Bot.name in c.py"):
        read_bot_file(declared_bad)


def test_author_and_file_name_are_cleaned_and_capped(tmp_path: Path) -> None:
    path = tmp_path / "evil\x1b]0;t\x07.py"
    path.write_text(
        "class Bot:\n    name = 'evil'\n    author = '\\x1b]0;pwned\\x07' + 'x' * 500\n",
        encoding="utf-8",
    )
    # Not a literal: no author. A literal one is cleaned and capped.
    assert read_bot_file(path).author is None
    path.write_text(
        "class Bot:\n    name = 'evil'\n    author = '\\x1b]0;pwned\\x07\\nFinal: "
        + "x" * 500
        + "'\n",
        encoding="utf-8",
    )
    bot = read_bot_file(path)
    assert bot.author is not None and len(bot.author) <= 80
    assert bot.author.startswith("]0;pwned Final: x") and "\x1b" not in bot.author
    assert bot.filename == "evil]0;t.py"


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.py"
    path.write_text("class Bot:\n    pass\n" + "#" * 2000 + "\n", encoding="utf-8")
    with pytest.raises(
        ArenaError, match=r"big.py is 2,\d{3} bytes; a bot file may have at most 1,000"
    ):
        read_bot_file(path, max_bytes=1000)
    assert read_bot_file(path, max_bytes=5000).name == "big"
    with pytest.raises(ArenaError, match="not a regular file"):
        read_bot_file("/dev/zero")


def test_the_file_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = ast.parse

    def counting(source: str, *args: object, **kwargs: object) -> ast.Module:
        calls.append(source)
        return real(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ast, "parse", counting)
    path = tmp_path / "once.py"
    path.write_text("class Bot:\n    name = 'once'\n    author = 'me'\n", encoding="utf-8")
    assert read_bot_file(path).author == "me"
    assert len(calls) == 1


def test_bundled_names_are_reserved_for_the_bundled_files(tmp_path: Path) -> None:
    store = Store(tmp_path / "o.db")
    real = bundled("heuristic").read_text(encoding="utf-8")
    assert check_owner(store, BotFile("heuristic", real, "heuristic.py", None), "k1") == BUNDLED
    for name in ("heuristic", "Heuristic", "random_bot", "RANDOM"):
        fake = BotFile(name, "class Bot:\n    pass\n", "x.py", None)
        with pytest.raises(ArenaError, match="reserved for the bundled bot"):
            check_owner(store, fake, "k1", force=True)


def test_a_name_takes_versions_from_its_owner_only(tmp_path: Path) -> None:
    store = Store(tmp_path / "o.db")
    mine = BotFile("greedy", "class Bot:\n    pass\n", "greedy.py", None)
    assert check_owner(store, mine, "k1") == "k1"
    store.add_bot_version(mine.name, mine.source, mine.filename, None, "k1")
    changed = BotFile("greedy", "class Bot:\n    x = 1\n", "greedy.py", None)
    assert check_owner(store, changed, "k1") == "k1"
    with pytest.raises(ArenaError, match="belongs to another owner key"):
        check_owner(store, changed, "k2")
    assert check_owner(store, changed, "k2", force=True) == "k2"
    with pytest.raises(ArenaError, match="differs only in letter case"):
        check_owner(store, BotFile("Greedy", "class Bot: pass", "g.py", None), "k2")
    # A name stored without an owner key: --force binds it, once.
    store.add_bot_version("legacy", "class Bot: pass", "legacy.py")
    old = BotFile("legacy", "class Bot:\n    y = 2\n", "legacy.py", None)
    with pytest.raises(ArenaError, match="has no owner key"):
        check_owner(store, old, "k1")
    store.add_bot_version("legacy", old.source, old.filename, None, "k1")
    assert store.bot_owners()["legacy"] == "k1"
    assert store.bot_owners()["greedy"] == "k1"


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="cannot read bot file"):
        read_bot_file(tmp_path / "missing.py")
    binary = tmp_path / "bin.py"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ArenaError, match="cannot read bot file"):
        read_bot_file(binary)


def test_names_that_read_alike_are_refused(tmp_path: Path) -> None:
    """A second owner cannot store a look-alike of a stored or a bundled name: letter case,
    I/l/1, O/0, rn/m, vv/w, punctuation and a trailing .py are folded away."""
    store = Store(tmp_path / "o.db")
    greedy = BotFile("greedy", "class Bot:\n    pass\n", "greedy.py", None)
    store.add_bot_version(greedy.name, greedy.source, greedy.filename, None, "k1")
    for name in (
        "montecarIo",
        "rnontecarlo",
        "m0ntecarlo",
        "heuristic.",
        "heuristic.py",
        "Heur1stic",
        "random-bot",
        "RANDOM_BOT",
    ):
        with pytest.raises(ArenaError, match="reserved for the bundled bot"):
            check_owner(store, BotFile(name, "class Bot: pass", "x.py", None), "k2")
    for name in ("greedy.", "gr-eedy", "GREEDY", "greedy.py"):
        with pytest.raises(ArenaError, match="reads like the existing bot 'greedy'"):
            check_owner(store, BotFile(name, "class Bot: pass", "x.py", None), "k2")
    # Different names stay free, and the owner's own name takes new versions.
    for name in ("greedy2", "montecarlo_v2", "heuristics", "randy"):
        assert check_owner(store, BotFile(name, "class Bot: pass", "x.py", None), "k2") == "k2"
    assert check_owner(store, greedy, "k1") == "k1"
