"""A forfeit counts as what it is in every table: a real bot that faults in every match, run
through the real ``arena`` console script, places last and scores 0 in the duplicate table (the
fallback that finished its matches scored for nobody)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import arena, ok, write_bot

# Answers an illegal card at its first play decision: a fault (a forfeit) in every match.
BROKEN = """
class Bot:
    name = "broken"

    def act(self, obs):
        if obs["phase"] == "play":
            return "XX"
        return obs["legal"][0]
"""


@pytest.mark.slow
def test_a_bot_that_forfeits_every_match_is_last_in_the_duplicate_table(tmp_path: Path) -> None:
    write_bot(tmp_path, "broken.py", BROKEN)
    ok(
        arena(
            "run", "random", "heuristic", "broken.py", "--rounds", "1", "--workers", "2",
            "--db", "arena.db", "--no-site", cwd=tmp_path,
        )
    )  # fmt: skip
    body = json.loads(ok(arena("standings", "--json", "--db", "arena.db", cwd=tmp_path)))
    faults = {b["name"]: b["faults"] for b in body["bots"]}
    assert faults["broken"] == 6 and faults["random"] == faults["heuristic"] == 0
    duplicate = {d["name"]: d for d in body["duplicate"]["bots"]}
    broken = duplicate["broken"]
    assert broken["points"]["value"] == 0  # the fallback's points are not the bot's
    assert [d["name"] for d in body["duplicate"]["bots"]][-1] == "broken"
    # Every (deal, seat) is held by all three bots: a forfeit scores the least any seat can.
    assert all(
        broken["score"]["value"] < d["score"]["value"]
        for n, d in duplicate.items()
        if n != "broken"
    )
    table = ok(arena("standings", "--db", "arena.db", cwd=tmp_path))
    duplicate_rows = table[table.index("Duplicate score") :].splitlines()
    assert any(line.startswith("broken") and " 0.00 " in line for line in duplicate_rows), table
