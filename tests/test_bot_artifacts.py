"""A stored bot is an artifact: its language, its files and its entry point round-trip through
the store, its hash is the artifact's, and a file is read by its extension (no sandbox here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.sandbox import BotSource
from arena.sandbox.runtime import Artifact
from arena.store import Store
from arena.store.bots import one_file
from arena.tournaments.entrants import read_bot_file, register_files, runnable

PY = "class Bot:\n    def act(self, obs):\n        return obs['legal'][0]\n"


def test_a_python_file_is_stored_as_its_one_file_artifact(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(PY)
    with Store(tmp_path / "a.db") as store:
        (v,) = register_files(store, [path])
    assert (v.language, v.entry, v.files, v.filename) == ("python", "mine.py", None, "mine.py")
    assert v.sha256 == one_file("python", PY, "mine.py").sha256 == v.artifact.sha256
    # The pool is given exactly what it was given before artifacts: the Python source.
    assert runnable(v) == BotSource("mine", PY, "mine.py")


def test_a_multi_file_bot_round_trips_through_the_store(tmp_path: Path) -> None:
    d = tmp_path / "crab"
    (d / "src").mkdir(parents=True)
    (d / "bot.toml").write_text('language = "python"\nentry = "src/main.py"\nname = "crab"\n')
    (d / "src" / "main.py").write_text(PY)
    (d / "src" / "util.bin").write_bytes(bytes(range(256)))
    bot = read_bot_file(d)
    assert bot.name == "crab" and bot.source == PY and bot.filename == "crab"
    with Store(tmp_path / "a.db") as store:
        v, created = store.add_bot_version(bot.name, bot.bot, bot.filename)
        again = store.bot_version(v.id)
        same, created_again = store.add_bot_version(bot.name, bot.bot, bot.filename)
    assert created and not created_again and same.id == v.id
    assert again.artifact == bot.bot and again.sha256 == bot.bot.sha256
    assert again.language == "python" and again.entry == "src/main.py" and again.source == PY
    assert isinstance(runnable(again), Artifact)


def test_the_hash_covers_language_entry_and_every_file() -> None:
    a = Artifact("c", (("bot.c", b"int main(){}"),), "bot.c")
    assert a.sha256 != Artifact("cpp", a.files, "bot.c").sha256
    assert a.sha256 != Artifact("c", (("bot.c", b"int main(){ }"),), "bot.c").sha256
    two = Artifact("c", (("a.c", b"x"), ("bot.c", b"y")), "bot.c")
    assert two.sha256 != Artifact("c", two.files, "a.c").sha256


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bot.xyz", "x", r"bot\.xyz: no runtime for \.xyz files \(the arena takes .*\.py"),
        ("bot.py", "x = 1\n", "defines no class Bot"),
    ],
)
def test_a_file_that_is_no_bot_is_one_clear_line(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ArenaError, match=message) as e:
        read_bot_file(path)
    assert "\n" not in str(e.value)
