"""A Dask worker that lies to the arena (``dask worker ... --preload hostile_worker.py``).

It replaces ``arena.tournaments.runner.play_batch`` in the worker process (what a compromised worker
machine can do), chosen by ``ARENA_HOSTILE``:

- ``forge``: plays the batch for real, then rewrites every record so that the bot named
  ``random`` wins (scores swapped, places to match), the forgery issue 27 stored.
- ``pickle``: returns an object whose unpickling would create the file ``ARENA_HOSTILE_MARKER``
  (and print ``ESCAPED``) in whatever process unpickles it: the arena's, if it unpickled it.
- ``fault``: plays the batch for real, then reports a ``timeout`` for the two rivals of the bot
  named ``random`` and recomputes the places (issue 34's first attack: the replay of the cards
  passes, only the fault is invented).
- ``drop``: plays the batch for real and leaves out every record in which ``heuristic`` wins.
- ``hang``: never answers (the task sleeps for ever).
- ``steer``: plays ``heuristic``'s seats with a first-legal bot of its own (legal moves, a
  record that replays, no fault: what only a cross-check sees).
- ``dropset``: plays the batch for real and returns nothing of it (a ladder set left out).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from typing import Any

import arena.tournaments.runner

_real = arena.tournaments.runner.play_batch


class Payload:
    """Unpickles into a call of ``os.system``."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}; echo ESCAPED pickle",))


def _forge(batch: Any) -> str:
    records = json.loads(_real(batch))
    for r, spec in zip(records, batch.matches, strict=False):
        names = [e.name for e in spec.seats]
        if "random" not in names:
            continue
        s = names.index("random")
        top = max(range(3), key=lambda i: r["scores"][i])
        r["scores"][s], r["scores"][top] = r["scores"][top] + 1, r["scores"][s]
        r["placements"] = [1 if i == s else 2 for i in range(3)]
        other = [i for i in range(3) if i != s]
        r["placements"][other[1]] = 3
    return json.dumps(records)


def _fault(batch: Any) -> str:
    from arena.sandbox.values import forfeit_placements

    records = json.loads(_real(batch))
    for r, spec in zip(records, batch.matches, strict=False):
        names = [e.name for e in spec.seats]
        if "random" not in names or r["faults"]:
            continue
        rivals = [i for i in range(3) if names[i] != "random"]
        r["faults"] = [
            {"seat": i, "kind": "timeout", "message": "used over 1 s of CPU on one decision",
             "decision": 0}
            for i in rivals
        ]  # fmt: skip
        r["placements"] = forfeit_placements(r["scores"], set(rivals))
    return json.dumps(records)


def _drop(batch: Any) -> str:
    records = json.loads(_real(batch))
    kept = []
    for r, spec in zip(records, batch.matches, strict=False):
        names = [e.name for e in spec.seats]
        if "heuristic" in names and r["placements"][names.index("heuristic")] == 1:
            continue
        kept.append(r)
    return json.dumps(kept)


def _hang(batch: Any) -> str:
    while True:
        time.sleep(60)


def _hostile(batch: Any) -> Any:
    mode = os.environ.get("ARENA_HOSTILE")
    if mode == "pickle":
        return Payload(os.environ["ARENA_HOSTILE_MARKER"])
    if mode == "fault":
        return _fault(batch)
    if mode == "drop":
        return _drop(batch)
    if mode == "hang":
        return _hang(batch)
    if mode == "steer":
        from arena.sandbox import BotSource

        weak = "class Bot:\n    def act(self, obs):\n        return obs['legal'][0]\n"
        sources = {
            k: BotSource(v.name, weak, v.filename) if v.name == "heuristic" else v
            for k, v in batch.sources.items()
        }
        return _real(dataclasses.replace(batch, sources=sources))
    if mode == "dropset":
        _real(batch)
        return "[]"
    return _forge(batch)


def dask_setup(worker: Any) -> None:
    """Dask's preload hook: swap in the hostile batch player."""
    arena.tournaments.runner.play_batch = _hostile  # type: ignore[assignment]
