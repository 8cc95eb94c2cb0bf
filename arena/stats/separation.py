"""The stopping rule of ``arena run --until-separated``: are the standings separated?

After each complete round the standings of the rounds played so far are computed, and the run
(:class:`arena.tournaments.schedules.UntilSeparated`, the schedule that plays this rule) stops as
soon as every pair of bots *adjacent* in them is **separated**: the 95 % interval of their
head-to-head placed-above rate (the pairwise table of the standings) excludes 1/2. The check
runs on complete rounds only and in round order, and the next round starts only once the
previous one is checked, so a parallel run stops after the same round as a serial one and
stores the same matches. ``--rounds`` is the cap.

Checking after every round is looking at the data many times: a pair of equally strong bots
is called separated more often than 5 % of the time by the end (each look is another chance
for a 95 % interval to miss). ``bench/separation.py`` measures how much; docs/evaluation.md
gives the figures.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from arena.stats.outcomes import MatchRow, Outcomes
from arena.stats.standings import BotStanding, Pair, compute
from arena.stats.vocabulary import unit_round
from arena.untrusted import clean_line


@dataclass(frozen=True)
class Adjacent:
    """Two bots next to each other in the standings, and their head-to-head rate."""

    higher: str
    lower: str
    pair: Pair | None
    """How often ``higher`` placed above ``lower`` (None: they never met)."""

    @property
    def separated(self) -> bool:
        """Whether the rate's interval excludes 1/2 (either way)."""
        interval = None if self.pair is None else self.pair.interval
        return interval is not None and interval.excludes(0.5)

    def text(self) -> str:
        """``montecarlo over heuristic 0.58 [0.53, 0.63]`` (names are checked bot names)."""
        p = self.pair
        if p is None:
            return f"{self.higher} and {self.lower} never met"
        i = p.interval
        interval = "" if i is None else f" [{i.low:.2f}, {i.high:.2f}]"
        turned = self.separated and p.rate < 0.5
        note = " (the head-to-head goes the other way)" if turned else ""
        return f"{self.higher} over {self.lower} {p.rate:.2f}{interval}{note}"


def adjacent_pairs(table: Sequence[BotStanding]) -> list[Adjacent]:
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
    mine = [r for r in rows if unit_round(r[0]) < rounds]
    table = compute(Outcomes.build(names, mine, {}), names)
    return Check(rounds, tuple(adjacent_pairs(table)))
