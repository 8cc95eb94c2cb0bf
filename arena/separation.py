"""``arena run --until-separated``: add rounds until the standings are separated.

After each complete round the standings of the rounds played so far are computed, and the run
stops as soon as every pair of bots *adjacent* in them is **separated**: the 95 % interval of
their head-to-head placed-above rate (the pairwise table of the standings) excludes 1/2. The
check runs on complete rounds only and in round order, and the next round starts only once
the previous one is checked, so a parallel run stops after the same round as a serial one and
stores the same matches. ``--rounds`` is the cap.

Checking after every round is looking at the data many times: a pair of equally strong bots
is called separated more often than 5 % of the time by the end (each look is another chance
for a 95 % interval to miss). ``bench/separation.py`` measures how much; docs/evaluation.md
gives the figures.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from arena import ratings
from arena.ratings.outcomes import MatchRow
from arena.record import MatchRecord
from arena.runner import WAIT, Wait
from arena.scheduler import MatchSpec
from arena.schedules import ScheduleBase
from arena.store import Store
from arena.untrusted import clean_line

UNTIL_SEPARATED_ROUNDS: Final = 200
"""The most rounds of ``arena run --until-separated`` when ``--rounds`` is not given."""


@dataclass(frozen=True)
class Adjacent:
    """Two bots next to each other in the standings, and their head-to-head rate."""

    higher: str
    lower: str
    pair: ratings.Pair | None
    """How often ``higher`` placed above ``lower`` (None: they never met)."""

    @property
    def separated(self) -> bool:
        """Whether the rate's 95 % interval excludes 1/2 (either way)."""
        p = self.pair
        if p is None or p.low is None or p.high is None:
            return False
        return p.low > 0.5 or p.high < 0.5

    def text(self) -> str:
        """``montecarlo over heuristic 0.58 [0.53, 0.63]`` (names are checked bot names)."""
        p = self.pair
        if p is None:
            return f"{self.higher} and {self.lower} never met"
        interval = "" if p.low is None or p.high is None else f" [{p.low:.2f}, {p.high:.2f}]"
        turned = self.separated and p.rate < 0.5
        note = " (the head-to-head goes the other way)" if turned else ""
        return f"{self.higher} over {self.lower} {p.rate:.2f}{interval}{note}"


def adjacent_pairs(table: Sequence[ratings.BotStanding]) -> list[Adjacent]:
    """The pairs of ranked bots next to each other in the standings, best first."""
    ranked = [s for s in table if s.rank is not None]
    # Names were checked when stored; a database from before that may hold anything.
    return [
        Adjacent(clean_line(a.name, 60), clean_line(b.name, 60), a.above.get(b.bot))
        for a, b in itertools.pairwise(ranked)
    ]


@dataclass(frozen=True)
class Check:
    """The standings after some rounds, as the stopping rule reads them."""

    rounds: int
    pairs: tuple[Adjacent, ...]

    @property
    def separated(self) -> bool:
        """Every adjacent pair is separated (and there is at least one)."""
        return bool(self.pairs) and all(p.separated for p in self.pairs)

    def summary(self) -> str:
        """``round 7: 1 of 2 adjacent pairs separated``."""
        done = sum(p.separated for p in self.pairs)
        return f"round {self.rounds}: {done} of {len(self.pairs)} adjacent pairs separated"


def check(names: dict[int, str], rows: Sequence[MatchRow], rounds: int) -> Check:
    """The stopping rule's view after ``rounds`` rounds: standings of the matches of those
    rounds only (rows of later rounds, stored by an interrupted run, are left out)."""
    mine = [r for r in rows if int(r[0].rsplit("/", 1)[1]) < rounds]
    table = ratings.compute(ratings.Outcomes.build(names, mine, {}), names)
    return Check(rounds, tuple(adjacent_pairs(table)))


class UntilSeparated(ScheduleBase):
    """The lazy schedule of ``arena run --until-separated`` (a :class:`arena.schedules.Schedule`).

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

    def stored(self, records: Sequence[MatchRecord]) -> None:
        """Count the matches just stored."""
        for rec in records:
            self.done.add(rec.match_id)
            self.rows.append((f"{rec.set_key}/{rec.round}", *rec.bots, *rec.placements))

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
                f"Stopped at the cap of {last.rounds} rounds (--rounds) before the standings "
                f"were separated: not separated yet: {waiting}"
            )
        return f"After round {last.rounds}: not separated yet: {waiting}"
