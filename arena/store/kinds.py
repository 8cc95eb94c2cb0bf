"""The kinds of run, in one table: what each kind has, so that no caller reads ``kind`` to
decide (:attr:`arena.store.StoredTournament.ranked` and its neighbours read this table)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.store.schema import COMPARE, HUMAN, LADDER, ROUND_ROBIN


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
    human: bool = False
    """One match of a person against two bots: replayable, never rated, never a
    leaderboard, never counted on a bot's page or in anyone's standings."""


KINDS: Final = {
    k.name: k
    for k in (
        Kind(ROUND_ROBIN, "arena run", ranked=True, ladder=False, comparison=False),
        Kind(COMPARE, "arena compare", ranked=False, ladder=False, comparison=True),
        Kind(LADDER, "arena ladder", ranked=False, ladder=True, comparison=False),
        Kind(HUMAN, "Arena.play_human", ranked=False, ladder=False, comparison=False, human=True),
    )
}
"""Every kind of run, by name."""

HUMAN_OWNER: Final = "arena:human-seat"
"""The owner key of the stand-in bots that hold a person's seat in a stored human game (a
bot name no submission can take: ``alice (human)``). They are retired at once, so they never
enter a field, and listings of bots leave them out."""
