"""Scoring what a receiver bot of tests/attacks/ learned, for the channel tests and the bench.

Only the engine and the bundled bots are used, so bench/sandbox.py can score the same attacks
against an older arena (``--fairness --arena DIR``) to show what each channel carried before.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from arena.engine import play_match
from arena.sandbox.botfile import bundled, load_bot_class

Stratum = tuple[Any, ...]


def last_guesses(log: str, pattern: str) -> dict[int, list[str]]:
    """The last guess printed per hand: {hand: fields}."""
    out: dict[int, list[str]] = {}
    for m in re.finditer(pattern, log):
        out[int(m.group(1))] = m.group(2).split()
    return out


def overlap(outs: list[Any], seat: int = 0, log_seat: int = 1) -> list[int]:
    """Per hand: how many of the receiver's 5 guessed cards are really in ``seat``'s hand."""
    hits = []
    for out in outs:
        guesses = last_guesses(out.logs[log_seat], r"GUESS (\d+) (.+)")
        for h in out.result.hands:
            if h.hand_number in guesses:
                real = set(h.deal.hands[seat])
                hits.append(len(real & set(guesses[h.hand_number][-5:])))
    return hits


class _Record:
    """In-process twin of a seat that records every decision: (seat, number of legal actions,
    phase, tricks completed)."""

    def __init__(self, seat: int, bot: Any, seen: list[tuple[int, int, str, int]]) -> None:
        self.seat, self.bot, self.seen = seat, bot, seen

    def act(self, obs: dict[str, Any]) -> Any:
        self.seen.append((self.seat, len(obs["legal"]), obs["phase"], len(obs["tricks"])))
        return obs["legal"][0] if len(obs["legal"]) == 1 else self.bot.act(obs)


class _First:
    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][0]


def gaps_by_forcedness(
    seed: int, log: str, seeding: Callable[[int, int], Any]
) -> list[tuple[Stratum, int, int]]:
    """(stratum, forced opponent decisions, gap in ns) for each gap between two of the
    receiver's (seat 1) calls of act, from the receiver's "T <ns>" lines and the same match
    replayed in-process (``seeding`` seeds each seat's ``random`` as the arena did).

    The stratum is what the receiver knows anyway, from its observations: who decided in
    which phase in between, how many tricks were done, whether a hand ended. Within a stratum,
    only whether an opponent's decision was forced differs.
    """
    seen: list[tuple[int, int, str, int]] = []
    cls = load_bot_class(bundled("random_bot"))
    bots: list[Any] = []
    for seat in range(3):
        random.seed(seeding(seed, seat))
        bots.append(_Record(seat, _First() if seat == 1 else cls(), seen))
    match = play_match(bots, seed)
    times = [int(t) for t in re.findall(r"T (\d+)", log)]
    asked = [i for i, (seat, n, _, _) in enumerate(seen) if seat == 1 and n > 1]
    assert len(times) == len(asked)
    ends = {sum(len(h.log) for h in match.hands[: k + 1]) for k in range(len(match.hands))}
    out = []
    for k in range(len(asked) - 1):
        between = seen[asked[k] + 1 : asked[k + 1]]
        public = tuple((seat, phase, tricks) for seat, _, phase, tricks in between)
        new_hand = any(asked[k] < e <= asked[k + 1] for e in ends)
        own = tuple(n == 1 for seat, n, _, _ in between if seat == 1)  # it knows its own
        forced = sum(1 for seat, n, _, _ in between if seat != 1 and n == 1)
        out.append(((public, own, new_hand), forced, times[k + 1] - times[k]))
    return out


def forced_gap_auc(samples: list[tuple[Stratum, int, int]]) -> tuple[float, int]:
    """How well a short gap tells that an opponent's decision in it was forced: the probability
    that a gap with a forced opponent decision is shorter than one without, in the same
    stratum (0.5: no information). Returns (AUC, number of pairs compared)."""
    by: dict[Stratum, list[tuple[int, int]]] = defaultdict(list)
    for stratum, forced, gap in samples:
        by[stratum].append((forced, gap))
    wins = pairs = 0.0
    for group in by.values():
        some = [g for f, g in group if f > 0]
        none = [g for f, g in group if f == 0]
        for a in some:
            for b in none:
                wins += 1.0 if a < b else 0.5 if a == b else 0.0
                pairs += 1
    return (wins / pairs if pairs else 0.5), int(pairs)
