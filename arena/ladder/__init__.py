"""A ladder that never stops: ratings updated per duplicate set and the rule that picks the
next set.

- :mod:`arena.ladder.ratings`: :class:`LadderRatings`, the Plackett-Luce model and intervals
  of ``arena standings`` updated incrementally, one set at a time.
- :mod:`arena.ladder.policy`: :class:`Ladder` and :class:`Policy`, the scheduling rule (new
  bots first, a bound on any bot's wait, then the set that buys the most information).

Pure Python and numpy, no I/O: what runs it (workers, the database, the pages) sits above.
The rule, its parameters and the measured figures: docs/ladder.md.
"""

from __future__ import annotations

from arena.ladder.policy import Ladder, Parameters, Pick
from arena.ladder.ratings import LadderRatings, LadderStanding, SetResult

__all__ = ["Ladder", "LadderRatings", "LadderStanding", "Parameters", "Pick", "SetResult"]
