"""Bot files: names and authors read from the syntax tree (never by running the file), checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.entrants import check_static, declared, read_bot_file
from arena.errors import ArenaError


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
    check_static(bot, path)
    assert (bot.name, bot.author, bot.filename) == ("sneaky", "mallory", "sneaky.py")
    assert not marker.exists()


def test_name_falls_back_to_the_stem_and_can_be_overridden(tmp_path: Path) -> None:
    path = tmp_path / "my_bot.py"
    path.write_text("class Bot:\n    def act(self, obs):\n        return 0\n", encoding="utf-8")
    assert read_bot_file(path).name == "my_bot"
    assert read_bot_file(path, "Chosen Name").name == "Chosen Name"


@pytest.mark.parametrize("bad", ["", "   ", "x" * 65, "tab\there"])
def test_bad_names_are_refused(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "b.py"
    path.write_text("class Bot:\n    pass\n", encoding="utf-8")
    with pytest.raises(ArenaError, match="bad bot name"):
        read_bot_file(path, bad)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="cannot read bot file"):
        read_bot_file(tmp_path / "missing.py")
    binary = tmp_path / "bin.py"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ArenaError, match="cannot read bot file"):
        read_bot_file(binary)
