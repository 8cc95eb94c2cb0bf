"""A ladder that never stops: ratings updated per duplicate set and the rule that picks the
next set.

- :mod:`arena.ladder.ratings`: :class:`LadderRatings`, the Plackett-Luce model and intervals
  of ``arena standings`` updated incrementally, one set at a time.
- :mod:`arena.ladder.policy`: :class:`Ladder` and :class:`Policy`, the scheduling rule (new
  bots first, a bound on any bot's wait, then the set that buys the most information).

Those two are pure Python and numpy, no I/O. Running a ladder over a database (``arena
ladder``) is built on them, in the running layer beside :mod:`arena.tournament`:

- :mod:`arena.ladder.run`: :class:`~arena.ladder.run.LadderSchedule`, the ladder as the one
  :class:`arena.schedules.Schedule` protocol, and :func:`~arena.ladder.run.plan_ladder`.
- :mod:`arena.ladder.field`: the field kept in step with the store (joins, new versions,
  retired bots) and the rule's state rebuilt from it on resume.
- :mod:`arena.ladder.epochs`: a deal secret per epoch of sets, its commitment and reveal,
  and ``arena verify LADDER --epoch N``.

The rule, its parameters, running a ladder and the measured figures: docs/ladder.md.
"""

from __future__ import annotations

from arena.ladder.policy import Ladder, Parameters, Pick
from arena.ladder.ratings import LadderRatings, LadderStanding, SetResult

__all__ = ["Ladder", "LadderRatings", "LadderStanding", "Parameters", "Pick", "SetResult"]
