"""A rule-based reference bot for Three-Handed Euchre with a dummy.

What it knows of the game, in short:

* **Bidding.** A maker who is not alone takes the 5-card dummy and keeps the best 5 of 10 (11
  for a dealer who took the up-card), so a hand is judged by the *expected best keep* over a
  few dummies drawn from the unseen cards, not by the 5 cards alone. Scoring is asymmetric (a
  euchre gives *each* defender 2), so the bar to bid rises when an opponent is within 2 of the
  target and falls when one made hand wins the match for us.
* **Dealer.** Picking up the up-card only ever adds a trump to a defender's hand: always pick
  up, then discard the card whose loss costs least (usually a low card that makes a void).
* **Keep.** All trumps first, then the best mix of off-suit winners and voids (the discarded
  cards are dead, which can promote a king).
* **Alone.** A lone maker marches for 3 by default, no more than with the dummy, so it only
  goes alone with a near-certain march when ``lone_maker_march`` is 4. A defender goes alone
  only with an overwhelming hand (it gains only on a 5-trick sweep).
* **Play.** It tracks played cards, shown voids and dead cards. The maker draws trumps with
  boss trumps, then cashes winners; defenders cash sure winners, lead through the maker into
  their partner's voids, and never overtake a co-defender whose card already holds.

One file, standard library and the arena's pure modules only (it runs in the sandbox): every
rule it needs comes from them, none is copied here. :func:`arena.worlds.unseen` says which cards
it cannot see, where the picked-up up-card is and which suits each player has shown void in;
:func:`arena.rules.hand_points` gives the points at stake; :func:`arena.rules.next_seat` the
order of play. Deterministic: its only randomness is a :class:`random.Random` seeded from the
global ``random`` at construction, which the arena reseeds per match and seat.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from arena.cards import SUITS, power_table, suit_table, winning_play
from arena.game import rules_of
from arena.rules import hand_points, next_seat
from arena.worlds import Unseen, unseen

Obs = dict[str, Any]

DUMMY_SAMPLES = 24
"""Dummies drawn to estimate the value of a bid (each is one greedy best-keep evaluation)."""

BID_THRESHOLD = 3.05
"""Expected tricks of the best keep needed to bid with a neutral score."""

# Value of a card by how many live cards of its (effective) suit outrank it and are not ours.
_TRUMP_VALUE = (1.0, 0.8, 0.62, 0.48, 0.38, 0.33, 0.3, 0.3, 0.3, 0.3, 0.3)
_OFF_VALUE = (0.72, 0.28, 0.07, 0.02, 0.0, 0.0, 0.0, 0.0, 0.0)
_LENGTH_BONUS = (0.0, 0.0, 0.1, 0.35, 0.7, 1.0, 1.0)


def hand_value(cards: list[str], trump: str, live: set[str]) -> float:
    """Estimated tricks a maker takes with ``cards`` under ``trump`` (0..5).

    ``live`` holds the cards that may still be in another player's hand (everything that is
    neither ours nor known dead). A card is worth more the fewer live cards outrank it; trump
    length and voids (with trumps to ruff) add to it.
    """
    eff = suit_table(trump)
    trumps = [c for c in cards if eff[c] == trump]
    n_trump = len(trumps)
    total = _LENGTH_BONUS[n_trump]
    ttable = power_table(trump, trump)
    for c in trumps:
        p = ttable[c]
        higher = sum(1 for x in live if ttable[x] > p)
        total += _TRUMP_VALUE[min(higher, 10)]
    for suit in SUITS:
        if suit == trump:
            continue
        mine = [c for c in cards if eff[c] == suit]
        if not mine:
            if n_trump >= 2:
                total += 0.25
            elif n_trump == 1:
                total += 0.1
            continue
        table = power_table(trump, suit)
        # Only the top card of a suit is likely to win; a second card rides on the first.
        for i, c in enumerate(sorted(mine, key=table.__getitem__, reverse=True)):
            p = table[c]
            higher = sum(1 for x in live if eff[x] == suit and table[x] > p)
            v = _OFF_VALUE[min(higher, 8)]
            if i > 0:
                v *= 0.5
            if len(mine) >= 3:
                v *= 0.8  # long off-suits get ruffed by the second round
            total += v
    return min(total, 5.0)


def best_keep(pool: list[str], trump: str, live: set[str]) -> tuple[list[str], float]:
    """The best 5 of ``pool`` (10 or 11 cards) for a maker, and its :func:`hand_value`.

    Every trump is kept (up to 5); the other places are filled by trying every mix of the
    six most promising non-trumps, which is exact enough and about 20 evaluations.
    """
    eff = suit_table(trump)
    ttable = power_table(trump, trump)
    trumps = sorted((c for c in pool if eff[c] == trump), key=ttable.__getitem__, reverse=True)
    if len(trumps) >= 5:
        keep = trumps[:5]
        return keep, hand_value(keep, trump, live)
    others = [c for c in pool if eff[c] != trump]
    # Most promising: highest cards first, shorter suits (void-making) as tie-break.
    others.sort(key=lambda c: -power_table(trump, eff[c])[c])
    others = others[:6]
    need = 5 - len(trumps)
    best: list[str] = []
    best_v = -1.0
    for fill in combinations(others, need):
        cand = trumps + list(fill)
        v = hand_value(cand, trump, live)
        if v > best_v:
            best, best_v = cand, v
    return best, best_v


def _target_threshold(obs: Obs, base: float) -> float:
    """The bidding bar adjusted for the match score (asymmetric scoring)."""
    seat, scores = obs["seat"], obs["scores"]
    rules = rules_of(obs)
    opp = max(s for i, s in enumerate(scores) if i != seat)
    made = hand_points(rules, seat, (), [3 if s == seat else 1 for s in (0, 1, 2)])[seat]
    euchre = max(hand_points(rules, seat, (), [0, 0, 0]))  # what each defender gets
    t = base
    if scores[seat] + made >= rules.target:
        t -= 0.45  # one made hand wins the match
    if opp + euchre >= rules.target:
        t += 0.35  # a euchre hands the opponent the match
    if opp + made >= rules.target:
        t -= 0.2  # any make by that opponent wins for them: contest the hand
    return t


class Bot:
    """Rule-based play: dummy-aware bidding, greedy keep, card counting, defender teamwork."""

    name = "heuristic"
    author = "Euchre Arena"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(random.getrandbits(64) if seed is None else seed)

    # ----- dispatch -----
    def act(self, obs: Obs) -> Any:
        """Return one legal action for ``obs`` (a 5-card list in the ``keep`` phase)."""
        legal = obs["legal"]
        if len(legal) == 1:
            return legal[0]
        phase = obs["phase"]
        if phase == "bid1":
            return self._bid1(obs)
        if phase == "pickup":
            return "pickup"
        if phase == "discard":
            return self._discard(obs)
        if phase == "bid2":
            return self._bid2(obs)
        if phase == "alone":
            return self._alone(obs)
        if phase == "keep":
            return self._keep(obs)
        if phase == "play":
            return self._play(obs)
        return legal[0]  # joker_trump: the hand is unseen, every suit is alike

    # ----- bidding -----
    def _dummy_value(self, pool: list[str], trump: str, unseen: list[str], n: int) -> float:
        """Mean best-keep value of ``pool`` plus a dummy drawn from ``unseen``."""
        total = 0.0
        live_base = set(unseen)
        for _ in range(n):
            dummy = self.rng.sample(unseen, 5)
            live = live_base - set(dummy)
            total += best_keep(pool + dummy, trump, live)[1]
        return total / n

    def _bid1(self, obs: Obs) -> str:
        up = obs["upcard"]
        trump = up[1]
        hand = obs["hand"]
        me, dealer = obs["seat"], obs["dealer"]
        hidden = list(unseen(obs).cards)
        pool = hand + [up] if me == dealer else list(hand)
        value = self._dummy_value(pool, trump, hidden, DUMMY_SAMPLES)
        if me != dealer:
            value -= 0.25  # the dealer, an opponent, takes the up-card
        return "order" if value >= _target_threshold(obs, BID_THRESHOLD) else "pass"

    def _bid2(self, obs: Obs) -> str:
        hand = obs["hand"]
        hidden = list(unseen(obs).cards)
        best_suit, best_v = "pass", -1.0
        for s in obs["legal"]:
            if s == "pass":
                continue
            v = self._dummy_value(list(hand), s, hidden, DUMMY_SAMPLES)
            if v > best_v:
                best_suit, best_v = s, v
        if "pass" not in obs["legal"]:
            return best_suit  # stuck dealer
        bar = _target_threshold(obs, BID_THRESHOLD)
        if obs["seat"] == obs["dealer"]:
            bar -= 0.3  # passing kills the hand: nothing to gain from letting it go
        return best_suit if best_v >= bar else "pass"

    # ----- after trump is fixed -----
    @staticmethod
    def _live(info: Unseen) -> set[str]:
        """Cards that may still be in another player's hand: the unseen ones, and an up-card
        the dealer (another player) picked up and has not played."""
        live = set(info.cards)
        for cards in info.known.values():
            live.update(cards)
        return live

    def _discard(self, obs: Obs) -> str:
        hand, trump = obs["hand"], obs["trump"]
        live = self._live(unseen(obs))
        best, best_v = obs["legal"][0], -1.0
        for c in obs["legal"]:
            rest = [x for x in hand if x != c]
            v = hand_value(rest, trump, live | {c}) + self._defence_bonus(rest, trump)
            if v > best_v:
                best, best_v = c, v
        return str(best)

    @staticmethod
    def _defence_bonus(cards: list[str], trump: str) -> float:
        """A tie-break favouring high trumps (what a defender needs most)."""
        table = power_table(trump, trump)
        return 0.001 * sum(table[c] for c in cards)

    def _alone(self, obs: Obs) -> str:
        me, trump, rules = obs["seat"], obs["trump"], obs["rules"]
        hand = obs["hand"]
        live = self._live(unseen(obs))
        if len(hand) == 6:  # a dealer-maker would discard one: judge the best five
            hand = max(
                ([x for x in hand if x != c] for c in hand if c != obs["upcard"]),
                key=lambda h: hand_value(h, trump, live),
            )
        own = hand_value(hand, trump, live)
        if me == obs["maker"]:
            if rules["lone_maker_march"] >= 4 and own >= 4.7:
                return "alone"
            return "pass"
        # A defender: alone pays only on a sweep (4 each instead of 2); the maker keeps the
        # best of 10 cards, so it takes a very strong hand.
        bar = 4.6 if rules["lone_defender_scoring"] == "both" else 4.4
        if obs["alone"]:  # a lone maker has no dummy: weaker than usual
            bar -= 0.4
        return "alone" if own >= bar else "pass"

    def _keep(self, obs: Obs) -> list[str]:
        pool = obs["hand"] + obs["dummy"]
        trump = obs["trump"]
        live = self._live(unseen(obs))  # the dummy is seen: not live
        keep, _ = best_keep(pool, trump, live)
        return keep

    # ----- card play -----
    def _play(self, obs: Obs) -> str:
        return _Play(obs, unseen(obs)).choose()


class _Play:
    """One card-play decision: what is known at this point and the rules of thumb."""

    def __init__(self, obs: Obs, info: Unseen) -> None:
        self.obs = obs
        self.me: int = obs["seat"]
        self.trump: str = obs["trump"]
        self.maker: int = obs["maker"]
        self.sitter: int | None = obs["sitting_out"]
        self.hand: list[str] = obs["hand"]
        self.legal: list[str] = obs["legal"]
        self.eff = suit_table(self.trump)
        self.live = Bot._live(info)
        # If the dealer (another player) took the up-card and has not played it, it is theirs
        # (a dealer-maker's keep may have thrown it away: assume it did not). Where it can be is
        # arena.worlds' statement: known to be in the dealer's hand, or maybe there.
        up, dealer = obs["upcard"], obs["dealer"]
        held = (*info.known.get(dealer, ()), *info.maybe.get(dealer, ()))
        self.upcard_at: int | None = dealer if up in held else None
        self.voids = info.voids

    # --- who is who ---
    def friend(self, seat: int) -> bool:
        """Whether ``seat`` plays on our side this hand (a co-defender, or ourselves)."""
        if seat == self.me:
            return True
        return self.me != self.maker and seat != self.maker

    def active(self) -> list[int]:
        return [s for s in (0, 1, 2) if s != self.sitter]

    def after_me(self) -> list[int]:
        """Seats still to play in this trick after us, in order."""
        left = len(self.active()) - len(self.obs["trick"]) - 1
        seats, seat = [], self.me
        while len(seats) < left:
            seat = next_seat(seat, self.sitter)
            seats.append(seat)
        return seats

    def void(self, seat: int, suit: str) -> bool:
        """Whether ``seat`` surely has no card of ``suit`` (shown, or none is live)."""
        if suit in self.voids.get(seat, ()):
            return True
        if self.upcard_at == seat and self.eff[self.obs["upcard"]] == suit:
            return False
        return not any(self.eff[c] == suit for c in self.live)

    def can_beat(self, card: str, led: str, seats: list[int]) -> bool:
        """Whether some live card in one of ``seats`` might beat ``card`` in a trick led ``led``."""
        table = power_table(self.trump, led)
        p = table[card]
        for seat in seats:
            for c in self.live:
                if table[c] <= p:
                    continue
                s = self.eff[c]
                if s == led and not self.void(seat, led):
                    return True
                if s == self.trump and s != led and self.void(seat, led):
                    if not self.void(seat, self.trump):
                        return True
        return False

    def boss(self, card: str) -> bool:
        """Whether no live card of ``card``'s suit outranks it."""
        s = self.eff[card]
        table = power_table(self.trump, s)
        p = table[card]
        return not any(self.eff[c] == s and table[c] > p for c in self.live)

    # --- choices ---
    def choose(self) -> str:
        if len(self.legal) == 1:
            return self.legal[0]
        if not self.obs["trick"]:
            return self.lead()
        return self.follow()

    def lowest(self, cards: list[str]) -> str:
        """The card we miss least: no trump or boss if avoidable, short suits, low ranks."""
        counts = {s: sum(1 for c in self.hand if self.eff[c] == s) for s in SUITS}

        def cost(c: str) -> tuple[int, int, int]:
            s = self.eff[c]
            return (
                int(s == self.trump),
                int(self.boss(c)),
                power_table(self.trump, s)[c] + 3 * counts[s],
            )

        return min(cards, key=cost)

    def follow(self) -> str:
        trick = self.obs["trick"]
        led = self.eff[trick[0][1]]
        table = power_table(self.trump, led)
        win_seat, win_card = winning_play(trick, self.trump)
        opp_after = [s for s in self.after_me() if not self.friend(s)]
        winners = [c for c in self.legal if table[c] > table[win_card]]
        if self.friend(win_seat) and win_seat != self.me:
            # Our co-defender is winning: do not overtake unless their card may fall.
            if not self.can_beat(win_card, led, opp_after):
                return self.lowest(self.legal)
            safe = [c for c in winners if not self.can_beat(c, led, opp_after)]
            if safe:
                return min(safe, key=table.__getitem__)
            return self.lowest(self.legal)
        if not winners:
            return self.lowest(self.legal)
        if not opp_after:
            return min(winners, key=table.__getitem__)
        safe = [c for c in winners if not self.can_beat(c, led, opp_after)]
        if safe:
            return min(safe, key=table.__getitem__)
        following = [c for c in winners if self.eff[c] == led]
        if following and led != self.trump:
            # Cannot be sure: make the opponent pay with their best card.
            return max(following, key=table.__getitem__)
        return min(winners, key=table.__getitem__)

    def lead(self) -> str:
        trump = self.trump
        opps = [s for s in self.active() if not self.friend(s)]
        trumps = [c for c in self.legal if self.eff[c] == trump]
        ttable = power_table(trump, trump)
        opp_trump = any(not self.void(s, trump) for s in opps)
        offs = [c for c in self.legal if self.eff[c] != trump]
        cashable = [
            c
            for c in offs
            if self.boss(c) and not any(self.void(s, self.eff[c]) for s in opps if opp_trump)
        ]
        if self.me == self.maker:
            boss_trumps = [c for c in trumps if self.boss(c)]
            if opp_trump and boss_trumps:
                return max(boss_trumps, key=ttable.__getitem__)  # draw their trumps
            if cashable:
                return cashable[0]
            if opp_trump and len(trumps) >= 2:
                return max(trumps, key=ttable.__getitem__)
            if not opp_trump and trumps:
                return max(trumps, key=ttable.__getitem__)
            bosses = [c for c in offs if self.boss(c)]
            if bosses:
                return bosses[0]
            return self.lowest(self.legal)
        # Defending.
        if cashable:
            return cashable[0]
        partner = [s for s in self.active() if s not in opps and s != self.me]
        maker = self.maker
        for p in partner:
            # Lead into our partner's void (they can ruff) where the maker must follow.
            ruffable = [
                c
                for c in offs
                if self.void(p, self.eff[c])
                and not self.void(p, trump)
                and not self.void(maker, self.eff[c])
            ]
            if ruffable:
                return self.lowest(ruffable)
        boss_trumps = [c for c in trumps if self.boss(c)]
        if boss_trumps and len(trumps) >= 2:
            return max(boss_trumps, key=ttable.__getitem__)
        safe = [c for c in offs if not self.void(maker, self.eff[c])]
        if safe:
            return self.lowest(safe)
        if offs:
            return self.lowest(offs)
        return min(trumps, key=ttable.__getitem__)
