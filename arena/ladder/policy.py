"""The scheduling rule of a ladder: which three bots play the next duplicate set.

Each step picks one triple (played as one deal in all six seatings), in this order of
precedence (docs/ladder.md gives the reasons and the measured figures):

1. **New bots** (none of their sets scheduled yet) play at the next step, the earliest joined
   first; a second and third new bot join the same set.
2. **Overdue bots**, whose wait (sets scheduled since their last one) reached the bound
   ``W - slack`` (:meth:`Parameters.wait_bound`), fill the set next, the nearest to its
   bound first. An owner's bots count together: in a field of ``k`` owners each owner is
   served as one bot, its bots sharing ``W(k)`` (:meth:`Parameters.owner_wait_bound`).
   At most three bots become overdue per step and a step serves three, so no bot waits
   more than its bound (unless new bots keep arriving faster than one per ``slack``
   steps: each new bot can push an overdue one back by a step).
3. **Provisional bots** (fewer than ``min_sets`` sets scheduled, none in flight) are the
   focus of the next set, the fewest sets first.
4. **Random sets**: with chance ``random_sets`` the step plays a uniformly random triple.
   These tie every part of the table to every other directly; without them a schedule of
   neighbours links the ends to the centre only through long chains of lopsided sets, and
   the level of a whole end can sit off by more than its shown interval (measured:
   docs/ladder.md, coverage).
5. **Neighbour sets**: otherwise, with chance ``neighbour_sets``, the bot with the fewest
   sets plays between two partners from its ``neighbours`` on each side in the order, the
   pair that teaches most about it (:meth:`_View.neighbour_set`): sets spread evenly, each
   where the order is in question.
6. Otherwise **by information**: a focal bot (the one with the most to learn: its rating's
   spread, its order against its neighbours, its wait), or with chance ``explore`` a
   uniformly random one; then every pair of partners from a bounded candidate list (its
   neighbours in the order, the most uncertain, the longest waiting, a few at random) is
   scored by the expected gain in certainty of the ratings and the order
   (:func:`arena.ladder.information.gain`), and the best triple is played.

Rules 1-3 also take their partners by information, and a new or provisional bot's two
partners bracket it (one rated above it, one below: duplicate play measures a bot between
two others best, :meth:`_View.bracketing`). No step looks at more than about
``C(candidates, 2)`` triples (a few hundred), whatever the field's size: ``C(1000, 3)`` is
166 million. Everything random comes from ``(seed, step)``, so the same seed and the same
results give the same ladder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Final

from arena.ladder import information
from arena.ladder.ratings import LadderRatings, SetResult
from arena.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")


@dataclass(frozen=True)
class Parameters:
    """The rule's knobs, each with the reason for its default (docs/ladder.md)."""

    min_sets: int = 4
    """Sets a new bot plays as the focus before the others are refined, its partners chosen
    for what they teach about it alone (bracketing it). After them the neighbour sets keep
    serving it first while it has the fewest sets. 12 (the former default) gave the same
    tau with coverage 0.90 at 30 bots, 0.86 at 100 (bench/ladder.py, docs/ladder.md)."""
    wait_factor: float = 1.0
    """The wait bound ``W`` is ``wait_factor`` times the field's size: three times the
    average wait (a set seats three bots, so a bot plays every ``n / 3`` sets on average)."""
    min_wait: int = 12
    """The wait bound of a small field."""
    slack: int = 2
    """A bot counts as overdue ``slack`` sets before its bound, room for new bots to go first."""
    neighbours: int = 6
    """Candidates taken on each side of the focal bot in the order (ratings nearby are where
    a set is most informative and where the order is in question)."""
    uncertain: int = 4
    """Candidates with the widest spread of their rating."""
    stale: int = 4
    """Candidates that waited longest."""
    random_partners: int = 6
    """Uniform candidates: a leader across a gap stays reachable and no clique forms."""
    explore: float = 0.1
    """Chance that the focal bot is drawn uniformly: keeps every bot's rating tied to the
    whole field, not only to its neighbours."""
    random_sets: float = 0.2
    """Chance that a step (past the new, overdue and provisional bots) plays a uniformly
    random triple: sets that tie every part of the table to every other directly, so the
    level of each end of the table against the centre is measured, not inferred along a
    chain of neighbours (without them the shown intervals of a whole end can miss: at 300
    bots 0.20 of the bottom fifth's intervals held the truth in one run; docs/ladder.md)."""
    neighbour_sets: float = 0.6
    """Chance that a step (past the new, overdue and provisional bots, and the random sets)
    plays the bot with the fewest sets between partners from its neighbours in the order:
    neighbour matchmaking, which spreads the sets evenly and puts each where the order is
    in question. With a bot-by-deal effect it reached the same tau as the information rule
    with honest intervals (coverage 0.93 against 0.86-0.90; docs/ladder.md)."""
    neighbour_random: bool = False
    """Whether those partners are drawn at random from the neighbours (else the pair that
    teaches most about the bot, one above it and one below)."""
    order_weight: float = 1.0
    """Weight of a pair's order (its chance of being shown wrong) against the ratings."""
    top: int = 10
    """The head of the table, whose order matters most to the people reading it."""
    top_weight: float = 2.0
    """Extra weight of the order of two bots both in the top ``top + 2``."""
    unmet_weight: float = 1.0
    """Weight of two bots adjacent in the order that never met: neighbours meet."""
    share_cap: float = 3.0
    """A bot is no longer chosen as the focus once it has played more than ``share_cap``
    times its share of the sets (a bot whose spread will not shrink cannot take the ladder)."""

    def wait_bound(self, n: int) -> int:
        """``W``: the most sets any bot of a field of ``n`` waits between two of its sets."""
        return max(self.min_wait, math.ceil(self.wait_factor * n))

    def owner_wait_bound(self, owners: int, bots: int) -> int:
        """A bot's bound when the field has ``owners`` owners and its own owner has ``bots``
        bots in it: the owner's bots count together, each owner is served as one bot of a
        field of ``owners`` (``W`` of that field), shared among its bots. One owner entering
        50 bots no longer pushes every other bot's bound from 12 to 62 sets; its own bots
        wait longer instead. The field's demand is unchanged: a bot plays once per its bound,
        an owner once per ``W(owners)``, and ``owners / W`` sets' worth of seats a step is at
        most one, what three seats a step leave room for."""
        return self.wait_bound(owners) * max(1, bots)


@dataclass(frozen=True)
class Pick:
    """One scheduled set: its step, its bots, the seed of its deal, why it was chosen
    (``new``, ``overdue``, ``provisional``, ``random``, ``information`` or ``explore``) and
    how many triples were scored to choose it."""

    step: int
    bots: tuple[int, int, int]
    deal_seed: int
    reason: str
    scored: int


NEVER: Final = -1


@dataclass
class _Entry:
    joined: int
    last: int = NEVER  # step of its last scheduled set
    scheduled: int = 0
    recorded: int = 0
    active: bool = True
    owner: str | None = None


@dataclass
class Ladder:
    """A field of bots, its ratings and the scheduling rule.

    >>> lad = Ladder(seed=7)
    >>> for bot in (1, 2, 3, 4):
    ...     lad.join(bot)
    >>> pick = lad.next_set()
    >>> pick.reason, len(set(pick.bots))
    ('new', 3)
    >>> lad.record(SetResult(pick.bots, ((1, 2, 3),) * 6))
    >>> lad.next_set().reason   # bot 4 has not played yet
    'new'
    """

    seed: int
    params: Parameters = field(default_factory=Parameters)
    ratings: LadderRatings = field(default_factory=LadderRatings)
    step: int = 0
    entries: dict[int, _Entry] = field(default_factory=dict)
    meetings: dict[tuple[int, int], int] = field(default_factory=dict)

    def join(self, bot: int, owner: str | None = None) -> None:
        """Add a bot (version id) to the field: it plays at the next step. Bots of one
        ``owner`` share a wait bound (:meth:`Parameters.owner_wait_bound`); a bot without
        one is its own owner."""
        if bot in self.entries:
            self.entries[bot].active = True
            self.entries[bot].owner = owner
            return
        self.ratings.add_bots([bot])
        self.entries[bot] = _Entry(joined=self.step, owner=owner)

    def bounds(self, field_: list[int] | None = None) -> dict[int, int]:
        """Each active bot's wait bound: its owner's share of the bound of a field of
        owners (:meth:`Parameters.owner_wait_bound`)."""
        field_ = self.active() if field_ is None else field_
        keys = [self._owner_key(b) for b in field_]
        count: dict[object, int] = {}
        for k in keys:
            count[k] = count.get(k, 0) + 1
        return {
            b: self.params.owner_wait_bound(len(count), count[k])
            for b, k in zip(field_, keys, strict=True)
        }

    def _owner_key(self, bot: int) -> object:
        owner = self.entries[bot].owner
        return ("bot", bot) if owner is None else ("owner", owner)

    def retire(self, bot: int) -> None:
        """Take a bot out of the field; its results stay in the ratings."""
        self.entries[bot].active = False

    def replace(self, old: int, new: int) -> None:
        """A new version of a bot: the old one retires, the new one joins."""
        self.retire(old)
        self.join(new)

    def active(self) -> list[int]:
        """The bots in the field, in the order they joined."""
        return [b for b, e in self.entries.items() if e.active]

    def wait(self, bot: int) -> int:
        """Sets scheduled since the bot's last one (since it joined, before its first)."""
        e = self.entries[bot]
        return self.step - (e.joined if e.last == NEVER else e.last + 1)

    def next_set(self) -> Pick:
        """Choose and schedule the next set (its bots count as playing from now on)."""
        field_ = self.active()
        if len(field_) < 3:
            raise ValueError(f"a ladder needs three bots in the field, has {len(field_)}")
        rng = np.random.default_rng([self.seed, self.step])
        bots, reason, scored = choose(self, field_, rng)
        return self.schedule(bots, reason, scored)

    def schedule(self, bots: tuple[int, int, int], reason: str = "given", scored: int = 0) -> Pick:
        """Schedule a set of the caller's choosing (an organiser's, or another rule's) with
        the same bookkeeping as :meth:`next_set`."""
        if len(set(bots)) != 3 or any(b not in self.entries for b in bots):
            raise ValueError(f"a set needs three different bots of the ladder, got {bots}")
        for b in bots:
            e = self.entries[b]
            e.last, e.scheduled = self.step, e.scheduled + 1
        for a, b in combinations(sorted(bots), 2):
            self.meetings[a, b] = self.meetings.get((a, b), 0) + 1
        seed = int(np.random.default_rng([self.seed, self.step, 1]).integers(1 << 62))
        pick = Pick(self.step, bots, seed, reason, scored)
        self.step += 1
        return pick

    def record(self, result: SetResult) -> None:
        """Count a finished set in the ratings."""
        self.ratings.add_set(result)
        for b in result.bots:
            if b in self.entries:
                self.entries[b].recorded += 1


def choose(
    lad: Ladder, field_: list[int], rng: np.random.Generator
) -> tuple[tuple[int, int, int], str, int]:
    """The rule itself (see the module's docstring): the triple, why, triples scored."""
    p = lad.params
    bounds = lad.bounds(field_)
    entries = lad.entries
    new = [b for b in field_ if entries[b].scheduled == 0]
    overdue = sorted(
        (b for b in field_ if entries[b].scheduled and lad.wait(b) >= bounds[b] - p.slack),
        key=lambda b: (bounds[b] - lad.wait(b), b),  # the nearest to its bound first
    )
    urgent = new + overdue
    if len(urgent) >= 3:
        return (urgent[0], urgent[1], urgent[2]), "new" if new else "overdue", 0
    view = _View(lad, field_)
    if urgent:
        fixed, reason = urgent, "new" if new else "overdue"
    else:
        provisional = [
            b
            for b in field_
            if entries[b].scheduled < p.min_sets and entries[b].scheduled == entries[b].recorded
        ]
        if provisional:
            fixed = [min(provisional, key=lambda b: (entries[b].scheduled, -lad.wait(b), b))]
            reason = "provisional"
        elif p.random_sets and rng.random() < p.random_sets:
            drawn = rng.choice(len(field_), size=3, replace=False)
            return (field_[drawn[0]], field_[drawn[1]], field_[drawn[2]]), "random", 0
        elif p.neighbour_sets and rng.random() < p.neighbour_sets:
            return view.neighbour_set(rng)
        elif rng.random() < p.explore:
            fixed, reason = [field_[int(rng.integers(len(field_)))]], "explore"
        else:
            fixed, reason = (
                [view.focal(np.asarray([bounds[b] for b in field_], dtype=float))],
                "information",
            )
    candidates = view.candidates(fixed, rng)
    triple, scored = view.best(fixed, candidates, focus=reason in ("new", "provisional"))
    return triple, reason, scored


class _View:
    """The field as the rule sees it at one step: estimates, spreads, order, waits."""

    def __init__(self, lad: Ladder, field_: list[int]) -> None:
        self.lad, self.p = lad, lad.params
        r = lad.ratings
        self.bots = np.asarray(field_, dtype=np.int64)
        self.idx = np.asarray([r.index[b] for b in field_], dtype=np.int64)
        self.theta = r.theta[self.idx]
        # Spreads of contrasts against the centre, as the table shows them: the level of the
        # whole field is known only through the prior and no set can teach it.
        self.sw = r.cov @ r.centre()
        self.ww = float(r.centre() @ self.sw)
        self.var = np.diagonal(r.cov)[self.idx] - 2 * self.sw[self.idx] + self.ww
        self.order = np.argsort(-self.theta, kind="stable")  # positions in the field, best first
        self.rank = np.empty(len(field_), dtype=np.int64)
        self.rank[self.order] = np.arange(len(field_))
        self.pos = {b: i for i, b in enumerate(field_)}
        self.waits = np.asarray([lad.wait(b) for b in field_], dtype=float)

    def focal(self, bound: np.ndarray) -> int:
        """The bot with the most to learn: its own spread (the gain of one set at its level),
        its order against the bots next to it, and its wait; bots past their share excluded."""
        p, r = self.p, self.lad.ratings
        a0 = float(information.set_information(np.zeros((1, 3)))[0, 0, 0])
        value = 0.5 * np.log1p(self.var * a0)
        cov = r.cov
        for shift in (-1, 1):
            nb = np.clip(self.rank + shift, 0, len(self.order) - 1)
            other = self.order[nb]
            i, j = self.idx, self.idx[other]
            v = cov[i, i] + cov[j, j] - 2 * cov[i, j]
            wrong = np.where(
                other != np.arange(len(other)),
                information.misorder(self.theta - self.theta[other], v),
                0,
            )
            top = (self.rank < p.top + 2) & (self.rank[other] < p.top + 2)
            value += p.order_weight * wrong * np.where(top, 1 + p.top_weight, 1.0) / 2
        value += self.waits / bound
        sched = np.asarray([self.lad.entries[int(b)].scheduled for b in self.bots], dtype=float)
        fair = 3.0 * self.lad.step / len(self.bots)
        value[sched > p.share_cap * fair + p.min_sets] = -np.inf
        return int(self.bots[int(np.argmax(value))])

    def neighbour_set(self, rng: np.random.Generator) -> tuple[tuple[int, int, int], str, int]:
        """Neighbour matchmaking: the bot with the fewest sets (the longest waiting of them)
        and two of its ``neighbours`` nearest on each side in the order."""
        entries = self.lad.entries
        focal = min(self.bots.tolist(), key=lambda b: (entries[b].scheduled, -self.lad.wait(b), b))
        p = self.p
        r = int(self.rank[self.pos[focal]])
        window = self.order[max(0, r - p.neighbours) : r + p.neighbours + 1]
        near = [int(self.bots[i]) for i in window if int(self.bots[i]) != focal]
        if p.neighbour_random or len(near) < 2:
            pool = near if len(near) >= 2 else [int(b) for b in self.bots if b != focal]
            a, b = rng.choice(len(pool), 2, replace=False)
            return (focal, pool[int(a)], pool[int(b)]), "neighbours", 0
        triple, scored = self.best([focal], near, focus=True)
        return triple, "neighbours", scored

    def candidates(self, fixed: list[int], rng: np.random.Generator) -> list[int]:
        """Partners worth scoring with the fixed bots: neighbours in the order of each,
        the most uncertain, the longest waiting, a few at random (positions, deduplicated)."""
        p, m = self.p, len(self.bots)
        picks: list[int] = []
        for b in fixed:
            r = int(self.rank[self.pos[b]])
            lo, hi = max(0, r - p.neighbours), min(m, r + p.neighbours + 1)
            picks += self.order[lo:hi].tolist()
        for score, k in ((self.var, p.uncertain), (self.waits, p.stale)):
            k = min(k, m)
            picks += np.argpartition(-score, k - 1)[:k].tolist() if k else []
        picks += rng.choice(m, size=min(p.random_partners, m), replace=False).tolist()
        chosen = {self.pos[b] for b in fixed}
        out = [i for i in dict.fromkeys(picks) if i not in chosen]
        return [int(self.bots[i]) for i in out]

    def bracketing(self, bot: int, pairs: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """The pairs of partners with one above the bot's estimate and one below, when there
        are any. Duplicate play measures a bot between two others far better than the
        model's information says (the luck of a seat cancels across the six seatings, and
        which of the two it beats is what is in question), and a bot below or above both
        partners far worse: simulated, one set of a bot half a logit below two equal
        partners is worth a third of one between partners half a logit either side
        (docs/ladder.md)."""
        mine = self.theta[self.pos[bot]]
        side = {b: self.theta[self.pos[b]] > mine for pair in pairs for b in pair}
        mixed = [pair for pair in pairs if side[pair[0]] != side[pair[1]]]
        return mixed or pairs

    def best(
        self, fixed: list[int], candidates: list[int], focus: bool = False
    ) -> tuple[tuple[int, int, int], int]:
        """Score every triple of the fixed bots and candidates; the best (first on ties).
        With ``focus`` only what the set teaches about the first fixed bot counts (its
        rating, its order against the other two)."""
        need = 3 - len(fixed)
        if len(candidates) < need:
            raise ValueError("not enough bots to fill a set")
        rests = list(combinations(candidates, need))
        if focus and need == 2:
            rests = self.bracketing(fixed[0], rests)
        triples = np.asarray([(*fixed, *rest) for rest in rests], dtype=np.int64)
        pos = np.vectorize(self.pos.__getitem__, otypes=[np.int64])(triples)
        idx = self.idx[pos]
        sw = self.sw[idx]
        cov = (
            self.lad.ratings.cov[idx[:, :, None], idx[:, None, :]]
            - sw[:, :, None]
            - sw[:, None, :]
            + self.ww
        )
        th = self.theta[pos]
        weight = np.empty((len(triples), 3))
        meetings = self.lad.meetings
        for k, (i, j) in enumerate(information.PAIRS):
            v = cov[:, i, i] + cov[:, j, j] - 2 * cov[:, i, j]
            wrong = information.misorder(th[:, i] - th[:, j], v)
            ri, rj = self.rank[pos[:, i]], self.rank[pos[:, j]]
            top = (ri < self.p.top + 2) & (rj < self.p.top + 2)
            unmet = np.asarray(
                [
                    abs(int(x) - int(y)) == 1 and (min(a, b), max(a, b)) not in meetings
                    for x, y, a, b in zip(
                        ri, rj, triples[:, i].tolist(), triples[:, j].tolist(), strict=True
                    )
                ]
            )
            weight[:, k] = self.p.order_weight * wrong * np.where(top, 1 + self.p.top_weight, 1.0)
            weight[:, k] += self.p.unmet_weight * unmet
        if focus:
            weight[:, 2] = 0.0  # the pair of partners
            g = information.gain(th, cov, weight, np.array([1.0, 0.0, 0.0]))
        else:
            g = information.gain(th, cov, weight)
        best = triples[int(np.argmax(g))]
        return (int(best[0]), int(best[1]), int(best[2])), len(triples)
