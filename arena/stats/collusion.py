"""Clones and kingmaking: two reports on entrants that may be one program, or play as a team.

A three-player game rewards soft play between friends, and the cheapest friend is a second
copy of yourself under another name. Two reports look for the traces (docs/tournaments.md
says what each one means and what it cannot prove):

* **clone**: for every pair of bots, the share of identical decisions on identical
  observations. Duplicate play makes such observations: the six seatings of a set and round
  share their deals, so a seat gets the same cards whoever sits there, and as long as every
  decision so far was the same in two seatings, the seat's observation is the same too (its
  ``random`` stream as well: it is seeded per deal and seat). Decisions with one legal action
  and decisions after a bot's fault (played by the fallback) are left out.
* **kingmaking**: for every ordered pair (A, B), how often B placed above the third bot C in
  the matches A played, against what the ratings expect under Plackett-Luce
  (``P(B above C) = w_B / (w_B + w_C)``), with an interval.

Only the ratings' public results (a rating per bot, on the documented Elo-like scale) are used.
The reports are computed from rows the store reads
(:func:`arena.tournaments.standings.clone_report`,
:func:`arena.tournaments.standings.kingmaking_report`); nothing here reads the database.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypedDict, TypeVar, cast

from arena.engine import Deal, Rules, play_hand
from arena.rules import HandRecord, Observation
from arena.stats.outcomes import SeatPlace
from arena.stats.vocabulary import LEVEL, MIN_UNITS, Interval, unit_key, z_quantile

CLONE_SHARE: Final = 0.95
"""A pair is flagged as possible clones above this share of identical decisions..."""
CLONE_MIN_DECISIONS: Final = 30
"""... over at least this many comparable decisions."""
KINGMAKING_MIN_UNITS: Final = 4
"""Duplicate (set, round) units a kingmaking pair needs before it can be flagged."""


# --- clones -------------------------------------------------------------------------------


class ClonePairDict(TypedDict):
    """:meth:`ClonePair.as_dict`: a ``clone_pairs`` row without its tournament (docs/schema.md;
    ``flagged`` a bool, read back from the database as 0 or 1)."""

    bot_a: int
    bot_b: int
    comparable: int
    identical: int
    share: float | None
    flagged: int


class KingmakingDict(TypedDict):
    """:meth:`KingmakingRow.as_dict`: a ``kingmaking`` row without its tournament
    (docs/schema.md; ``flagged`` a bool, read back from the database as 0 or 1)."""

    bot_a: int
    bot_b: int
    matches: int
    units: int
    rate: float
    expected: float
    low: float | None
    high: float | None
    flagged: int


@dataclass(frozen=True)
class ClonePair:
    """Two bots (version ids, ``bot_a < bot_b``) and how alike they decide."""

    bot_a: int
    bot_b: int
    comparable: int
    identical: int

    @property
    def share(self) -> float | None:
        """Identical decisions / comparable decisions (None when nothing was comparable)."""
        return self.identical / self.comparable if self.comparable else None

    @property
    def flagged(self) -> bool:
        """Above :data:`CLONE_SHARE` over at least :data:`CLONE_MIN_DECISIONS` decisions."""
        share = self.share
        return share is not None and share > CLONE_SHARE and self.comparable >= CLONE_MIN_DECISIONS

    def as_dict(self) -> ClonePairDict:
        """The pair as a ``clone_pairs`` row (without its tournament)."""
        return {
            "bot_a": self.bot_a,
            "bot_b": self.bot_b,
            "comparable": self.comparable,
            "identical": self.identical,
            "share": self.share,
            "flagged": self.flagged,
        }


@dataclass(frozen=True)
class _Hand:
    """One stored hand, parsed and replayed once for every seating that played it."""

    record: HandRecord
    legal: list[int] | None  # legal actions at each log entry; None: not reproducible
    unforced: tuple[int, int, int]  # decisions with more than one legal action, per seat


class _Hands:
    """The hands of one duplicate group, by stored text (identical games: identical text)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.by_text: dict[str, _Hand] = {}

    def get(self, text: str) -> _Hand:
        """The parsed, replayed hand stored as ``text``."""
        hand = self.by_text.get(text)
        if hand is None:
            record = json.loads(text)
            legal = _replay_legal_counts(record, self.rules)
            unforced = [0, 0, 0]
            for (seat, _, _), n in zip(record["log"], legal or (), strict=False):
                unforced[seat] += n > 1
            hand = _Hand(record, legal, (unforced[0], unforced[1], unforced[2]))
            self.by_text[text] = hand
        return hand


@dataclass
class _Match:
    """One stored match as the clone walk needs it."""

    id: str
    bots: tuple[int, int, int]
    hands: list[str]  # each hand's record as stored
    # Decision index of each seat's first fault (the fallback plays from there); None: no fault.
    fault_at: dict[int, int | None]

    def own(self, seat: int, decision: int) -> bool:
        """True when the seat's bot, not the fallback, made its ``decision``-th decision."""
        if seat not in self.fault_at:
            return True
        at = self.fault_at[seat]
        return at is not None and decision < at


class _Replayer:
    """Answers from a hand's log, in order, and notes how many actions were legal each time."""

    def __init__(self, log: list[list[Any]], counts: list[int]) -> None:
        self.log, self.counts = log, counts

    def act(self, obs: Observation) -> Any:
        i = len(self.counts)
        self.counts.append(len(obs["legal"]))
        return self.log[i][2]


def _log(record: HandRecord) -> list[list[Any]]:
    """The record's decisions, each ``[seat, phase, action]`` (a JSON triple) as stored."""
    return cast("list[list[Any]]", record["log"])


def _replay_legal_counts(hand: HandRecord, rules: Rules) -> list[int] | None:
    """Replay a stored hand through the engine to learn which of its decisions were forced."""
    counts: list[int] = []
    bot = _Replayer(hand["log"], counts)
    try:
        play_hand(
            [bot, bot, bot],
            Deal.from_dict(hand["deal"]),
            hand["dealer"],
            hand["scores_before"],
            rules,
            hand_number=hand["hand_number"],
        )
    except (ValueError, IndexError):  # a record the engine does not reproduce: not comparable
        return None
    return counts


def _same(a: Any, b: Any) -> bool:
    # A keep may be answered in any order: the same five cards are the same decision.
    if isinstance(a, list) and isinstance(b, list):
        return sorted(map(str, a)) == sorted(map(str, b))
    return bool(a == b)


def _pair(b1: int, b2: int) -> tuple[int, int]:
    return (b1, b2) if b1 < b2 else (b2, b1)


def _walk(one: _Match, two: _Match, hands: _Hands, tally: dict[tuple[int, int], list[int]]) -> None:
    """Compare two seatings of one deal while their histories are identical."""
    differ = [s for s in range(3) if one.bots[s] != two.bots[s]]
    quick = not one.fault_at and not two.fault_at
    done = [0, 0, 0]  # decisions made so far by each seat (forced ones included)
    for k in range(min(len(one.hands), len(two.hands))):
        first = hands.get(one.hands[k])
        if first.legal is None:
            return
        if quick and one.hands[k] == two.hands[k]:
            # The very same hand: every unforced decision of a differing seat agreed.
            for s in differ:
                entry = tally[_pair(one.bots[s], two.bots[s])]
                entry[0] += first.unforced[s]
                entry[1] += first.unforced[s]
            continue
        log1, log2 = _log(first.record), _log(hands.get(two.hands[k]).record)
        for i in range(min(len(log1), len(log2))):
            seat, phase, a1 = log1[i]
            seat2, phase2, a2 = log2[i]
            if (seat, phase) != (seat2, phase2):
                return
            b1, b2 = one.bots[seat], two.bots[seat]
            own = one.own(seat, done[seat]) and two.own(seat, done[seat])
            if b1 != b2 and own and first.legal[i] > 1:
                entry = tally[_pair(b1, b2)]
                entry[0] += 1
                entry[1] += _same(a1, a2)
            if not _same(a1, a2):
                return
            done[seat] += 1
        if len(log1) != len(log2):
            return


def clone_pairs(
    groups: Iterable[Sequence[_Match]], rules: Rules, bots: Iterable[int]
) -> list[ClonePair]:
    """The clone report over duplicate groups (the matches of one set and round each)."""
    tally: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for group in groups:
        hands = _Hands(rules)
        for one, two in itertools.combinations(group, 2):
            _walk(one, two, hands, tally)
    every = sorted(set(bots))
    out = [ClonePair(a, b, *tally.get((a, b), (0, 0))) for a, b in itertools.combinations(every, 2)]
    return sorted(out, key=lambda p: (-(p.share or 0.0), p.bot_a, p.bot_b))


def duplicate_groups(
    hands: Iterable[Sequence[Any]], faults: Iterable[tuple[str, int, int | None]]
) -> Iterator[list[_Match]]:
    """The stored matches of each duplicate unit (one set and round), as the clone walk needs
    them: from ``(set_key, round, match id, bot0, bot1, bot2, hand record)`` rows in set,
    round, match and hand order (:meth:`arena.store.Store.duplicate_hands`) and the faults as
    ``(match id, seat, decision)`` (:meth:`arena.store.Store.fault_decisions`)."""
    fault_at: dict[str, dict[int, int | None]] = defaultdict(dict)
    for match_id, seat, decision in faults:
        fault_at[match_id][seat] = decision
    for _, unit in itertools.groupby(hands, key=lambda r: (r[0], r[1])):
        group = []
        for mid, rows in itertools.groupby(unit, key=lambda r: r[2]):
            records = list(rows)
            bots = (records[0][3], records[0][4], records[0][5])
            group.append(_Match(mid, bots, [r[6] for r in records], fault_at[mid]))
        yield group


# --- kingmaking ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KingmakingRow:
    """How B did against the third bot in the matches A played, against the ratings."""

    bot_a: int  # whose presence is examined
    bot_b: int  # who may be helped
    matches: int
    units: int  # duplicate (set, round) units those matches came from
    rate: float  # B placed above the third bot (a shared place counts one half)
    expected: float  # what the ratings expect of the same matches
    low: float | None  # the rate's interval at LEVEL (a column each in the database)
    high: float | None
    flagged: bool

    @property
    def interval(self) -> Interval | None:
        """The rate's interval (None below two units)."""
        return None if self.low is None or self.high is None else Interval(self.low, self.high)

    def as_dict(self) -> KingmakingDict:
        """The row as a ``kingmaking`` row (without its tournament)."""
        return cast(KingmakingDict, dataclasses.asdict(self))


def expected_above(rating_b: float, rating_c: float) -> float:
    """P(B placed above C) under Plackett-Luce, from ratings on the Elo-like scale.

    The ratings are 1500 + 400·log10(e)·θ, so w_B / (w_B + w_C) = 1 / (1 + 10^((R_C - R_B)/400)).
    """
    return 1.0 / (1.0 + 10.0 ** ((rating_c - rating_b) / 400.0))


TIE_PATTERNS: Final = ("none", "first", "second", "all")
"""How a match's places can be shared: no shared place, the top two share first, the bottom
two share second, all three share."""


def tie_pattern(places: Sequence[int]) -> int:
    """The index in :data:`TIE_PATTERNS` of a match's three places."""
    a, b, c = sorted(places)
    return 3 if a == c else 1 if a == b else 2 if b == c else 0


def order_probability(w: Sequence[float]) -> float:
    """Plackett-Luce probability of the order ``w[0]`` first, ``w[1]`` second, ``w[2]`` last
    (``w``: the three strengths)."""
    return w[0] / (w[0] + w[1] + w[2]) * w[1] / (w[1] + w[2])


def expected_with_ties(
    rating_a: float, rating_b: float, rating_c: float, ties: Sequence[float]
) -> tuple[float, float]:
    """The mean and variance of B's score over C (1 above, 1/2 shared, 0 below) in a match with
    A, when the order is Plackett-Luce and then places are shared in the proportions ``ties``
    (over :data:`TIE_PATTERNS`), whatever the order.

    The pairwise expectation alone, :func:`expected_above`, is right only when nothing is
    ever shared: a shared place scores 1/2 whatever the strengths, which pulls every rate
    towards 1/2. Under ``tie_policy="shared_win"`` that alone flagged 13 honest tournaments
    of 30.
    """
    w = {k: 10.0 ** ((r - 1500.0) / 400.0) for k, r in (("a", rating_a), ("b", rating_b),
                                                        ("c", rating_c))}  # fmt: skip

    def p(x: str, y: str, z: str) -> float:
        return order_probability((w[x], w[y], w[z]))

    e = expected_above(rating_b, rating_c)
    # B and C share a place when they are the top two and first is shared (A last), the
    # bottom two and second is shared (A first), or always when all three share.
    top = (p("b", "c", "a"), p("c", "b", "a"))  # (B above C, C above B) with A last
    bottom = (p("a", "b", "c"), p("a", "c", "b"))  # the same with A first
    shared = (0.0, sum(top), sum(bottom), 1.0)
    won = (e, e - top[0], e - bottom[0], 0.0)  # B strictly above C
    mean = sum(t * (y + s / 2) for t, y, s in zip(ties, won, shared, strict=True))
    square = sum(t * (y + s / 4) for t, y, s in zip(ties, won, shared, strict=True))
    return mean, max(0.0, square - mean * mean)


def strength(rating: float) -> float:
    """A rating's Plackett-Luce strength ``w`` (the ratings are 1500 + 400·log10(e)·θ)."""
    return float(10.0 ** ((rating - 1500.0) / 400.0))


Ties = dict[tuple[frozenset[int], int], float]
"""The chance that two bots finishing next to each other share their place: by the pair and
the place they would share (1: first, 2: second)."""


K = TypeVar("K", int, str)


def _orders(w: dict[K, float]) -> dict[tuple[K, ...], float]:
    """Plackett-Luce's chance of every finishing order of three bots (best first)."""
    return {o: order_probability([w[b] for b in o]) for o in itertools.permutations(w)}


def tie_rates(matches: Iterable[dict[int, int]], ratings: dict[int, float]) -> Ties:
    """How often a pair of bots next to each other in the finishing order shared their place,
    by pair and place, from the matches' places (``{bot: place}`` each).

    A shared place hides the order of the two bots inside it, never who finished next to
    whom at the top or at the bottom except in one respect: under a bottom tie, which of the
    two was second in the order (and so next to the winner) is unknown; it is shared between
    the two by Plackett-Luce's chances, which do not depend on the rates being estimated.
    So ``shared / next to each other`` is each rate's estimate, with no iteration."""
    shared: dict[tuple[frozenset[int], int], float] = defaultdict(float)
    adjacent: dict[tuple[frozenset[int], int], float] = defaultdict(float)
    for place in matches:
        pattern = tie_pattern(list(place.values()))
        if pattern == 3:
            continue
        chance = _orders({b: strength(ratings[b]) for b in place})
        # Orders the places allow, and their weights given the places.
        allowed = {o: p for o, p in chance.items() if place[o[0]] <= place[o[1]] <= place[o[2]]}
        total = sum(allowed.values())
        for o, p in allowed.items():
            top, bottom = (frozenset(o[:2]), 1), (frozenset(o[1:]), 2)
            adjacent[top] += p / total
            adjacent[bottom] += p / total
        if pattern in (1, 2):
            tied = frozenset(b for b in place if list(place.values()).count(place[b]) == 2)
            shared[(tied, pattern)] += 1.0
    return {k: shared.get(k, 0.0) / n for k, n in adjacent.items() if n > 0}


def expected_given_places(
    w: dict[str, float], places: Sequence[int], ties: Callable[[str, str, int], float]
) -> tuple[float, float]:
    """The mean and variance of B's score over C (1 above, 1/2 shared, 0 below) in a match
    with A, given **which bots shared a place** in it (``places``: A's, B's and C's; ``w``:
    the strengths by ``"a"``, ``"b"``, ``"c"``; ``ties(x, y, k)``: the chance that ``x`` and
    ``y``, next to each other at place ``k``, share it, :func:`tie_rates`).

    The order is Plackett-Luce's; then the two bots at the top share first, or the two at
    the bottom share second, each with its pair's own chance. Given who shared, only the
    order of the groups is left to chance: B and C sharing score 1/2 for certain; A sharing
    with C (or with B) leaves "the single bot first or last"; no shared place leaves the
    orders with no tie. Ties that follow strength (two bots of equal strength share more
    often) and ties that follow the place (first shared less often than second) both cancel.
    The mean over every match's tie proportions (:func:`expected_with_ties`) assumed the same
    ties for every trio and order, and reached 5.5 % false alarms where they follow strength
    (``bench/coverage.py``, ``equal-ties``).
    """
    pa, pb, pc = places
    if pb == pc:
        return 0.5, 0.0
    chance = _orders(w)
    if pa in (pb, pc):
        single, other = ("b", "c") if pa == pc else ("c", "b")
        first = sum(p for o, p in chance.items() if o[0] == single) * ties("a", other, 2)
        last = sum(p for o, p in chance.items() if o[2] == single) * ties("a", other, 1)
        if first + last <= 0:
            first, last = 1.0, 1.0
        single_first = first / (first + last)
        p = single_first if single == "b" else 1.0 - single_first
        return p, p * (1 - p)
    strict = {
        o: p * max(1e-12, 1.0 - ties(o[0], o[1], 1) - ties(o[1], o[2], 2))
        for o, p in chance.items()
    }
    p = sum(q for o, q in strict.items() if o.index("b") < o.index("c")) / sum(strict.values())
    return p, p * (1 - p)


def _expected(
    a: int, b: int, c: int, places: Sequence[int], ratings: dict[int, float], ties: Ties
) -> tuple[float, float]:
    """:func:`expected_given_places` for bots ``a``, ``b``, ``c`` (version ids)."""
    who = {"a": a, "b": b, "c": c}

    def tie(x: str, y: str, k: int) -> float:
        return ties.get((frozenset((who[x], who[y])), k), 0.0)

    w = {k: strength(ratings[bot]) for k, bot in who.items()}
    return expected_given_places(w, places, tie)


def kingmaking_rows(
    seats: Iterable[SeatPlace], ratings: dict[int, float], *, pooled_ties: bool = False
) -> list[KingmakingRow]:
    """The kingmaking table from stored seats (``Store.seat_results``) and the ratings.

    What the ratings expect takes each match's shared places into account
    (:func:`expected_given_places`): given who shared a place, only the order is left to
    chance. With ``pooled_ties``, the rule before instead (:func:`expected_with_ties`, the
    tournament's share of each way of sharing for every trio and order), kept so that
    ``bench/coverage.py`` can measure both on the same tournaments. The interval's
    standard error is the larger of two: the cluster-robust one over duplicate
    (set, round) units (the six seatings of a deal are not independent), and the one the model
    itself implies (each match a coin with the expected probability), so that a handful of
    units that all agree cannot make a zero-width interval. Flags use a Bonferroni-widened
    interval (family-wise confidence :data:`arena.stats.vocabulary.LEVEL` over every pair
    shown).
    """
    by_match: dict[str, list[SeatPlace]] = defaultdict(list)
    for s in seats:
        by_match[s.match_id].append(s)
    rated = [
        rows
        for rows in by_match.values()
        if len(rows) == 3 and all(r.bot_version_id in ratings for r in rows)
    ]
    ties = tie_rates(({r.bot_version_id: r.place for r in rows} for rows in rated), ratings)
    memo: dict[tuple[int, ...], tuple[float, float]] = {}
    patterns = [0] * len(TIE_PATTERNS)
    for rows in rated:
        patterns[tie_pattern([r.place for r in rows])] += 1
    shares = [n / max(1, len(rated)) for n in patterns]
    # (A, B) -> unit -> [residual sum, matches, observed sum, expected sum, variance sum]
    acc: dict[tuple[int, int], dict[str, list[float]]] = defaultdict(
        lambda: defaultdict(lambda: [0.0, 0.0, 0.0, 0.0, 0.0])
    )
    for rows in rated:
        unit = unit_key(rows[0].set_key, rows[0].round)
        place = {r.bot_version_id: r.place for r in rows}
        for a, b, c in itertools.permutations(place, 3):
            y = 1.0 if place[b] < place[c] else 0.5 if place[b] == place[c] else 0.0
            key = (a, b, c, place[a], place[b], place[c])
            if key not in memo:  # a trio and its places: the same expectation every time
                memo[key] = (
                    expected_with_ties(ratings[a], ratings[b], ratings[c], shares)
                    if pooled_ties
                    else _expected(a, b, c, key[3:], ratings, ties)
                )
            e, v = memo[key]
            cell = acc[(a, b)][unit]
            cell[0] += y - e
            cell[1] += 1
            cell[2] += y
            cell[3] += e
            cell[4] += v
    z_shown = z_quantile(LEVEL)
    z_flag = z_quantile(1 - (1 - LEVEL) / max(1, len(acc)))  # Bonferroni over the pairs
    out = []
    for (a, b), units in sorted(acc.items()):
        n = sum(u[1] for u in units.values())
        diff = sum(u[0] for u in units.values()) / n
        rate = sum(u[2] for u in units.values()) / n
        expected = sum(u[3] for u in units.values()) / n
        se = _standard_error(units.values(), diff, n)
        low = high = None
        flagged = False
        if se is not None:
            low, high = max(0.0, rate - z_shown * se), min(1.0, rate + z_shown * se)
            flagged = len(units) >= KINGMAKING_MIN_UNITS and abs(diff) > z_flag * se
        out.append(KingmakingRow(a, b, int(n), len(units), rate, expected, low, high, flagged))
    return out


def _standard_error(units: Iterable[list[float]], diff: float, n: float) -> float | None:
    cells = list(units)
    if len(cells) < MIN_UNITS:
        return None
    robust = sum((u[0] - diff * u[1]) ** 2 for u in cells) * len(cells) / (len(cells) - 1)
    model = sum(u[4] for u in cells)
    return math.sqrt(max(robust, model)) / n
