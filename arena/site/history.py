"""Rating over time: the Plackett-Luce fit of :mod:`arena.ratings` on growing prefixes of a
tournament's matches, in the order they finished."""

from __future__ import annotations

from collections import defaultdict

import sqlite_utils

from arena import ratings
from arena.site.data import BotRef

CHECKPOINTS = 16
"""At most this many points per line: enough for a smooth line, few refits."""


def rating_history(
    db: sqlite_utils.Database, tournament_id: str, refs: dict[int, BotRef]
) -> list[tuple[str, list[tuple[float, float, float, float]]]]:
    """``(bot name, [(matches played, rating, rating, rating), ...])`` per bot, best last fit
    first. Ratings use the same scale and fit as the leaderboard (no intervals: bootstrapping
    every prefix would cost far more than the chart is worth)."""
    by_match: dict[str, list[tuple[int, int]]] = defaultdict(list)
    order: list[str] = []
    for r in db.query(
        """SELECT s.match_id, s.bot_version_id, s.place
           FROM match_seats s JOIN matches m ON m.id = s.match_id
           WHERE s.tournament_id = ?
           ORDER BY m.finished_at, m.round, m.set_key, m.seating, s.seat""",
        [tournament_id],
    ):
        if r["match_id"] not in by_match:
            order.append(r["match_id"])
        by_match[r["match_id"]].append((r["bot_version_id"], r["place"]))
    bots = sorted({b for seats in by_match.values() for b, _ in seats if b in refs})
    if len(bots) < 2 or not order:
        return []
    index = {b: i for i, b in enumerate(bots)}
    step = max(1, -(-len(order) // CHECKPOINTS))
    cuts = sorted({*range(step, len(order), step), len(order)})
    points: dict[int, list[tuple[float, float, float, float]]] = {b: [] for b in bots}
    choices: list[tuple[int, tuple[int, ...]]] = []
    done = 0
    for cut in cuts:
        for mid in order[done:cut]:
            items = [(index[b], p) for b, p in by_match[mid] if b in index]
            choices.extend(ratings.top1_choices(items))
        done = cut
        theta = ratings.fit(len(bots), choices)
        for b in bots:
            y = ratings.BASE + ratings.ELO_SCALE * float(theta[index[b]])
            points[b].append((float(cut), y, y, y))
    ranked = sorted(bots, key=lambda b: -points[b][-1][1])
    return [(refs[b].name, points[b]) for b in ranked]
