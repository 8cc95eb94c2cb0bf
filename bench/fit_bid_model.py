"""Fit the bidder model of ``bots/montecarlo.py`` to the bundled heuristic bot's judgement.

The Monte-Carlo bot weighs its guesses of the others' hands by how likely each bid was, under
a model of a bidder: the heuristic's bar (``BID_BAR``) on a linear estimate of its
dummy-aware hand value. This script measures that value on random hands (the heuristic's own
``_dummy_value``: the mean best keep over drawn dummies) and fits:

* ``BID_WEIGHTS``: least squares of that value on the bot's ``_Judge.features`` of the
  5 (or, for a dealer with the up-card, 6) cards;
* ``HAND_WEIGHTS``: the same for the heuristic's ``hand_value`` of 5 cards as they are (how
  the bot ranks keeps and discards);
* ``BID_SCALE``: the logistic scale that makes the heuristic's real round-1 calls (from
  observations of seeded deals) most likely under the fitted value.

Run by hand; paste the printed constants into ``bots/montecarlo.py``::

    python bench/fit_bid_model.py --hands 4000
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from arena.cards import SUITS, deck
from arena.engine import deal_for
from arena.game import GameState
from arena.sandbox.botfile import bundled
from arena.worlds import unseen

_ROOT = Path(__file__).resolve().parent.parent


def _module(path: Path, name: str) -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=4000, help="random holdings to value")
    ap.add_argument("--calls", type=int, default=3000, help="round-1 calls for the scale")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    mc = _module(_ROOT / "bots" / "montecarlo.py", "montecarlo_fit")
    heur = _module(bundled("heuristic"), "heuristic_fit")
    bot = heur.Bot(seed=args.seed)
    rng = random.Random(args.seed)
    cards = deck(24)
    xb, yb, xh, yh = [], [], [], []
    for _ in range(args.hands):
        rng.shuffle(cards)
        up, pool = cards[0], cards[1 : 1 + rng.choice((5, 5, 6))]
        trump = up[1] if rng.random() < 0.6 else rng.choice(SUITS)
        hidden = [c for c in cards if c not in pool and c != up]
        judge = mc._judge(24, trump)
        xb.append(judge.features(pool))
        yb.append(bot._dummy_value(list(pool), trump, hidden, 48))
        hand = pool[:5]
        xh.append(judge.features(hand))
        yh.append(heur.hand_value(hand, trump, set(hidden) | set(pool[5:])))
    wb, res_b = _lsq(xb, yb)
    wh, res_h = _lsq(xh, yh)
    print(f"BID_WEIGHTS = {tuple(round(w, 3) for w in wb)}  # residual sd {res_b:.3f}")
    print(f"HAND_WEIGHTS = {tuple(round(w, 3) for w in wh)}  # residual sd {res_h:.3f}")
    mc.BID_WEIGHTS = tuple(wb)
    margins, calls = _round1_calls(mc, bot, args.calls, args.seed)
    scale = max((s / 100 for s in range(5, 150)), key=lambda s: _loglik(margins, calls, s))
    agree = sum((m >= 0) == c for m, c in zip(margins, calls, strict=True)) / len(calls)
    print(f"BID_SCALE = {scale:.2f}  # {len(calls)} calls, {agree:.3f} agree with the bar")
    return 0


def _lsq(x: list[list[float]], y: list[float]) -> tuple[list[float], float]:
    a, b = np.array(x), np.array(y)
    w, *_ = np.linalg.lstsq(a, b, rcond=None)
    return [float(v) for v in w], float(np.std(b - a @ w))


def _round1_calls(mc: ModuleType, bot: object, n: int, seed: int) -> tuple[list[float], list[bool]]:
    """The fitted value minus the bar, and the heuristic's call, for real round-1 decisions."""
    margins, calls = [], []
    k = 0
    while len(calls) < n:
        state = GameState(deal_for(seed * 100_003 + k, 0), dealer=k % 3)
        k += 1
        while state.phase == "bid1":
            seat: int = state.turn  # type: ignore[assignment]
            obs = state.observation(seat)
            up, hand = obs["upcard"], obs["hand"]
            judge = mc._judge(24, up[1])
            if seat == state.dealer:
                v = judge.bid_value([*hand, up])
            else:
                v = judge.bid_value(hand) - 0.25
            assert len(unseen(obs).cards) == 18
            call = bot._bid1(obs) == "order"  # type: ignore[attr-defined]
            margins.append(v - mc.bid_bar(state.rules, state.scores, seat))
            calls.append(call)
            state.apply("pass")
    return margins, calls


def _loglik(margins: list[float], calls: list[bool], scale: float) -> float:
    total = 0.0
    for m, c in zip(margins, calls, strict=True):
        p = 1.0 / (1.0 + math.exp(-m / scale))
        total += math.log(max(1e-12, p if c else 1.0 - p))
    return total


if __name__ == "__main__":
    sys.exit(main())
