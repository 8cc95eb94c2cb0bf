"""Tournaments played in this process (trusted bots) and stored through the real Store.

For tests of what is computed from stored matches (deal verification, clone and kingmaking
reports) where the sandbox adds nothing but time. Each bot is a source text: it is stored as
a bot version and the very same text is executed here. ``random`` is reseeded per deal seed
and seat before each ``Bot()``, as the sandbox host does, so a copy of a random bot draws the
same stream in the same seat.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from arena.engine import Rules, play_match
from arena.matches import scheduler
from arena.matches.secrecy import SecretFile
from arena.sandbox.values import Limits, MatchOutcome, bot_random_seed
from arena.store import BotVersion, Store
from arena.tournaments.runner import outcome_record
from arena.tournaments.schedules import FixedSchedule
from arena.tournaments.tournament import plan_round_robin

FIRST = "class Bot:\n    def act(self, obs):\n        return obs['legal'][0]\n"
LAST = "class Bot:\n    def act(self, obs):\n        return obs['legal'][-1]\n"
MIDDLE = (
    "class Bot:\n    def act(self, obs):\n        return obs['legal'][len(obs['legal']) // 2]\n"
)
RANDOM = (
    "import random\n"
    "class Bot:\n"
    "    def __init__(self):\n"
    "        self.rng = random.Random(random.getrandbits(64))\n"
    "    def act(self, obs):\n"
    "        return obs['legal'][int(self.rng.random() * len(obs['legal']))]\n"
)
LIMITS = Limits(decision_seconds=1.0)
"""The limits of the tournaments played here (part of each tournament's identity)."""


def bot_class(source: str) -> type:
    """The ``Bot`` class defined by ``source``."""
    namespace: dict[str, Any] = {}
    exec(compile(source, "<bot>", "exec"), namespace)
    return namespace["Bot"]  # type: ignore[no-any-return]


def register(store: Store, bots: dict[str, str]) -> list[BotVersion]:
    """Store each ``name: source`` as a bot version (a trailing comment keeps copies apart)."""
    return [store.add_bot_version(n, f"{src}# {n}\n", f"{n}.py")[0] for n, src in bots.items()]


def play_specs(store: Store, tid: str, specs: Sequence[scheduler.MatchSpec], rules: Rules) -> None:
    """Play ``specs`` in this process, dealing from each spec's deal seed, and store them."""
    classes: dict[str, type] = {}
    records = []
    for spec in specs:
        bots = []
        for seat, e in enumerate(spec.seats):
            if e.key not in classes:
                classes[e.key] = bot_class(store.bot_version(e.version_id).source)
            random.seed(bot_random_seed(spec.deal_seed, seat))
            bots.append(classes[e.key]())
        m = play_match(bots, seed=spec.deal_seed, rules=rules)
        outcome = MatchOutcome(m, [], list(m.placements), [{}, {}, {}], ["", "", ""])
        records.append(outcome_record(spec, outcome, 0.0))
    store.write_results(tid, records)


def play(
    store: Store,
    bots: dict[str, str],
    *,
    rounds: int = 2,
    seed: int = 3,
    secret_file: SecretFile | None = None,
    finish: bool = True,
) -> str:
    """A whole tournament of ``bots`` played in-process, planned by
    :func:`arena.tournaments.tournament.plan_round_robin`."""
    versions = register(store, bots)
    limits = LIMITS
    the_plan = plan_round_robin(
        store,
        versions,
        rounds=rounds,
        seed=seed,
        rules=Rules(),
        limits=limits,
        secret_file=secret_file,
    )
    fixed = the_plan.schedule
    assert isinstance(fixed, FixedSchedule)
    play_specs(store, the_plan.tid, fixed.todo, the_plan.rules)
    if finish:
        store.set_status(the_plan.tid, "finished")
    return the_plan.tid
