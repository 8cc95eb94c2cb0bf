"""An exact open-hand (double-dummy) solver for the play of one hand of Three-Handed Euchre.

Given every player's cards (the "open hands"), trump, the maker, who sits out, and the trick in
progress, :class:`Solver` returns how many of the remaining tricks the maker takes when every
player plays perfectly: the maker to take as many as possible, the defenders (partners for the
hand, or a lone defender) as few. :meth:`Solver.card_values` gives that number after each legal
card of the seat to move. A hand's points depend only on the maker's tricks
(:func:`arena.rules.hand_points`), so this is the value of the hand for every seat.

Search bots use it on guesses of the hidden cards (perfect-information Monte Carlo): the
bundled ``montecarlo`` bot does. Pure (standard library, :mod:`arena.cards`,
:mod:`arena.rules`) and staged by the sandbox, so bots import it.

How it works, for authors who want to make it faster: the rules come from :mod:`arena.cards`
(:func:`~arena.cards.suit_table`, :func:`~arena.cards.power_table`): at first use each deck and
trump get a :class:`Layout` that gives every card one bit, each effective suit a contiguous
block of bits from low to high rank, trump the highest block. Following suit is then one AND
with the led suit's mask, and a card wins when it is in the led or the trump block and its bit
is above the winner's: :func:`~arena.cards.winning_play`, the one statement of who wins a
trick, compiled to bits (a call per card would cost the search its speed; the tests check the
two agree on every trick). The search is alpha-beta over single card plays, with a transposition
table keyed on the hands and the leader at every trick start (storing bounds of the maker's
tricks from there, shared by every search of the hand), equivalent cards pruned (two cards of
one suit in one hand with no card of another hand between them are worth the same: only one
is searched) and cheap move ordering (leads high first; followers win as cheaply as they can,
else play low).

>>> solver = Solver(trump="H", maker=1)
>>> hands = [["JD", "9C", "TC", "KS", "QS"], ["JH", "AH", "QH", "TH", "AC"],
...          ["KH", "AD", "KD", "QD", "TS"]]
>>> solver.solve(hands, leader=1)   # docs/rules.md section 11: the maker takes all five
5
>>> solver.card_values(hands, leader=1)["AC"]
4
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from arena.cards import SUITS, deck, power_table, suit_table, winning_play
from arena.rules import next_seat

__all__ = ["Layout", "layout", "Solver", "TT_LIMIT"]

TT_LIMIT: Final = 400_000
"""Positions a :class:`Solver` remembers before it forgets them all (memory stays ~100 MB)."""


class Layout:
    """One deck under one trump as bits: the tables the solver's rules come from.

    ``cards[i]`` is the card of bit ``1 << i``; ``bit[card]`` the reverse. Cards are ordered by
    effective suit (the plain suits in :data:`~arena.cards.SUITS` order, then trump) and, within
    a suit, from the lowest to the highest :func:`~arena.cards.power_table` value, so
    ``suit_mask[s]`` is a contiguous block and a higher bit in the led or trump block wins.
    ``block[b]`` is the suit mask of the single-bit card ``b``.
    """

    __slots__ = ("size", "trump", "cards", "bit", "suit_mask", "trump_mask", "block")

    def __init__(self, size: int, trump: str) -> None:
        eff = suit_table(trump)
        others = [s for s in SUITS if s != trump]

        def order(card: str) -> tuple[int, int]:
            suit = eff[card]
            place = 4 if suit == trump else others.index(suit)
            return place, power_table(trump, suit)[card]

        self.size = size
        self.trump = trump
        self.cards: tuple[str, ...] = tuple(sorted(deck(size), key=order))
        self.bit: dict[str, int] = {c: 1 << i for i, c in enumerate(self.cards)}
        self.suit_mask: dict[str, int] = {s: 0 for s in SUITS}
        for card, b in self.bit.items():
            self.suit_mask[eff[card]] |= b
        self.trump_mask = self.suit_mask[trump]
        self.block: dict[int, int] = {b: self.suit_mask[eff[c]] for c, b in self.bit.items()}

    def mask(self, cards: Iterable[str]) -> int:
        """The bit mask of ``cards``."""
        m = 0
        for card in cards:
            m |= self.bit[card]
        return m

    def unmask(self, m: int) -> list[str]:
        """The cards of mask ``m``, lowest bit first."""
        out = []
        while m:
            low = m & -m
            out.append(self.cards[low.bit_length() - 1])
            m ^= low
        return out


_LAYOUTS: dict[tuple[int, str], Layout] = {}


def layout(size: int, trump: str) -> Layout:
    """The :class:`Layout` of a deck of ``size`` (24, 32 or 25) under ``trump``, made once."""
    key = (size, trump)
    found = _LAYOUTS.get(key)
    if found is None:
        found = _LAYOUTS[key] = Layout(size, trump)
    return found


class Solver:
    """Exact play of one hand with every card known: alpha-beta over a transposition table.

    One solver serves one hand (one deck, trump, maker and sitter): every call may start from
    any position of that hand, and the positions it has solved stay remembered (bounded by
    :data:`TT_LIMIT`), so later calls are cheaper. ``nodes`` counts the cards played in search.

    Positions are given as ``hands`` (the cards each seat holds now, by seat; the sitter's
    cards, if given, are ignored), ``leader`` (who led the trick in progress, or leads the
    next) and ``trick`` (the ``(seat, card)`` plays of the trick in progress so far). Values
    are the maker's tricks from
    the remaining ones, the trick in progress included.
    """

    def __init__(
        self, trump: str, maker: int, sitting_out: int | None = None, deck_size: int = 24
    ) -> None:
        if maker not in (0, 1, 2) or maker == sitting_out:
            raise ValueError(f"the maker must be an active seat, not {maker!r}")
        self.layout = layout(deck_size, trump)
        self.maker = maker
        self.sitting_out = sitting_out
        self.players = 2 if sitting_out is not None else 3
        self.following = tuple(next_seat(s, sitting_out) for s in (0, 1, 2))
        self.nodes = 0
        self.table: dict[int, int] = {}
        self._hands = [0, 0, 0]
        self._trick_start, self._follow = self._searchers()

    @classmethod
    def for_state(cls, state: Any) -> Solver:
        """A solver for the hand of a :class:`~arena.game.GameState` in its play phase."""
        if state.phase != "play":
            raise ValueError(f"the solver plays tricks: the state is in phase {state.phase!r}")
        return cls(state.trump, state.maker, state.sitting_out, state.rules.deck)

    # ----- public queries -----

    def solve(
        self,
        hands: Sequence[Iterable[str]],
        leader: int,
        trick: Sequence[tuple[int, str]] = (),
        lo: int = 0,
        hi: int = 5,
    ) -> int:
        """The maker's tricks from here with best play by everyone.

        With a window ``lo < hi`` narrower than all outcomes the answer is exact inside it,
        and otherwise only a bound on the correct side: a result ``<= lo`` means "at most
        lo", ``>= hi`` "at least hi" (a null window ``hi = lo + 1`` asks "at least hi?",
        which is much cheaper than the exact value).
        """
        masks, turn, led, win_seat, win_card, plays = self._setup(hands, leader, trick)
        self._hands[:] = masks
        if not plays:
            return self._trick_start(turn, lo, hi) if masks[turn] else 0
        return self._follow(plays, turn, led, win_seat, win_card, self._all(masks, trick), lo, hi)

    def card_values(
        self, hands: Sequence[Iterable[str]], leader: int, trick: Sequence[tuple[int, str]] = ()
    ) -> dict[str, int]:
        """The maker's tricks from here after each legal card of the seat to move (exact).

        Equivalent cards (same suit, no card of another hand between them) are solved once
        and share a value.
        """
        masks, turn, led, win_seat, win_card, plays = self._setup(hands, leader, trick)
        lay = self.layout
        allm = self._all(masks, trick)
        hand = masks[turn]
        legal = (hand & led) or hand if plays else hand
        values: dict[str, int] = {}
        for rep, group in _groups(legal, allm, lay.block):
            self._hands[:] = masks
            value = self._after(turn, rep, plays, led, win_seat, win_card, allm, 0, 5)
            for card in lay.unmask(group):
                values[card] = value
        return values

    def legal_cards(
        self, hands: Sequence[Iterable[str]], leader: int, trick: Sequence[tuple[int, str]] = ()
    ) -> list[str]:
        """The cards the seat to move may play, in :class:`Layout` order (what the search
        tries; the tests check it against :meth:`arena.game.GameState.legal_actions`)."""
        masks, turn, led, _, _, plays = self._setup(hands, leader, trick)
        hand = masks[turn]
        return self.layout.unmask((hand & led) or hand if plays else hand)

    def solve_state(self, state: Any) -> int:
        """The maker's tricks at the end of the hand of ``state`` (a state in its play phase),
        with best play from here: the tricks already won plus :meth:`solve`."""
        won = state.tricks_won[self.maker]
        leader = state.trick[0][0] if state.trick else state.turn
        return won + self.solve(state.hands, leader, state.trick)

    def state_values(self, state: Any) -> dict[str, int]:
        """:meth:`card_values` at ``state``, counting the tricks the maker has already won."""
        won = state.tricks_won[self.maker]
        leader = state.trick[0][0] if state.trick else state.turn
        return {c: won + v for c, v in self.card_values(state.hands, leader, state.trick).items()}

    # ----- internals -----

    def _setup(
        self, hands: Sequence[Iterable[str]], leader: int, trick: Sequence[tuple[int, str]]
    ) -> tuple[list[int], int, int, int, int, int]:
        """Masks by seat, the seat to move, the led suit's mask, the trick's winner so far
        (seat and card bit) and how many cards the trick has."""
        lay = self.layout
        masks = [lay.mask(h) for h in hands]
        if len(masks) != 3 or masks[0] & masks[1] or masks[0] & masks[2] or masks[1] & masks[2]:
            raise ValueError("three hands by seat, no card in two of them")
        if self.sitting_out is not None:
            masks[self.sitting_out] = 0  # its cards are out of play
        if not trick:
            return masks, leader, 0, -1, 0, 0
        if len(trick) >= self.players or trick[0][0] != leader:
            raise ValueError(f"a trick in progress led by seat {leader}, not {trick!r}")
        seat = leader
        for s, card in trick:
            if s != seat or lay.bit[card] & (masks[0] | masks[1] | masks[2]):
                raise ValueError(f"the trick {trick!r} is not in turn or repeats a card")
            seat = self.following[s]
        win_seat, win = winning_play(trick, lay.trump)
        led = lay.block[lay.bit[trick[0][1]]]
        return masks, seat, led, win_seat, lay.bit[win], len(trick)

    def _all(self, masks: list[int], trick: Sequence[tuple[int, str]]) -> int:
        """Every card still in play: the hands and the trick in progress."""
        return masks[0] | masks[1] | masks[2] | self.layout.mask(c for _, c in trick)

    def _after(
        self,
        seat: int,
        card: int,
        plays: int,
        led: int,
        win_seat: int,
        win_card: int,
        allm: int,
        lo: int,
        hi: int,
    ) -> int:
        """The value after ``seat`` plays ``card`` (a bit) as the ``plays``-th card of a trick."""
        lay = self.layout
        self._hands[seat] ^= card
        if plays == 0:
            led, win_seat, win_card = lay.block[card], seat, card
        elif card & (led | lay.trump_mask) and card > win_card:
            win_seat, win_card = seat, card
        if plays + 1 == self.players:
            self.nodes += 1
            won = 1 if win_seat == self.maker else 0
            if not self._hands[win_seat]:
                return won
            return won + self._trick_start(win_seat, lo - won, hi - won)
        following = self.following[seat]
        return self._follow(plays + 1, following, led, win_seat, win_card, allm, lo, hi)

    def _searchers(
        self,
    ) -> tuple[
        Callable[[int, int, int], int], Callable[[int, int, int, int, int, int, int, int], int]
    ]:
        """The search as two mutually recursive closures over this hand's tables (local names
        are the fastest to reach in CPython)."""
        trick_start, bind = _lead_search(self)
        follow = _follow_search(self, trick_start)
        bind(follow)
        return trick_start, follow


def _lead_search(
    solver: Solver,
) -> tuple[Callable[[int, int, int], int], Callable[[Callable[..., int]], None]]:
    """The search at a trick start, and the setter that gives it the search inside a trick."""
    lay = solver.layout
    block, hands, table = lay.block, solver._hands, solver.table
    maker, following = solver.maker, solver.following
    follow: Callable[..., int] = _unbound

    def bind(inside: Callable[..., int]) -> None:
        nonlocal follow
        follow = inside

    def trick_start(leader: int, alpha: int, beta: int) -> int:
        """Maker's tricks from a trick start (the leader holds cards), within the window."""
        h0, h1, h2 = hands
        key = (h0 << 66) | (h1 << 34) | (h2 << 2) | leader
        bounds = table.get(key)
        remaining = (hands[leader]).bit_count()
        lo, hi = 0, remaining
        if bounds is not None:
            lo, hi = bounds >> 4, bounds & 15
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
        if hi <= alpha or beta <= lo:  # the window is outside what is possible here
            return hi if hi <= alpha else lo
        a0 = a = alpha if alpha > lo else lo
        b0 = b = beta if beta < hi else hi
        allm = h0 | h1 | h2
        hand = hands[leader]
        moves = []  # one card of each run of equivalent cards, highest first (inlined: hot)
        m = hand
        while m:
            card = m & -m
            m ^= card
            above = allm & ~((card << 1) - 1) & block[card]
            if not (above & -above) & hand:
                moves.append(card)
        moves.reverse()
        maximize = leader == maker
        best = -1 if maximize else 99
        nxt = following[leader]
        searched = 0
        for card in moves:
            searched += 1
            hands[leader] = hand ^ card
            v = follow(1, nxt, block[card], leader, card, allm, a, b)
            if maximize:
                if v > best:
                    best = v
                    if v > a:
                        a = v
                        if a >= b:
                            break
            else:
                if v < best:
                    best = v
                    if v < b:
                        b = v
                        if a >= b:
                            break
        hands[leader] = hand
        solver.nodes += searched
        # Store what this search proved: a fail-high is a lower bound, a fail-low an upper.
        if best <= a0:
            hi = best if best < hi else hi
        elif best >= b0:
            lo = best if best > lo else lo
        else:
            lo = hi = best
        if len(table) >= TT_LIMIT:
            table.clear()
        table[key] = (lo << 4) | hi
        return best

    return trick_start, bind


def _follow_search(
    solver: Solver, trick_start: Callable[[int, int, int], int]
) -> Callable[[int, int, int, int, int, int, int, int], int]:
    """The search inside a trick (after its lead), handing over to ``trick_start``."""
    lay = solver.layout
    trump_mask, block, hands = lay.trump_mask, lay.block, solver._hands
    maker, players, following = solver.maker, solver.players, solver.following

    def follow(
        plays: int, seat: int, led: int, win_seat: int, win_card: int, allm: int, a: int, b: int
    ) -> int:
        """Value with ``seat`` to play the ``plays``-th card of a trick (0-based)."""
        hand = hands[seat]
        legal = (hand & led) or hand
        last = plays + 1 == players
        mine = seat == maker
        winning_side = win_seat == maker
        wins = led | trump_mask
        # Order: if the other side holds the trick, win as cheaply as possible first;
        # otherwise play low. Equivalent cards are searched once.
        moves = []
        m = legal
        while m:
            card = m & -m
            m ^= card
            above = allm & ~((card << 1) - 1) & block[card]
            if not (above & -above) & legal:
                moves.append(card)
        if mine != winning_side:
            beat = wins & ~((win_card << 1) - 1)  # the cards that would take the trick
            if legal & beat:
                moves = [c for c in moves if c & beat] + [c for c in moves if not c & beat]
        alpha, beta = a, b
        best = -1 if mine else 99
        nxt = following[seat]
        searched = 0
        for card in moves:
            searched += 1
            if card & wins and card > win_card:
                ws, wc = seat, card
            else:
                ws, wc = win_seat, win_card
            hands[seat] = hand ^ card
            if last:
                won = 1 if ws == maker else 0
                if hands[ws]:
                    v = won + trick_start(ws, alpha - won, beta - won)
                else:
                    v = won
            else:
                v = follow(plays + 1, nxt, led, ws, wc, allm, alpha, beta)
            if mine:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            else:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
        hands[seat] = hand
        solver.nodes += searched
        return best

    return follow


def _unbound(*args: int) -> int:
    raise AssertionError("the lead search is used before its follow search is bound")


def _groups(legal: int, allm: int, block: dict[int, int]) -> list[tuple[int, int]]:
    """Each run of equivalent cards in ``legal`` as ``(representative bit, mask of the run)``."""
    out = []
    m = legal
    run = 0
    while m:
        card = m & -m
        m ^= card
        run |= card
        above = allm & ~((card << 1) - 1) & block[card]
        if not (above & -above) & legal:
            out.append((card, run))
            run = 0
    return out
