"""A Dask worker that lies to the arena (``dask worker ... --preload hostile_worker.py``).

It replaces ``arena.tournaments.runner.play_batch`` in the worker process (what a compromised worker
machine can do), chosen by ``ARENA_HOSTILE``:

- ``forge``: plays the batch for real, then rewrites every record so that the bot named
  ``random`` wins (scores swapped, places to match), the forgery issue 27 stored.
- ``pickle``: returns an object whose unpickling would create the file ``ARENA_HOSTILE_MARKER``
  (and print ``ESCAPED``) in whatever process unpickles it: the arena's, if it unpickled it.
"""

from __future__ import annotations

import json
import os
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


def _hostile(batch: Any) -> Any:
    if os.environ.get("ARENA_HOSTILE") == "pickle":
        return Payload(os.environ["ARENA_HOSTILE_MARKER"])
    return _forge(batch)


def dask_setup(worker: Any) -> None:
    """Dask's preload hook: swap in the hostile batch player."""
    arena.tournaments.runner.play_batch = _hostile  # type: ignore[assignment]
