"""The ladder's field kept in step with a real store (arena.ladder.field): an owner's bots
count together toward the wait bound, live (sync) and when a ladder is resumed (restore)."""

from __future__ import annotations

from pathlib import Path

from arena.engine import Rules
from arena.ladder.field import State, restore, sync
from arena.ladder.policy import Ladder, Parameters
from arena.matches import scheduler
from arena.store import LADDER, Store


def test_an_owners_bots_share_one_bound_live_and_resumed(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        for i in range(4):
            store.add_bot_version(f"solo{i}", f"class Bot:\n    n = {i}\n", "b.py", owner=f"o{i}")
        for i in range(20):
            store.add_bot_version(f"many{i}", f"class Bot:\n    m = {i}\n", "b.py", owner="big")
        store.add_bot_version("free", "class Bot:\n    f = 1\n", "b.py")  # no owner key
        config = {"kind": "ladder", "seed": 1, "rules": Rules().to_dict(), "limits": {},
                  "bundled": [], "epoch_sets": 10, "rounds": 0}  # fmt: skip
        lid = scheduler.tournament_id(config)
        store.ensure_tournament(lid, config, [], 0, kind=LADDER)
        state = State(Ladder(seed=1, params=Parameters()), lookahead=0)
        field = sync(store, lid, state, [])
        name = {v.id: v.name for v in field}
        bounds = {name[v]: b for v, b in state.ladder.bounds().items()}
        # Six owners (four solos, "big", and "free" on its own): W(6) = 12, shared by big's 20.
        assert len(bounds) == 25
        assert {bounds[f"solo{i}"] for i in range(4)} == {12} and bounds["free"] == 12
        assert {bounds[f"many{i}"] for i in range(20)} == {12 * 20}
        # Counted by bot the field of 25 would give every bot a bound of 25.
        assert Parameters().wait_bound(25) == 25
        resumed = restore(store, lid, 1, Parameters(), 0)
        assert resumed.ladder.bounds() == state.ladder.bounds()
