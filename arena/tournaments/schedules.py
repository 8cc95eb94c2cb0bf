"""What a run plays: one :class:`Schedule` protocol for every kind of tournament.

A duplicate round robin is a :class:`FixedSchedule` (all its matches known up front);
``arena compare`` schedules set after set until its test decides (:mod:`arena.tournaments.compare`);
``arena run --until-separated`` round after round until the standings are separated
(:class:`UntilSeparated`, whose rule is :mod:`arena.stats.separation`).
:func:`arena.tournaments.tournament.run` drives every one through the same workers, store and
progress line, reading the schedule only when a worker can take more, so what it hands out next may
depend on every result stored so far.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence, Set
from typing import TYPE_CHECKING, Final, Protocol

from arena.matches.record import MatchRecord
from arena.matches.scheduler import MatchSpec
from arena.stats.outcomes import MatchRow
from arena.stats.separation import Check, check
from arena.stats.vocabulary import unit_key
from arena.store.kinds import KINDS, Kind
from arena.store.schema import ROUND_ROBIN
from arena.tournaments.runner import WAIT, Batch, Wait

if TYPE_CHECKING:
    from arena.store import Store


class Schedule(Protocol):
    """What a run plays, asked as results come in: the fixed matches of a round robin, the
    sets of ``arena compare`` until its test decides, the rounds of ``arena run
    --until-separated`` until the standings are separated. :func:`arena.tournaments.tournament.run`
    drives it; a schedule that never runs out (it yields :data:`arena.tournaments.runner.WAIT` until
    it has more) and reads its field from the store fits the same protocol.

    Every schedule has its whole state once it is made (a ladder's rule rebuilt from the
    store, a comparison's empty test); :meth:`start` only brings it up to date, under the
    run lock, with what another run stored meanwhile."""

    total: int | None
    """Matches at most, for the progress bar (None: no bar)."""

    exact: bool
    """Whether it plays exactly ``total`` matches (False: it may stop earlier by its own
    rule)."""

    kind: Kind
    """The kind of run it plays (:data:`arena.store.kinds.KINDS`)."""

    @property
    def ranked(self) -> bool:
        """Whether its run stores standings fitted to all its matches (a round robin; a ladder
        keeps its own ratings, a comparison has a test instead)."""
        ...

    @property
    def ends(self) -> bool:
        """Whether running out ends the tournament for good (stored ``finished``, its deal
        secret revealed). False for a ladder: a bound only pauses it, and it stays resumable."""
        ...

    def start(self, store: Store) -> bool:
        """Bring the state it was made with up to date with what is stored (under the run
        lock: another run may have stored matches since); whether anything may be left to
        play."""
        ...

    def specs(self) -> Iterator[Sequence[MatchSpec] | Wait]:
        """The matches to play next, or :data:`arena.tournaments.runner.WAIT` until more results are
        in."""
        ...

    def write(self, store: Store, records: Sequence[MatchRecord]) -> Sequence[MatchRecord]:
        """Store the checked records of a batch and count them; return those stored (a ladder
        stores whole sets only, keeping a set's first matches until its last one is in). The
        one place results reach the store and the schedule."""
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
    """What most schedules share: what its kind has (:data:`arena.store.kinds.KINDS`, read
    here and nowhere else), and every checked record stored as it comes (one transaction per
    batch)."""

    kind: Kind = KINDS[ROUND_ROBIN]
    tid: str

    @property
    def ranked(self) -> bool:
        """Whether its run stores standings fitted to all its matches."""
        return self.kind.ranked

    @property
    def ends(self) -> bool:
        """Whether running out ends the tournament (a ladder only pauses)."""
        return not self.kind.ladder

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


# --- arena run --until-separated ------------------------------------------------------------

UNTIL_SEPARATED_ROUNDS: Final = 200
"""The most rounds of ``arena run --until-separated`` when ``--rounds`` is not given."""


class UntilSeparated(ScheduleBase):
    """The lazy schedule of ``arena run --until-separated`` (a
    :class:`arena.tournaments.schedules.Schedule`).

    ``matches`` is the whole schedule up to the cap, in round order; rounds are handed out one
    at a time, each only after the previous one is complete and checked.
    """

    exact = False

    def __init__(self, tid: str, matches: Sequence[MatchSpec]) -> None:
        self.tid = tid
        self.rounds = [list(g) for _, g in itertools.groupby(matches, key=lambda m: m.round)]
        self.total: int | None = len(matches)
        self.names: dict[int, str] = {}
        self.done: set[str] = set()
        self.rows: list[MatchRow] = []
        self.next_round = 0
        self.last: Check | None = None
        """The check after the last complete round."""
        self.stopped = False
        """Whether the rule stopped the tournament (separated, or the cap reached)."""

    def _complete(self, r: int) -> bool:
        return all(m.match_id in self.done for m in self.rounds[r])

    def _check(self, r: int) -> bool:
        """Check after round ``r`` (0-based); whether the tournament stops there."""
        self.last = check(self.names, self.rows, r + 1)
        self.next_round = r + 1
        self.stopped = self.last.separated or self.next_round == len(self.rounds)
        return self.stopped

    def start(self, store: Store) -> bool:
        """Read the stored matches and check the complete rounds among them, in order."""
        self.names = {v.id: v.name for v in store.tournament_entrants(self.tid)}
        self.done = store.finished_match_ids(self.tid)
        self.rows = list(store.match_outcomes(self.tid))
        self.next_round, self.last, self.stopped = 0, None, False
        while self.next_round < len(self.rounds) and self._complete(self.next_round):
            if self._check(self.next_round):
                return False
        return self.next_round < len(self.rounds)

    def specs(self) -> Iterator[Sequence[MatchSpec] | Wait]:
        """The next round's missing matches, then WAIT until it is complete and checked."""
        while not self.stopped and self.next_round < len(self.rounds):
            r = self.next_round
            todo = [m for m in self.rounds[r] if m.match_id not in self.done]
            if todo:
                yield todo
            while not self._complete(r):
                yield WAIT
            self._check(r)

    def write(self, store: Store, records: Sequence[MatchRecord]) -> Sequence[MatchRecord]:
        """Store the batch and count its matches toward their rounds."""
        store.write_results(self.tid, records)
        for rec in records:
            self.done.add(rec.match_id)
            self.rows.append((unit_key(rec.set_key, rec.round), *rec.bots, *rec.placements))
        return records

    def describe(self) -> str:
        """Where the rule stands, for the progress line."""
        if self.last is None:
            return f"round {self.next_round + 1}"
        return self.last.summary()

    def finish(self, store: Store, completed: bool) -> None:
        """When the rule stopped the tournament, record the rounds and matches it played."""
        if completed and self.stopped:
            store.set_extent(self.tid, self.next_round, store.match_count(self.tid))

    def why(self) -> str:
        """Why the tournament stopped (or where it stands, when it was interrupted)."""
        last = self.last
        if last is None:
            return "no round is complete yet"
        if last.separated:
            pairs = "; ".join(p.text() for p in last.pairs)
            return (
                f"Stopped after round {last.rounds}: every pair of adjacent bots is separated "
                f"at 95 % ({pairs})"
            )
        waiting = "; ".join(p.text() for p in last.pairs if not p.separated)
        if self.stopped:
            return (
                f"Stopped at the cap of {last.rounds} rounds before the standings "
                f"were separated: not separated yet: {waiting}"
            )
        return f"After round {last.rounds}: not separated yet: {waiting}"
