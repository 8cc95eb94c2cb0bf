"""Euchre Arena: Three-Handed (Cutthroat) Euchre for bots.

``from arena import Arena`` is the front door for a Python user (:mod:`arena.api`): one
object holding the database and how to play, each ``arena`` command one call on it. The
modules at the top are the authors' API (``cards``, ``rules``, ``game``, ``solver``,
``worlds``, ``engine``), the shared leaves (``errors``, ``events``, ``untrusted``) and
``api``; the folders are the layers above the game, imported one way, down: ``sandbox`` <-
``matches`` <- ``stats`` <- ``store`` <- ``tournaments`` <- ``cluster`` <- ``views`` <-
``site`` <- ``cli`` (docs/architecture.md).
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# A library's logger stays silent until its user configures logging (a run writes its own
# log file): without a handler, Python would print its warnings to stderr.
logging.getLogger("arena").addHandler(logging.NullHandler())

if TYPE_CHECKING:
    from arena.api import Arena, LadderSettings, RunSettings, Standing

__all__ = ["Arena", "LadderSettings", "RunSettings", "Standing", "__version__"]

_FRONT_DOOR = frozenset({"Arena", "LadderSettings", "RunSettings", "Standing"})


def __getattr__(name: str) -> Any:
    # Loaded when asked for, not with the package: a bot's sandbox imports `arena.cards`
    # without the library behind it, and `arena --help` starts without it.
    if name in _FRONT_DOOR:
        return getattr(importlib.import_module("arena.api"), name)
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
