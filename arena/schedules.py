"""Schedules that unfold while results come in, instead of a list of matches fixed up front.

``arena compare`` schedules set after set until its test decides (:mod:`arena.compare`);
``arena run --until-separated`` round after round until the standings are separated
(:mod:`arena.separation`). :func:`arena.tournament.run` drives either through the same
workers, store and progress line as a round robin, reading the schedule only when a worker
can take more, so what it hands out next may depend on every result stored so far.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from arena.runner import Batch, Wait
from arena.scheduler import MatchSpec

if TYPE_CHECKING:
    from arena.store import Store


class Schedule(Protocol):
    """A schedule that unfolds while results come in, instead of a list of matches fixed up
    front: the sets of ``arena compare`` until its test decides, the rounds of ``arena run
    --until-separated`` until the standings are separated. :func:`arena.tournament.run` drives
    it."""

    total: int | None
    """Matches at most, for the progress bar (None: no bar)."""

    def start(self, store: Store) -> bool:
        """Read what is stored (under the run lock); whether anything may be left to play."""
        ...

    def specs(self) -> Iterator[Sequence[MatchSpec] | Wait]:
        """The matches to play next, or :data:`arena.runner.WAIT` until more results are in."""
        ...

    def stored(self, records: Sequence[dict[str, Any]]) -> None:
        """Take the records of matches just stored."""
        ...

    def describe(self) -> str:
        """Where the schedule stands, for the progress line."""
        ...

    def finish(self, store: Store, completed: bool) -> None:
        """Record the end of a run (``completed``: the schedule ran out, nothing stopped it)."""
        ...

    def why(self) -> str:
        """Why the schedule stopped, or (interrupted) where it stands: one line."""
        ...


def unfold(
    schedule: Schedule, make: Callable[[Sequence[MatchSpec]], Iterator[Batch]]
) -> Iterator[Batch | Wait]:
    """The batches of a schedule that unfolds while results come in."""
    for specs in schedule.specs():
        if isinstance(specs, Wait):
            yield specs
        else:
            yield from make(specs)
