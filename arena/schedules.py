"""What a run plays: one :class:`Schedule` protocol for every kind of tournament.

A duplicate round robin is a :class:`FixedSchedule` (all its matches known up front);
``arena compare`` schedules set after set until its test decides (:mod:`arena.compare`);
``arena run --until-separated`` round after round until the standings are separated
(:mod:`arena.separation`). :func:`arena.tournament.run` drives every one through the same
workers, store and progress line, reading the schedule only when a worker can take more, so
what it hands out next may depend on every result stored so far.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence, Set
from typing import TYPE_CHECKING, Protocol

from arena.record import MatchRecord
from arena.runner import Batch, Wait
from arena.scheduler import MatchSpec

if TYPE_CHECKING:
    from arena.store import Store


class Schedule(Protocol):
    """What a run plays, asked as results come in: the fixed matches of a round robin, the
    sets of ``arena compare`` until its test decides, the rounds of ``arena run
    --until-separated`` until the standings are separated. :func:`arena.tournament.run` drives
    it; a schedule that never runs out (it yields :data:`arena.runner.WAIT` until it has more)
    and reads its field from the store in :meth:`start` fits the same protocol."""

    total: int | None
    """Matches at most, for the progress bar (None: no bar)."""

    exact: bool
    """Whether it plays exactly ``total`` matches (False: it may stop earlier by its own
    rule)."""

    ends: bool
    """Whether running out ends the tournament for good (stored ``finished``, its deal
    secret revealed). False for a ladder: a bound only pauses it, and it stays resumable."""

    def start(self, store: Store) -> bool:
        """Read what is stored (under the run lock); whether anything may be left to play."""
        ...

    def specs(self) -> Iterator[Sequence[MatchSpec] | Wait]:
        """The matches to play next, or :data:`arena.runner.WAIT` until more results are in."""
        ...

    def write(self, store: Store, records: Sequence[MatchRecord]) -> Sequence[MatchRecord]:
        """Store the checked records of a batch; return those stored (a ladder stores whole
        sets only, keeping a set's first matches until its last one is in)."""
        ...

    def stored(self, records: Sequence[MatchRecord]) -> None:
        """Take the records of matches just stored."""
        ...

    def describe(self) -> str:
        """Where the schedule stands, for the progress line."""
        ...

    def finish(self, store: Store, completed: bool) -> None:
        """Record the end of a run (``completed``: the schedule ran out, nothing stopped it)."""
        ...

    def why(self) -> str | None:
        """Why the schedule stopped, or (interrupted) where it stands: one line (None: it
        has no rule of its own to report)."""
        ...


class ScheduleBase:
    """What most schedules share: running out ends the tournament, and every checked record
    is stored as it comes (one transaction per batch)."""

    ends = True
    tid: str

    def write(self, store: Store, records: Sequence[MatchRecord]) -> Sequence[MatchRecord]:
        """Store every record of the batch."""
        store.write_results(self.tid, records)
        return records


class FixedSchedule(ScheduleBase):
    """A schedule known up front: ``matches`` (a duplicate round robin), the missing ones
    handed out at once."""

    exact = True

    def __init__(self, tid: str, matches: Sequence[MatchSpec], done: Set[str]) -> None:
        self.tid = tid
        self.matches = list(matches)
        self.total: int | None = len(self.matches)
        self.todo = [m for m in self.matches if m.match_id not in done]
        """The matches not stored yet (listed again by :meth:`start`)."""

    def start(self, store: Store) -> bool:
        """List the matches not stored yet; whether there are any."""
        done = store.finished_match_ids(self.tid)
        self.todo = [m for m in self.matches if m.match_id not in done]
        return bool(self.todo)

    def specs(self) -> Iterator[Sequence[MatchSpec] | Wait]:
        """Every missing match at once."""
        yield self.todo

    def stored(self, records: Sequence[MatchRecord]) -> None:
        """Nothing to do: the list is fixed."""

    def describe(self) -> str:
        """The progress line's title."""
        return "matches"

    def finish(self, store: Store, completed: bool) -> None:
        """Nothing to record: the extent was stored with the tournament."""

    def why(self) -> str | None:
        """None: a fixed schedule stops when it runs out."""
        return None


def unfold(
    schedule: Schedule, make: Callable[[Sequence[MatchSpec]], Iterator[Batch]]
) -> Iterator[Batch | Wait]:
    """The batches of a schedule, as it unfolds while results come in."""
    for specs in schedule.specs():
        if isinstance(specs, Wait):
            yield specs
        else:
            yield from make(specs)
