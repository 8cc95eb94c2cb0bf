"""Perfect-information Monte Carlo over an exact open-hand solver: the reference bot to beat.

Every decision with a choice is made the same way: guess the hidden cards many times
(*worlds*), play each legal action out in every world, and take the action with the best mean
*match value* (what the outcome does to our expected final place, not just the points).

* **Worlds** are drawn consistently with everything this seat has seen
  (:func:`arena.worlds.unseen`: cards played, voids shown, where the up-card went) and
  weighted by what the others' bids reveal. A model of a bidder (the bundled heuristic's
  thresholds, on a linear estimate of its dummy-aware hand value fitted by
  ``bench/fit_bid_model.py``) gives the likelihood of each bid given a guessed hand; more
  worlds are drawn than solved, and the solved ones are resampled by that weight. A maker
  who took the dummy is modelled as keeping its best cards, a dealer who picked up as
  discarding its weakest.
* **Card play**: in every world :class:`arena.solver.Solver` finds the exact number of tricks
  the maker takes after each legal card with best play by everyone (double-dummy).
* **Bidding, pick-up, discard, going alone and the keep**: in every world each candidate is
  applied to the world's :class:`arena.game.GameState`, the rest of the bidding is played
  by the bidder model (the same model for us), then the hand is solved open-handed. Real
  players do not see every card, so the solver's number of tricks for the maker is spread
  by :data:`TRICK_NOISE`, measured in real play (``bench/fit_trick_noise.py``): how often a
  real maker took one trick more or fewer than the open-handed solution of the same deal.
* **Match value**: the expected number of opponents we finish above, from a model of how
  hands end (make, march, euchre), computed exactly over every score line with the rules'
  own scoring (:func:`arena.rules.hand_points`, :func:`arena.rules.match_winners`). A point
  near the target is worth more than one at the start.

**Effort where it matters.** Worlds are played out :data:`BATCH` at a time, the same worlds
for every candidate. After :data:`MIN_WORLDS` a search stops as soon as the best candidate
leads every other by :data:`SETTLE_Z` standard errors of the world-by-world difference (a
clear choice costs 16 worlds); a close one goes on to :data:`PLAY_WORLDS` or
:data:`BID_WORLDS`.

**Determinism and time.** Every limit on the work counts work, never time, so the bot is a
function of its seed and the observations, on any machine and under any load: a search
stops at its count of worlds, or once it has done :data:`WORK_BUDGET` units of work (a solver
node is a unit, each action played out in a world :data:`ROW_UNITS` more; the budget is about
0.12 s of CPU on the machine the defaults were measured on), and once the match has done
:data:`MATCH_WORK_SOFT` units later decisions use a quarter of the worlds. The CPU clock is
a safety net only, for a machine several times slower: a decision stops after
:data:`SAFETY_SECONDS` (the arena allows 1 s) and the match goes to a quarter of the worlds
after :data:`MATCH_CPU_SOFT` (20 s allowed). On such a machine the bot stays within its limits
but is no longer reproducible.

One file, the standard library and the modules the sandbox stages for every bot.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, TypeVar

from arena.cards import SUITS, power_table, suit_table, trump_order
from arena.game import OVER, GameState, rules_of
from arena.rules import Rules, hand_points, lone_defender, match_winners, placements
from arena.solver import Solver
from arena.worlds import determinize, sample_state, unseen

Obs = dict[str, Any]
W = TypeVar("W")

PLAY_WORLDS = 96
"""Most worlds solved per card-play decision."""
BID_WORLDS = 64
"""Most worlds per decision before play (every candidate action is played out in each)."""
MIN_WORLDS = 16
"""Worlds every decision plays out before it may stop early (see :data:`SETTLE_Z`)."""
BATCH = 8
"""Worlds drawn at a time; after each batch the search may stop."""
SETTLE_Z = 3.0
"""A search stops once the best action's lead over every other, world by world (the same
worlds for all), is this many standard errors above zero: clear decisions stop at
:data:`MIN_WORLDS`, close ones go on to the full count."""
DRAWS_PER_WORLD = 4
"""Worlds drawn per world solved, when bids are there to weigh them."""
KEEP_CANDIDATES = 6
"""Keep options (by estimated value) played out in the keep phase."""
WORK_BUDGET = 100_000
"""Most units of work in one decision: solver nodes plus :data:`ROW_UNITS` for each action
played out in a world (about 0.12 s of CPU here: ``bench/strength.py`` prints the real figures)."""
ROW_UNITS = 75
"""Work units charged for playing one action out in one world besides its solver nodes
(sampling, applying the action, the bidder model: about 75 nodes' worth of CPU)."""
SAFETY_SECONDS = 0.4
"""Safety cap on one decision's CPU time, for machines much slower than the work budget
assumes (the arena allows 1 s). When it binds the bot is no longer reproducible."""
TRICK_NOISE: tuple[tuple[tuple[float, ...], ...], ...] = (
    (  # this bot as the maker
        (0.24, 0.59, 0.17, 0.0, 0.0, 0.0),
        (0.0, 0.52, 0.44, 0.04, 0.0, 0.0),
        (0.0, 0.07, 0.74, 0.16, 0.03, 0.0),
        (0.0, 0.0, 0.05, 0.69, 0.23, 0.03),
        (0.0, 0.0, 0.01, 0.14, 0.67, 0.18),
        (0.0, 0.0, 0.0, 0.0, 0.06, 0.94),
    ),
    (  # another player as the maker, this bot defending
        (0.35, 0.52, 0.13, 0.0, 0.0, 0.0),
        (0.05, 0.58, 0.35, 0.02, 0.0, 0.0),
        (0.0, 0.11, 0.69, 0.18, 0.02, 0.0),
        (0.0, 0.02, 0.13, 0.72, 0.13, 0.0),
        (0.0, 0.0, 0.01, 0.26, 0.55, 0.18),
        (0.0, 0.0, 0.0, 0.03, 0.06, 0.91),
    ),
)
"""How many tricks a real maker takes (columns 0-5) when the open-handed solver gives it the
row's number: with this bot as the maker, and with another maker against this bot. Measured
in real play (``bench/fit_trick_noise.py``)."""
MATCH_WORK_SOFT = 8_000_000
"""Units of work in a match after which decisions use a quarter of the worlds (about 10 s of
CPU here; a typical match uses a tenth of it)."""
MATCH_CPU_SOFT = 12.0
"""CPU seconds of a match after which decisions use a quarter of the worlds whatever the work
count says: the safety net for slow machines (the arena allows 20 s)."""

# ----- the bidder model (fitted by bench/fit_bid_model.py) -----

BID_BAR = 3.05
"""Estimated tricks of the best keep a bidder wants (the heuristic's threshold)."""
BID_SCALE = 0.2
"""Logistic scale of a bid's likelihood around the bar (the fit says 0.11 for the heuristic; wider
for other bidders)."""
BID_FLOOR = 0.05
"""Least likelihood of any bid: a bidder may be another kind of player than the model."""
BID_WEIGHTS = (
    2.684,
    0.866,
    0.765,
    0.661,
    0.576,
    0.428,
    -0.033,
    -0.291,
    0.242,
    0.053,
    -0.008,
    0.018,
)
"""Dummy-aware value of a 5- or 6-card holding: see :func:`_features`."""
HAND_WEIGHTS = (0.096, 1.097, 0.925, 0.756, 0.606, 0.416, 0.378, 0.521, 0.697, 0.274, 0.031, 0.249)
"""Value of a 5-card hand as it is (for keeps and discards): see :func:`_features`."""
HAND_OUTCOMES = ((0.42, 3, None), (0.2, 5, None), (0.35, 1, None), (0.03, 0, 5))
"""How hands end, for the match value: (probability, maker's tricks, lone defender's)."""


def _likely(margin: float) -> float:
    """The model's probability of a bid whose value is ``margin`` above the bar."""
    p = 1.0 / (1.0 + math.exp(-margin / BID_SCALE)) if margin > -30 * BID_SCALE else 0.0
    return BID_FLOOR + (1.0 - 2.0 * BID_FLOOR) * p


class _Judge:
    """A deck under one trump, for judging holdings: features and the fitted values."""

    def __init__(self, size: int, trump: str) -> None:
        self.trump = trump
        self.eff = suit_table(trump)
        self.top = {c: i for i, c in enumerate(trump_order(trump, size))}
        self.rank = {c: power_table(trump, s)[c] for c, s in self.eff.items()}
        self.suit = {c: SUITS.index(s) for c, s in self.eff.items()}
        self.t = SUITS.index(trump)
        # A value is linear in the features: each card adds its feature's weight.
        slot = {c: self._slot(c) for c in self.eff}
        self.bid_card = {c: BID_WEIGHTS[i] if i else 0.0 for c, i in slot.items()}
        self.hand_card = {c: HAND_WEIGHTS[i] if i else 0.0 for c, i in slot.items()}

    def _slot(self, card: str) -> int:
        """The feature a card counts in (0: none)."""
        if self.eff[card] == self.trump:
            i = self.top.get(card, 4)
            return 1 + i if i < 4 else 5
        return 8 if card[0] == "A" else 9 if card[0] == "K" else 0

    def features(self, pool: Sequence[str]) -> list[float]:
        """1, the four highest trumps held, other trumps, 3+ and 4+ trumps, off-suit aces and
        kings, off-suit voids, and voids with 2+ trumps."""
        x = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        held = [0, 0, 0, 0]
        for card in pool:
            held[self.suit[card]] += 1
            slot = self._slot(card)
            if slot:
                x[slot] += 1
        trumps = held[self.t]
        x[6], x[7] = float(trumps >= 3), float(trumps >= 4)
        x[10] = float(held.count(0) - (trumps == 0))  # off-suit voids
        x[11] = x[10] if trumps >= 2 else 0.0
        return x

    def _value(self, cards: Sequence[str], per_card: dict[str, float], w: Sequence[float]) -> float:
        """``w`` . :meth:`features` (``per_card``: each card's weight), quickly."""
        v = w[0]
        held = [0, 0, 0, 0]
        suit = self.suit
        for card in cards:
            v += per_card[card]
            held[suit[card]] += 1
        trumps = held[self.t]
        voids = held.count(0) - (trumps == 0)
        if trumps >= 3:
            v += w[6] + (w[7] if trumps >= 4 else 0.0)
        return v + voids * (w[10] + w[11] if trumps >= 2 else w[10])

    def bid_value(self, pool: Sequence[str]) -> float:
        """Estimated tricks of the best keep a maker holding ``pool`` gets with a dummy."""
        return self._value(pool, self.bid_card, BID_WEIGHTS)

    def hand_value(self, hand: Sequence[str]) -> float:
        """Estimated tricks of ``hand`` as it is."""
        return self._value(hand, self.hand_card, HAND_WEIGHTS)

    def keep(self, fixed: Sequence[str], pool: Sequence[str], n: int) -> list[str]:
        """The ``n`` cards of ``pool`` that make ``fixed`` + them the best hand: trumps first,
        the rest tried among the six highest others."""
        eff, trump, rank = self.eff, self.trump, self.rank
        trumps = sorted((c for c in pool if eff[c] == trump), key=rank.__getitem__, reverse=True)
        if len(trumps) >= n:
            return trumps[:n]
        others = sorted((c for c in pool if eff[c] != trump), key=rank.__getitem__, reverse=True)
        need = n - len(trumps)
        best: list[str] = others[:need]
        best_v = -99.0
        for fill in combinations(others[:6], need):
            v = self.hand_value([*fixed, *trumps, *fill])
            if v > best_v:
                best, best_v = list(fill), v
        return trumps + best

    def discard(self, hand: Sequence[str], keep: Sequence[str] = ()) -> str:
        """The card of ``hand`` (not in ``keep``) whose loss leaves the best hand."""
        options = [c for c in hand if c not in keep]
        return max(options, key=lambda c: self.hand_value([x for x in hand if x != c]))


_JUDGES: dict[tuple[int, str], _Judge] = {}


def _judge(size: int, trump: str) -> _Judge:
    found = _JUDGES.get((size, trump))
    if found is None:
        found = _JUDGES[(size, trump)] = _Judge(size, trump)
    return found


def bid_bar(rules: Rules, scores: Sequence[int], seat: int) -> float:
    """The bidder model's bar at a score line: lower when one made hand wins the match,
    higher when a euchre would hand it to an opponent (as the heuristic bot bids)."""
    opp = max(s for i, s in enumerate(scores) if i != seat)
    made = hand_points(rules, seat, (), [3 if s == seat else 1 for s in (0, 1, 2)])[seat]
    euchre = max(hand_points(rules, seat, (), [0, 0, 0]))
    bar = BID_BAR
    if scores[seat] + made >= rules.target:
        bar -= 0.45
    if opp + euchre >= rules.target:
        bar += 0.35
    if opp + made >= rules.target:
        bar -= 0.2
    return bar


# ----- match value -----


class MatchValue:
    """Expected number of opponents each seat finishes above, from any score line.

    Exact for the model :data:`HAND_OUTCOMES` (each seat equally likely to make trump): a
    memoised recursion over score lines with the rules' scoring and end of match.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.cap = rules.target + 8  # a tie at the top that goes on this long: stop there
        self.outcomes: list[tuple[float, list[int]]] = []
        for p, made, lone in HAND_OUTCOMES:
            for maker in (0, 1, 2):
                won = [0, 0, 0]
                won[maker] = made
                alone: list[int] = []
                if lone is not None:
                    alone = [(maker + 1) % 3]
                    won[alone[0]] = lone
                self.outcomes.append((p / 3, hand_points(rules, maker, alone, won)))
        self.memo: dict[tuple[int, int, int], tuple[float, float, float]] = {}

    def of(self, scores: Sequence[int]) -> tuple[float, float, float]:
        """The three seats' expected placed-above counts."""
        key = (scores[0], scores[1], scores[2])
        found = self.memo.get(key)
        if found is not None:
            return found
        if match_winners(key, self.rules) or max(key) >= self.cap:
            place = placements(key)
            found = tuple(  # type: ignore[assignment]
                sum(1.0 if place[i] < place[j] else 0.5 if place[i] == place[j] else 0.0
                    for j in (0, 1, 2) if j != i)
                for i in (0, 1, 2)
            )  # fmt: skip
        else:
            a = b = c = 0.0
            for p, pts in self.outcomes:
                v = self.of((key[0] + pts[0], key[1] + pts[1], key[2] + pts[2]))
                a += p * v[0]
                b += p * v[1]
                c += p * v[2]
            found = (a, b, c)
        self.memo[key] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]


_MATCH_VALUES: dict[Rules, MatchValue] = {}


def match_value(rules: Rules) -> MatchValue:
    """The :class:`MatchValue` of ``rules``, made once per process."""
    found = _MATCH_VALUES.get(rules)
    if found is None:
        found = _MATCH_VALUES[rules] = MatchValue(rules)
    return found


def _final_tricks(maker: int, alone: Sequence[int], made: int) -> list[int]:
    """Tricks by seat when the maker took ``made``: a lone defender took the rest."""
    won = [0, 0, 0]
    won[maker] = made
    lone = lone_defender(maker, alone)
    won[lone if lone is not None else (maker + 1) % 3] = 5 - made
    return won


# ----- the bot -----


class Bot:
    """Perfect-information Monte Carlo: weighted worlds, an exact solver, match value."""

    name = "montecarlo"
    author = "Euchre Arena"

    def __init__(
        self,
        seed: int | None = None,
        play_worlds: int = PLAY_WORLDS,
        bid_worlds: int = BID_WORLDS,
        budget: float = SAFETY_SECONDS,
        work_budget: int = WORK_BUDGET,
        min_worlds: int = MIN_WORLDS,
        clock: Callable[[], float] = time.process_time,
        trick_noise: Sequence[Sequence[Sequence[float]]] | None = TRICK_NOISE,
    ) -> None:
        self.rng = random.Random(random.getrandbits(64) if seed is None else seed)
        self.play_worlds = play_worlds
        self.bid_worlds = bid_worlds
        self.budget = budget
        self.work_budget = work_budget
        self.min_worlds = min_worlds
        self.clock = clock
        self.trick_noise = trick_noise
        self.cpu_spent = 0.0
        self.work_spent = 0  # units of work in this match (see WORK_BUDGET)
        self.worlds_done = 0  # worlds played out by the last decision (for tests and benches)
        self.nodes = 0  # solver nodes searched in this match
        self._solvers: dict[tuple[Any, ...], Solver] = {}

    def act(self, obs: Obs) -> Any:
        """One legal action for ``obs`` (5 cards in the ``keep`` phase)."""
        legal = obs["legal"]
        self.worlds_done = 0
        if len(legal) == 1 or obs["phase"] == "joker_trump":
            return legal[0]  # a Joker dealer names trump blind: every suit is alike
        start = self.clock()
        try:
            if obs["phase"] == "play":
                return self._play(obs, start)
            return self._before_play(obs, start)
        finally:
            self.cpu_spent += self.clock() - start

    def _count(self, worlds: int) -> int:
        spent = self.work_spent >= MATCH_WORK_SOFT or self.cpu_spent >= MATCH_CPU_SOFT
        return max(4, worlds // 4) if spent else worlds

    def _search(
        self,
        draw: Callable[[int], Sequence[W]],
        count: int,
        row: Callable[[W], list[float]],
        start: float,
        nodes: Callable[[], int],
    ) -> list[list[float]]:
        """Each legal action's value in up to ``count`` worlds (a row per world), drawn
        :data:`BATCH` at a time; stops early once :data:`MIN_WORLDS` are done and the choice
        is clear (:func:`_settled`), or when the decision's work (``nodes()``, the solver
        nodes searched so far, plus :data:`ROW_UNITS` per action and world) reaches its
        budget, or (a safety net) its CPU time does. The nodes and the work are added to the
        match's counts (:attr:`nodes`, :attr:`work_spent`)."""
        rows: list[list[float]] = []
        first, units = nodes(), 0
        try:
            for size in _batches(self._count(count)):
                for world in draw(size):
                    rows.append(values := row(world))
                    self.worlds_done += 1
                    units += ROW_UNITS * len(values)
                    if nodes() - first + units >= self.work_budget:
                        return rows
                    if self.clock() - start > self.budget:
                        return rows
                if len(rows) >= self.min_worlds and _settled(rows):
                    break
            return rows
        finally:
            searched = nodes() - first
            self.nodes += searched
            self.work_spent += searched + units

    # ----- card play -----

    def _play(self, obs: Obs, start: float) -> str:
        me, maker, rules = obs["seat"], obs["maker"], rules_of(obs)
        key = (obs["hand_number"], obs["trump"], maker, obs["sitting_out"], rules.deck)
        solver = self._solvers.get(key)
        if solver is None:
            self._solvers = {key: Solver(obs["trump"], maker, obs["sitting_out"], rules.deck)}
            solver = self._solvers[key]
        won = sum(1 for t in obs["tricks"] if t["winner"] == maker)
        value = match_value(rules)
        by_made = [
            value.of(_add(obs["scores"], hand_points(rules, maker, obs["alone"], tricks)))[me]
            for tricks in (_final_tricks(maker, obs["alone"], m) for m in range(6))
        ]
        legal = obs["legal"]
        trick = [(s, c) for s, c in obs["trick"]]
        leader = trick[0][0] if trick else me
        tricks = dict.fromkeys(legal, 0.0)

        def row(hands: list[list[str]]) -> list[float]:
            hands[me] = obs["hand"]
            made_by = solver.card_values(hands, leader, trick)
            for card in legal:
                tricks[card] += made_by[card]
            return [by_made[won + made_by[c]] for c in legal]

        sampler = _Sampler(obs, self.rng)
        rows = self._search(sampler.play_worlds, self.play_worlds, row, start, lambda: solver.nodes)
        totals = _totals(rows)
        sign = 1.0 if me == maker else -1.0
        best = max(range(len(legal)), key=lambda k: (round(totals[k], 9), sign * tricks[legal[k]]))
        return legal[best]  # type: ignore[no-any-return]

    # ----- bidding, pick-up, discard, alone, keep -----

    def _before_play(self, obs: Obs, start: float) -> Any:
        me, rules = obs["seat"], rules_of(obs)
        legal: list[Any] = obs["legal"]
        if obs["phase"] == "keep":
            judge = _judge(rules.deck, obs["trump"])
            legal = sorted(legal, key=lambda k: -judge.hand_value(k))[:KEEP_CANDIDATES]
        value = match_value(rules)
        solvers: dict[tuple[Any, ...], Solver] = {}
        sampler = _Sampler(obs, self.rng)

        def row(world: GameState) -> list[float]:
            values = []
            for action in legal:
                state = world.copy()
                state.apply(action)
                _finish_bidding(state, sampler.wild, self.rng)
                values.append(self._hand_value(state, solvers, value, obs["scores"], me))
            return values

        rows = self._search(
            sampler.deal_worlds,
            self.bid_worlds,
            row,
            start,
            lambda: sum(s.nodes for s in solvers.values()),
        )
        totals = _totals(rows)
        # On a tie prefer the quiet action: "pass" (never go alone on a coin flip).
        best = max(range(len(legal)), key=lambda k: (round(totals[k], 9), legal[k] == "pass"))
        return list(legal[best]) if obs["phase"] == "keep" else legal[best]

    def _hand_value(
        self,
        state: GameState,
        solvers: dict[tuple[Any, ...], Solver],
        value: MatchValue,
        scores: Sequence[int],
        me: int,
    ) -> float:
        """Our match value after a hand played out open-handed from the start of play.

        Real players do not see every card: a real maker takes more or fewer tricks than the
        solver's number, with the probabilities :data:`TRICK_NOISE` measured in play (unless
        ``trick_noise`` is None: then the solver's number is taken as it is).
        """
        if state.phase == OVER:
            return value.of(_add(scores, (0, 0, 0)))[me]  # thrown in
        key = (state.trump, state.maker, state.sitting_out)
        solver = solvers.get(key)
        if solver is None:
            solver = solvers[key] = Solver.for_state(state)
        made = solver.solve_state(state)
        maker: int = state.maker  # type: ignore[assignment]
        rules, alone = state.rules, state.alone

        def of(tricks: int) -> float:
            points = hand_points(rules, maker, alone, _final_tricks(maker, alone, tricks))
            return value.of(_add(scores, points))[me]

        if self.trick_noise is None:
            return of(made)
        row = self.trick_noise[0 if maker == me else 1][made]
        return sum(p * of(k) for k, p in enumerate(row) if p)


def _batches(count: int) -> list[int]:
    """Sizes of the batches of at most :data:`BATCH` worlds that make up ``count``."""
    return [min(BATCH, count - at) for at in range(0, count, BATCH)]


def _totals(rows: list[list[float]]) -> list[float]:
    """Each action's total value over the worlds (``rows``: a row of action values each)."""
    return [sum(col) for col in zip(*rows, strict=True)]


def _settled(rows: list[list[float]]) -> bool:
    """Whether the best action (by total over ``rows``, one row of action values per world)
    leads every other by :data:`SETTLE_Z` standard errors of the per-world difference.
    Actions equal in every world (equivalent cards) count as settled."""
    n = len(rows)
    totals = _totals(rows)
    best = max(range(len(totals)), key=totals.__getitem__)
    for k in range(len(totals)):
        if k == best:
            continue
        diffs = [r[best] - r[k] for r in rows]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if var == 0.0 and mean == 0.0:
            continue
        if mean <= SETTLE_Z * math.sqrt(var / n):
            return False
    return True


def _add(scores: Sequence[int], points: Sequence[int]) -> tuple[int, int, int]:
    return (scores[0] + points[0], scores[1] + points[1], scores[2] + points[2])


def _finish_bidding(state: GameState, wild: frozenset[int], rng: random.Random) -> None:
    """Play the decisions before the first lead by the bidder model (random for ``wild``)."""
    rules = state.rules
    while state.phase not in ("play", OVER):
        seat: int = state.turn  # type: ignore[assignment]
        phase = state.phase
        hand = state.hands[seat]
        if phase == "keep":  # before legal_actions(): the keep's 252 options are not needed
            judge = _judge(rules.deck, state.trump)  # type: ignore[arg-type]
            state.apply(judge.keep((), [*hand, *state.dummy], 5))
            continue
        legal = state.legal_actions()
        if seat in wild and phase in ("bid1", "bid2", "alone"):
            state.apply(legal[int(rng.random() * len(legal))])
            continue
        if phase == "bid1":
            up = state.upcard
            judge = _judge(rules.deck, up[1])
            pool = [*hand, up] if seat == state.dealer else hand
            v = judge.bid_value(pool) - (0.0 if seat == state.dealer else 0.25)
            state.apply("order" if v >= bid_bar(rules, state.scores, seat) else "pass")
        elif phase == "bid2":
            state.apply(_round2_choice(state, seat, legal))
        elif phase == "discard":
            judge = _judge(rules.deck, state.trump)  # type: ignore[arg-type]
            state.apply(judge.discard(hand, (state.upcard,)))
        elif phase == "pickup":
            state.apply("pickup")
        else:  # alone: the model never goes alone
            state.apply("pass")


def _round2_choice(state: GameState, seat: int, legal: list[str]) -> str:
    """The bidder model's round-2 call: its best suit if worth the bar, else pass."""
    rules = state.rules
    suits = [s for s in legal if s != "pass"]
    values = [_judge(rules.deck, s).bid_value(state.hands[seat]) for s in suits]
    best = max(range(len(suits)), key=values.__getitem__)
    bar = bid_bar(rules, state.scores, seat) - (0.3 if seat == state.dealer else 0.0)
    return suits[best] if "pass" not in legal or values[best] >= bar else "pass"


def _wild_seats(obs: Obs) -> frozenset[int]:
    """Opponents whose record this match looks random (mostly failed makes and lone
    defences): their bids reveal nothing, and they are simulated as random."""
    ok = [0, 0, 0]
    failed = [0, 0, 0]
    for h in obs["history"]:
        maker = h.get("maker")
        if maker is None:
            continue
        for seat in (maker, *(a for a in h.get("alone", []) if a != maker)):
            if h["tricks_won"][seat] >= 3:
                ok[seat] += 1
            else:
                failed[seat] += 1
    me = obs["seat"]
    return frozenset(s for s in (0, 1, 2) if s != me and failed[s] >= 2 and failed[s] > 2 * ok[s])


class _Sampler:
    """Draws worlds for one observation and weighs them by the bids they would explain."""

    def __init__(self, obs: Obs, rng: random.Random) -> None:
        self.obs = obs
        self.rng = rng
        self.rules = rules_of(obs)
        self.info = unseen(obs)
        self.wild = _wild_seats(obs)
        self.played: dict[int, list[str]] = {0: [], 1: [], 2: []}
        for trick in (*(t["cards"] for t in obs["tricks"]), obs["trick"]):
            for seat, card in trick:
                self.played[seat].append(card)
        me = obs["seat"]
        self.bids = [b for b in obs["bids"] if b["seat"] != me and b["seat"] not in self.wild]
        self.bids = [b for b in self.bids if b["round"] in (1, 2)]
        self.maybe = {c for cards in self.info.maybe.values() for c in cards}
        self.bars = {
            s: bid_bar(self.rules, obs["scores"], s) for s in (0, 1, 2) if s != obs["seat"]
        }

    def _draws(self, n: int) -> int:
        return n * DRAWS_PER_WORLD if self.bids else n

    def _resample(self, drawn: list[tuple[float, Any]], n: int) -> list[Any]:
        """``n`` of the drawn worlds, each picked with probability proportional to its weight
        (systematic resampling: low variance, deterministic for the generator's state)."""
        total = sum(w for w, _ in drawn)
        if len(drawn) <= n or total <= 0.0:
            return [x for _, x in drawn[:n]]
        step = total / n
        u = self.rng.random() * step
        out, acc = [], 0.0
        for w, x in drawn:
            acc += w
            while u < acc and len(out) < n:
                out.append(x)
                u += step
        return out

    def likelihood(self, dealt: dict[int, Sequence[str]]) -> float:
        """How likely the bids made are, for the hands each bidder was dealt (``dealt``;
        seats missing there are not weighed)."""
        obs, rules = self.obs, self.rules
        up, dealer = obs["upcard"], obs["dealer"]
        p = 1.0
        for bid in self.bids:
            seat = bid["seat"]
            hand = dealt.get(seat)
            if hand is None:
                continue
            bar = self.bars[seat]
            if bid["round"] == 1:
                judge = _judge(rules.deck, up[1])
                if seat == dealer:
                    v = judge.bid_value([*hand, up])
                else:
                    v = judge.bid_value(hand) - 0.25
                q = _likely(v - bar)
                p *= q if bid["action"] == "order" else 1.0 - q
            else:
                bar -= 0.3 if seat == dealer else 0.0
                if bid["action"] != "pass":
                    p *= _likely(_judge(rules.deck, bid["action"]).bid_value(hand) - bar)
                else:
                    names = [s for s in SUITS if s != up[1] or rules.round2_allow_turned_down]
                    v = max(_judge(rules.deck, s).bid_value(hand) for s in names)
                    p *= 1.0 - _likely(v - bar)
        return p

    # ----- before play: whole deals, as game states -----

    def deal_worlds(self, n: int) -> list[GameState]:
        """``n`` game states at this decision, the hidden cards drawn and weighed by the bids."""
        obs, info, rng = self.obs, self.info, self.rng
        dealer, up = obs["dealer"], obs["upcard"]
        cards = list(info.cards)
        took = obs["pickup"] and dealer != obs["seat"] and dealer in info.known
        drawn: list[tuple[float, Any]] = []
        for _ in range(self._draws(n)):
            rng.shuffle(cards)
            hands: dict[int, list[str]] = {}
            dealt: dict[int, list[str]] = {}
            at = 0
            for seat, count in info.holders.items():
                if took and seat == dealer and obs["maker"] != dealer:
                    # It picked up for another's order and threw its weakest card away.
                    five = cards[at : at + count + 1]
                    at += count + 1
                    judge = _judge(self.rules.deck, obs["trump"])
                    thrown = judge.discard([*five, up], (up,))
                    hands[seat] = [c for c in five if c != thrown] + [up]
                    dealt[seat] = five
                else:
                    hands[seat] = [*info.known.get(seat, ()), *cards[at : at + count]]
                    dealt[seat] = [c for c in hands[seat] if c != up]
                    at += count
            dummy = cards[at : at + 5] if info.dummy else None
            drawn.append((self.likelihood(dealt), (hands, dummy)))
        return [determinize(obs, h, d) for h, d in self._resample(drawn, n)]

    # ----- during play: the hands of the other players -----

    def play_worlds(self, n: int) -> list[list[list[str]]]:
        """``n`` guesses of every hand now (ours left empty, the sitter's empty)."""
        drawn: list[tuple[float, Any]] = []
        for _ in range(self._draws(n)):
            world = self._play_world()
            if world is not None:
                drawn.append(world)
        if not drawn:  # voids leave few ways: the shared sampler always finds one
            state = sample_state(self.obs, self.rng)
            drawn.append((1.0, [list(h) for h in state.hands]))
        sitter = self.obs["sitting_out"]
        worlds = self._resample(drawn, n)
        while len(worlds) < n:
            worlds += worlds[: n - len(worlds)]
        out = []
        for hands in worlds:
            hands = [list(h) for h in hands]
            if sitter is not None:
                hands[sitter] = []
            out.append(hands)
        return out

    def _play_world(self) -> tuple[float, list[list[str]]] | None:
        """One weighted guess of the current hands, or None if the draw missed the voids."""
        obs, info, rules = self.obs, self.info, self.rules
        me, maker, dealer, up = obs["seat"], obs["maker"], obs["dealer"], obs["upcard"]
        judge = _judge(rules.deck, obs["trump"])
        eff = judge.eff
        cards = [c for c in info.cards if c not in self.maybe]
        self.rng.shuffle(cards)
        hands: list[list[str]] = [[], [], []]
        dealt: dict[int, list[str]] = {}
        with_dummy = maker != me and maker not in obs["alone"]
        # The constrained seats first, the maker's keep (it takes the most cards) last.
        order = sorted(info.holders, key=lambda s: (s == maker and with_dummy, -len(info.voids[s])))
        for seat in order:
            count, voids = info.holders[seat], info.voids[seat]
            known = list(info.known.get(seat, ()))
            fits = [c for c in cards if eff[c] not in voids]
            if seat == maker and with_dummy:
                # It kept its best cards of 10 (11 with the up-card), the played ones among them.
                pool = cards[: count + 5] + list(info.maybe.get(seat, ()))
                pool = [c for c in pool if eff[c] not in voids]
                if len(pool) < count:
                    return None
                mine = known + judge.keep(self.played[seat], pool, count)
            elif seat == dealer and obs["pickup"] and seat != maker:
                # It picked up for another's order and threw its weakest card away.
                five = cards[: count + 1]
                played = self.played[seat]
                thrown = judge.discard([*five, *known, *played], [up, *played])
                mine = known + [c for c in five if c != thrown]
                if len(five) <= count or any(eff[c] in voids for c in mine):
                    return None
                dealt[seat] = [c for c in [*five, *played] if c != up]
            else:
                mine = known + fits[:count]
                if len(mine) < count + len(known):
                    return None
                if seat != maker:
                    dealt[seat] = [c for c in [*mine, *self.played[seat]] if c != up]
            taken = set(mine)
            cards = [c for c in cards if c not in taken]
            hands[seat] = mine
        return self.likelihood(dealt), hands
