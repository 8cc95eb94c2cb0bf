"""Finished matches as arrays, and what the ratings count in them.

A tournament's matches come in *duplicate units*: one set of three bots and one round, played
in all six seatings on the same deals. The six matches of a unit share their luck, so every
statistic here is tallied per unit; a unit, not a match, is the independent sample.

A match's placing becomes Plackett-Luce *choices*: "first out of three", then "second out of
the remaining two". Seats sharing a place are evidence that they are equal, not absence of
evidence: the placing counts as every finishing order it allows, each with an equal share (a
shared first with a third bot last is half "A, B, C" and half "B, A, C"; all three sharing is
a sixth of each order), as Bradley-Terry counts a tie as half a win each way. Without a shared
place that is the one order, counted once. Identical choices are *counted*, not listed one by
one: a tournament of any size has at most nine distinct choices per set of three bots (three
firsts of three, six seconds of two), so the fit's cost does not grow with the number of
matches; shared places make the counts fractional.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from arena.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")


NO_BOT: Final = -1
"""Padding in a choice's member list (a choice between two has no third member)."""


@dataclass(frozen=True)
class SeatPlace:
    """A stored seat with its match's duplicate set and round
    (:meth:`arena.store.Store.seat_results`, read by the kingmaking report)."""

    match_id: str
    set_key: str
    round: int
    seat: int
    bot_version_id: int
    place: int
    faulted: int


@dataclass(frozen=True)
class DuplicateSeat(SeatPlace):
    """A stored seat for the duplicate reports (:meth:`arena.store.Store.duplicate_seats`, read
    by :func:`arena.stats.duplicate.seat_records`): its score too, and the seat that dealt its
    match's first hand (None: no hand stored)."""

    score: int
    first_dealer: int | None


MatchRow = tuple[str, int, int, int, int, int, int]
"""One finished match: ``(unit key, bot0, bot1, bot2, place0, place1, place2)``, bots by
version id and places by seat; the unit key names its duplicate set and round."""


@dataclass(frozen=True)
class SeatResult:
    """One seat of one finished match, as the ratings need it."""

    match_id: str
    unit: str  # the duplicate set and round: "set_key/round"
    bot: int  # bot version id
    place: int
    faulted: bool


@dataclass(frozen=True)
class Outcomes:
    """Finished matches of one tournament as arrays (one row per match).

    ``bots`` and ``places`` are ``(matches, 3)``: bot *indices* (into ``ids``) and places by
    seat; ``unit`` is each match's duplicate unit (``0 .. units - 1``); ``faults`` counts the
    matches each bot forfeited.
    """

    ids: tuple[int, ...]  # bot version id of each index
    unit: np.ndarray
    bots: np.ndarray
    places: np.ndarray
    faults: np.ndarray
    units: int

    @classmethod
    def build(
        cls,
        ids: Iterable[int],
        rows: Iterable[MatchRow],
        faults: dict[int, int],
    ) -> Outcomes:
        """From ``(unit key, bot0, bot1, bot2, place0, place1, place2)`` rows and the fault
        count of each bot version id. Bots of a row that are not in ``ids`` are an error."""
        order = tuple(sorted(set(ids)))
        index = {b: i for i, b in enumerate(order)}
        unit_index: dict[str, int] = {}
        unit: list[int] = []
        flat: list[int] = []
        for key, b0, b1, b2, p0, p1, p2 in rows:
            unit.append(unit_index.setdefault(key, len(unit_index)))
            flat += (index[b0], index[b1], index[b2], p0, p1, p2)
        table = np.asarray(flat, dtype=np.int64).reshape(-1, 6)
        return cls(
            ids=order,
            unit=np.asarray(unit, dtype=np.int64),
            bots=table[:, :3],
            places=table[:, 3:],
            faults=np.asarray([faults.get(b, 0) for b in order], dtype=np.int64),
            units=len(unit_index),
        )

    @classmethod
    def from_seats(cls, seats: Sequence[SeatResult], ids: Iterable[int]) -> Outcomes:
        """From one :class:`SeatResult` per seat (any order; three per match)."""
        by_match: dict[str, list[SeatResult]] = {}
        for s in seats:
            by_match.setdefault(s.match_id, []).append(s)
        faults: dict[int, int] = {}
        rows: list[MatchRow] = []
        for mid in sorted(by_match):
            three = by_match[mid]
            if len(three) != 3:
                raise ValueError(f"match {mid} has {len(three)} seats, not 3")
            for s in three:
                faults[s.bot] = faults.get(s.bot, 0) + int(s.faulted)
            a, b, c = three
            rows.append((a.unit, a.bot, b.bot, c.bot, a.place, b.place, c.place))
        return cls.build(ids, rows, faults)

    @property
    def n(self) -> int:
        """Number of bots."""
        return len(self.ids)

    def over(self, ids: Iterable[int]) -> Outcomes:
        """The same matches with bots indexed over ``ids``, which must include every bot
        that played (bots without a match may be added)."""
        new = tuple(sorted(set(ids)))
        if new == self.ids:
            return self
        where = {b: i for i, b in enumerate(new)}
        missing = [b for b in self.ids if b not in where]
        if missing:
            raise ValueError(f"matches of bots not in the standings: {missing}")
        lookup = np.asarray([where[b] for b in self.ids], dtype=np.int64)
        faults = dict(zip(self.ids, self.faults.tolist(), strict=True))
        return Outcomes(
            ids=new,
            unit=self.unit,
            bots=lookup[self.bots] if self.bots.size else self.bots,
            places=self.places,
            faults=np.asarray([faults.get(b, 0) for b in new], dtype=np.int64),
            units=self.units,
        )


@dataclass(frozen=True)
class Tally:
    """What the ratings need from :class:`Outcomes`, counted per duplicate unit.

    Choices: ``members[k]`` lists choice ``k``'s bots, the chooser (the bot placed above the
    others) first, padded with :data:`NO_BOT`; ``counts`` holds ``(unit, choice, count)``
    triples. Pairs: ``pair_unit``, ``pair_a``, ``pair_b``, ``pair_above`` and
    ``pair_together``: in unit ``pair_unit``, bots a and b met ``pair_together`` times and a
    placed above b ``pair_above`` times (a shared place counts one half). Both orders of
    each pair are present.
    """

    n: int
    units: int
    members: np.ndarray  # (choices, 3)
    count_unit: np.ndarray
    count_choice: np.ndarray
    count: np.ndarray
    pair_unit: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    pair_above: np.ndarray
    pair_together: np.ndarray
    matches: np.ndarray  # per bot
    wins: np.ndarray  # per bot: matches placed first (a shared first counts)
    place_sum: np.ndarray  # per bot
    bot_units: np.ndarray  # per bot: duplicate units it played in

    def choice_totals(self) -> np.ndarray:
        """How often each distinct choice was made, over the whole tournament."""
        return np.bincount(self.count_choice, self.count, minlength=len(self.members))


def tally(out: Outcomes) -> Tally:
    """Count choices and pairwise results per duplicate unit (vectorised over matches)."""
    n = out.n
    rows, row_unit, row_weight = [], [], []
    ways = np.zeros(len(out.unit))
    for perm in ORDERS:  # how many finishing orders each match's places allow
        ways += _allows(out.places, perm)
    for perm in ORDERS:
        ok = _allows(out.places, perm)
        bots = out.bots[ok][:, list(perm)]
        pad = np.full(len(bots), NO_BOT)
        # The chooser first, then the others sorted, so equal choices get equal rows.
        rows += [
            np.column_stack([bots[:, 0], np.sort(bots[:, 1:], axis=1)]),
            np.column_stack([bots[:, 1], bots[:, 2], pad]),
        ]
        row_unit += [out.unit[ok]] * 2
        row_weight += [1.0 / ways[ok]] * 2
    flat_rows = np.concatenate(rows) if rows else np.zeros((0, 3), dtype=np.int64)
    members, choice = np.unique(flat_rows.reshape(-1, 3), axis=0, return_inverse=True)
    choice = choice.reshape(-1)
    key, inverse = np.unique(
        np.concatenate(row_unit) * max(1, len(members)) + choice, return_inverse=True
    )
    count = np.bincount(inverse.reshape(-1), np.concatenate(row_weight), minlength=len(key))
    count_unit, count_choice = np.divmod(key, max(1, len(members)))

    # Pairs: for each ordered pair of seats (s, t), did the bot at s place above the one at t?
    seat_pairs = [(s, t) for s in range(3) for t in range(3) if s != t]
    a = np.concatenate([out.bots[:, s] for s, _ in seat_pairs])
    b = np.concatenate([out.bots[:, t] for _, t in seat_pairs])
    above = np.concatenate(
        [
            np.where(
                out.places[:, s] < out.places[:, t],
                1.0,
                np.where(out.places[:, s] == out.places[:, t], 0.5, 0.0),
            )
            for s, t in seat_pairs
        ]
    )
    unit = np.tile(out.unit, len(seat_pairs))
    pkey, pinv = np.unique((unit * n + a) * n + b, return_inverse=True)
    pinv = pinv.reshape(-1)
    pair_above = np.bincount(pinv, above, minlength=len(pkey))
    pair_together = np.bincount(pinv, minlength=len(pkey)).astype(float)
    rest, pair_b = np.divmod(pkey, n)
    pair_unit, pair_a = np.divmod(rest, n)

    flat_bots = out.bots.reshape(-1)
    flat_places = out.places.reshape(-1)
    bot_unit = np.unique(np.repeat(out.unit, 3) * n + flat_bots) % n
    return Tally(
        n=n,
        units=out.units,
        members=members.astype(np.int64).reshape(-1, 3),
        count_unit=count_unit.astype(np.int64),
        count_choice=count_choice.astype(np.int64),
        count=count,
        pair_unit=pair_unit,
        pair_a=pair_a,
        pair_b=pair_b,
        pair_above=pair_above,
        pair_together=pair_together,
        matches=np.bincount(flat_bots, minlength=n),
        wins=np.bincount(flat_bots[flat_places == 1], minlength=n),
        place_sum=np.bincount(flat_bots, flat_places, minlength=n).astype(np.int64),
        bot_units=np.bincount(bot_unit, minlength=n),
    )


ORDERS: Final = tuple(itertools.permutations(range(3)))
"""The six finishing orders of a match's three seats (best first)."""


def _allows(places: np.ndarray, perm: tuple[int, ...]) -> np.ndarray:
    """Per match: do its places allow the finishing order ``perm`` (seats, best first)?"""
    p = places[:, list(perm)]
    return np.asarray((p[:, 0] <= p[:, 1]) & (p[:, 1] <= p[:, 2]))


def order_choices(
    places: Sequence[tuple[int, int]],
) -> list[tuple[int, tuple[int, ...], float]]:
    """A match's placing as the counted choices of the fit: ``(chosen, (others, ...), share)``.

    ``places`` holds (item, place) per seat. Every finishing order the places allow counts
    with an equal share (a shared place is half of each order of the two, a three-way share
    a sixth of each of the six); each order is "first of all", then "first of the rest".
    Without a shared place: :func:`top1_choices` with share 1.
    """
    orders = [
        o
        for o in itertools.permutations(places)
        if all(o[i][1] <= o[i + 1][1] for i in range(len(o) - 1))
    ]
    out: list[tuple[int, tuple[int, ...], float]] = []
    for o in orders:
        items = [item for item, _ in o]
        for k in range(len(items) - 1):
            out.append((items[k], tuple(items[k + 1 :]), 1.0 / len(orders)))
    return out


def top1_choices(places: Sequence[tuple[int, int]]) -> list[tuple[int, tuple[int, ...]]]:
    """A match's strict orders as Plackett-Luce top-1 choices ``(chosen, (others, ...))``.

    ``places`` holds (item, place) per seat. Items sharing the best remaining place make no
    choice at that step and are removed together. The ratings count shared places as
    :func:`order_choices` does (equal shares of every order they allow); this lists only the
    choices a placing makes for certain.
    """
    remaining = sorted(places, key=lambda p: p[1])
    out: list[tuple[int, tuple[int, ...]]] = []
    while len(remaining) > 1:
        best = remaining[0][1]
        top = [item for item, place in remaining if place == best]
        rest = [item for item, place in remaining if place != best]
        if len(top) == 1 and rest:
            out.append((top[0], tuple(rest)))
        remaining = [p for p in remaining if p[1] != best]
    return out
