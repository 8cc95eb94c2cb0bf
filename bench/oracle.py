"""A cheating bot, for measuring how much room there is above an honest one (in-process only).

``bench/oracle.py`` is the bundled ``montecarlo`` with some or all of its guesses replaced by
the truth: at every decision it reads the engine's real game state (it walks up the call stack
to ``arena.engine``'s hand loop, which only works when the engine runs in the same process,
never in the sandbox) and judges the actions on true worlds, with the same solver, trick table
and match value. No honest bot can see this much, so its placed-above rate over a bot is a
ceiling for any honest bot against it.

What it sees is set by the environment variable ``ORACLE_SEES`` (read once, at import; worker
processes inherit it), so the room can be split by where the information is used:

``all`` (the default)
    every card, at every decision: the ceiling.
``play``
    every card during the card play only; before the first lead (bids, pick-up, discard,
    going alone, the keep) it guesses like ``montecarlo``. Its rate bounds what any inference
    during play (voids, reading the others' cards) could add to ``montecarlo``'s bidding.
``bidding``
    the whole true deal (the dummy and the kitty too) before the first lead only; it plays the
    cards like ``montecarlo``.
``hands``
    the other players' hands at every decision, never the dummy or the kitty (the
    maker sees the dummy at its keep, as in the game): what perfect reading of the players
    would give, with the dummy left to chance.

Example::

    python bench/strength.py bench/oracle.py heuristic bench/montecarlo_v1.py --seeds 40
    ORACLE_SEES=play python bench/strength.py bench/oracle.py montecarlo heuristic --seeds 40
"""

from __future__ import annotations

import importlib.util
import os
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

MODES = ("all", "play", "bidding", "hands")
"""What the oracle may see: see the module's description."""
SEES = os.environ.get("ORACLE_SEES", "all")
if SEES not in MODES:
    raise ValueError(f"ORACLE_SEES must be one of {', '.join(MODES)}, not {SEES!r}")

_TRUTH: dict[str, GameState] = {}


def sees_truth(phase: str) -> bool:
    """Whether the oracle judges a decision in ``phase`` on the true cards."""
    return SEES in ("all", "hands") or (SEES == "play") == (phase == "play")


def guesses_dummy(phase: str) -> bool:
    """Whether the oracle's worlds for ``phase`` guess the dummy (``hands`` mode before play,
    except at the maker's keep, where the maker has seen it)."""
    return SEES == "hands" and phase not in ("play", "keep")


class _Truth(_mc._Sampler):  # type: ignore[misc]
    """Guesses that are the real deal as it stands, where the mode allows it."""

    def deal_worlds(self, n: int) -> list[GameState]:
        phase = self.obs["phase"]
        if not sees_truth(phase):
            return super().deal_worlds(n)  # type: ignore[no-any-return]
        state = _TRUTH["state"]
        worlds = [state.copy() for _ in range(n)]
        if guesses_dummy(phase):
            # The dummy is left to chance: any 5 of the cards outside the players' hands and
            # the up-card (a reader of players who also counts cards knows which those are).
            pool = [*state.dummy, *state.deal.kitty[1:]]
            for world in worlds:
                self.rng.shuffle(pool)
                world.dummy = pool[: len(state.dummy)]
        return worlds

    def play_worlds(self, n: int) -> list[list[list[str]]]:
        if not sees_truth("play"):
            return super().play_worlds(n)  # type: ignore[no-any-return]
        state = _TRUTH["state"]
        hands = [list(h) for h in state.hands]
        if state.sitting_out is not None:
            hands[state.sitting_out] = []
        return [[list(h) for h in hands] for _ in range(n)]


_mc._Sampler = _Truth


class Bot(_mc.Bot):  # type: ignore[misc]
    """``montecarlo`` that sees the cards ``ORACLE_SEES`` says (one true world, searched
    twice, where it sees everything; the usual search where something is left to chance)."""

    name = "oracle"

    def act(self, obs: dict[str, Any]) -> Any:
        frame = sys._getframe(1)
        while frame is not None and not isinstance(frame.f_locals.get("state"), GameState):
            frame = frame.f_back
        if frame is None:
            raise RuntimeError("the oracle needs the engine in its own process")
        _TRUTH["state"] = frame.f_locals["state"]
        phase = obs["phase"]
        # One true world needs no repeats; a guessed one gets montecarlo's full search.
        if sees_truth(phase) and not guesses_dummy(phase):
            self.play_worlds = self.bid_worlds = self.min_worlds = 2
        else:
            self.play_worlds, self.bid_worlds = _mc.PLAY_WORLDS, _mc.BID_WORLDS
            self.min_worlds = _mc.MIN_WORLDS
        return super().act(obs)
