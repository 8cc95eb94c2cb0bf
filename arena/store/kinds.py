"""The kinds of run, in one table: what each kind has, so that no caller reads ``kind`` to
decide (:attr:`arena.store.StoredTournament.ranked` and its neighbours read this table)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.store.schema import COMPARE, LADDER, ROUND_ROBIN


@dataclass(frozen=True)
class Kind:
    """What a kind of run has."""

    name: str
    """As stored in ``tournaments.kind``."""
    command: str
    """The command that runs it."""
    ranked: bool
    """Its standings are a Plackett-Luce fit of all its matches, stored by its run (a round
    robin); a ladder keeps its own ratings, a comparison has a test instead."""
    ladder: bool
    """A field that changes while it runs, its deals verified an epoch at a time."""
    comparison: bool
    """Two bots and a sequential test, shown as a verdict rather than standings."""


KINDS: Final = {
    k.name: k
    for k in (
        Kind(ROUND_ROBIN, "arena run", ranked=True, ladder=False, comparison=False),
        Kind(COMPARE, "arena compare", ranked=False, ladder=False, comparison=True),
        Kind(LADDER, "arena ladder", ranked=False, ladder=True, comparison=False),
    )
}
"""Every kind of run, by name."""
