"""Every starter kit through the real command line, as an author arriving with one file would
use it: `arena check`, then a round robin with `random` and `heuristic` (`arena run`), in
subprocesses, real sandboxes and a real SQLite file. Each kit must play with no fault of its
own, and place ahead of `random` on average."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arena.tournaments.entrants import name_comment, read_bot_file

sys.path.insert(0, str(Path(__file__).parent))
from cli_support import arena, ok  # noqa: E402
from native_driver import KITS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("language", list(KITS))
def test_a_kit_passes_check_and_places_ahead_of_random_in_a_round_robin(
    language: str, tmp_path: Path
) -> None:
    kit = str(ROOT / KITS[language])
    assert "ok: the bot speaks protocol v1" in ok(arena("check", kit, cwd=tmp_path))
    ok(arena("run", kit, "random", "heuristic", "--rounds", "2", "--seed", "3", cwd=tmp_path))
    shown = ok(arena("standings", "--json", cwd=tmp_path))
    rows = {row["name"]: row for row in json.loads(shown)["bots"]}
    mine = rows[f"{language}-kit"]  # the name from its `arena: name=` comment
    assert mine["matches"] == 12 and mine["faults"] == 0, mine
    assert rows["random"]["faults"] == 0 and rows["heuristic"]["faults"] == 0
    # Beating random is placing ahead of it on average: with heuristic in every match, a kit can
    # take second place in all twelve and still win none, as random does.
    assert mine["mean_place"] < rows["random"]["mean_place"], rows


def test_a_one_file_bot_names_itself_in_a_comment(tmp_path: Path) -> None:
    """`// arena: name=...` is to a C file what `Bot.name` is to a Python one; `--name` wins,
    and a name that is not a good name is refused in one line, as for a Python bot."""
    assert name_comment("// arena: name=my-bot\nint main(){}") == "my-bot"
    assert name_comment("int main(){} // no declaration") is None
    src = (ROOT / KITS["c"]).read_text()
    bot = tmp_path / "bot.c"
    bot.write_text(src.replace("name=c-kit", "name=mine"))
    assert read_bot_file(bot).name == "mine"
    assert read_bot_file(bot, "chosen").name == "chosen"
    bot.write_text("/* arena: name=" + "x" * 200 + " */\n" + src)
    with pytest.raises(Exception, match="comment"):
        read_bot_file(bot)
