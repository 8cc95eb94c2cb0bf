"""A cheating bot, for measuring how much room there is above an honest one (in-process only).

``bench/oracle.py`` is the bundled ``montecarlo`` with its guesses replaced by the truth: at
every decision it reads the engine's real game state (it walks up the call stack to
``arena.engine``'s hand loop, which only works when the engine runs in the same process, never
in the sandbox), and judges each action on that one true deal, with the same solver, trick
table and match value. No honest bot can see this much, so its placed-above rate over a bot is
a ceiling for any honest bot against it. Example::

    python bench/strength.py bench/oracle.py heuristic bench/montecarlo_v1.py --seeds 40
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from arena.game import GameState

_spec = importlib.util.spec_from_file_location(
    "montecarlo_for_oracle", Path(__file__).resolve().parent.parent / "bots" / "montecarlo.py"
)
assert _spec is not None and _spec.loader is not None
_mc: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mc)

_TRUTH: dict[str, GameState] = {}


class _Truth(_mc._Sampler):  # type: ignore[misc]
    """Every "guess" is the real deal as it stands."""

    def deal_worlds(self, n: int) -> list[GameState]:
        return [_TRUTH["state"].copy() for _ in range(n)]

    def play_worlds(self, n: int) -> list[list[list[str]]]:
        state = _TRUTH["state"]
        hands = [list(h) for h in state.hands]
        if state.sitting_out is not None:
            hands[state.sitting_out] = []
        return [[list(h) for h in hands] for _ in range(n)]


_mc._Sampler = _Truth


class Bot(_mc.Bot):  # type: ignore[misc]
    """``montecarlo`` that sees every card (two copies of the one true world per decision)."""

    name = "oracle"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed, play_worlds=2, bid_worlds=2, min_worlds=2)

    def act(self, obs: dict[str, Any]) -> Any:
        frame = sys._getframe(1)
        while frame is not None and not isinstance(frame.f_locals.get("state"), GameState):
            frame = frame.f_back
        if frame is None:
            raise RuntimeError("the oracle needs the engine in its own process")
        _TRUTH["state"] = frame.f_locals["state"]
        return super().act(obs)
