"""What one duplicate set really tells about a bot's rating, in the bench's worlds: the
square of the model's information over the variance of the set's score (the information
of a set were its matches what the model assumes them to be, and what its scatter allows).

Usage: ``python bench/ladder_information.py [--sets S] [--seed N]``, or ``--db FILE`` (below).
For each placement of
a bot's two partners (logits from it) and each world (seat luck only, which duplicate play
cancels; and seat luck with a bot-by-deal effect, ``bot_luck``), ``S`` simulated sets of
the three at their true strengths: the model's information about the bot's log-strength
per set, and the information the sets' scatter allows, ``info² / var(score)``. Their
ratio is the design effect of the set (above 1: the set tells less than the model counts).
Beside it, what the set's **scores** tell (each bot's performance in each match, of which the
places are the order; ``ladder_model.play_set_scored``): the mean score of the bot less the
mean of the three moves by ``2/3`` per logit of its strength, so a set's score tells
``(2/3)² / var`` about it.

``--db FILE`` measures a real ladder's database instead (``bench/ladder_db.py``): the design
effect of its stored sets, and what their places, points and hands won tell per set.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder_model import World, play_set_scored  # noqa: E402

from arena.ladder.ratings import set_choices  # noqa: E402
from arena.stats.plackett_luce import Choices, gradient_hessian  # noqa: E402

PARTNERS = ((0.0, 0.0), (0.3, -0.3), (1.0, -1.0), (0.5, 0.5), (1.0, 1.0))


def per_set(theta: np.ndarray, world: World, sets: int, seed: int) -> tuple[float, float, float]:
    """The bot's (slot 0's) model information per set, the variance of the sets' score (the
    gradient), and what its scores tell about it per set."""
    rng = np.random.default_rng(seed)
    scores, infos, margins = [], [], []
    for _ in range(sets):
        places, perf = play_set_scored(theta, rng, world)
        mean = perf.mean(axis=0)
        margins.append(mean[0] - mean.mean())
        counted = set_choices(places)
        members = np.asarray(list(counted), dtype=np.int64)
        choices = Choices(members, np.asarray(list(counted.values())))
        grad, hess = gradient_hessian(choices, theta)
        scores.append(grad[0])
        infos.append(-hess[0, 0])
    return float(np.mean(infos)), float(np.var(scores)), (2 / 3) ** 2 / float(np.var(margins))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=3000, help="sets per placement and world")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bot-luck", type=float, default=0.6, help="the harder world's bot_luck")
    ap.add_argument("--db", type=Path, help="measure this real ladder's database instead")
    args = ap.parse_args(argv)
    if args.db is not None:
        from ladder_db import report

        return report(args.db)
    worlds = (
        ("seat luck only", World()),
        (f"bot_luck {args.bot_luck}", World(bot_luck=args.bot_luck)),
    )
    print(f"# bench/ladder_information.py sets={args.sets} seed={args.seed}")
    for up, down in PARTNERS:
        theta = np.array([0.0, up, down])
        cells = []
        for name, world in worlds:
            info, var, told = per_set(theta, world, args.sets, args.seed)
            cells.append(
                f"{name}: model {info:.2f}, tells {info * info / var:.2f}"
                f" (design effect {var / info:.2f}), scores tell {told:.2f}"
            )
        print(f"partners ({up:+.1f}, {down:+.1f})  " + "  ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
