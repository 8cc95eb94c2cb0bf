"""Rating over time: the standings of :mod:`arena.stats` on growing prefixes of a
tournament's matches, in the order they finished."""

from __future__ import annotations

from collections import defaultdict

from arena import stats
from arena.site.data import BotRef
from arena.stats.outcomes import MatchRow
from arena.stats.vocabulary import unit_key
from arena.store import Store

CHECKPOINTS = 16
"""At most this many points per line: enough for a smooth line, few refits."""


def rating_history(
    store: Store, tournament_id: str, refs: dict[int, BotRef]
) -> list[tuple[str, list[tuple[float, float, float, float]]]]:
    """``(bot name, [(matches played, rating, rating, rating), ...])`` per bot, best last fit
    first. Each point is the rating :func:`arena.stats.compute` gives on the matches
    finished so far (same scale and centring as the leaderboard); a bot has no point where
    it had no rating yet (no result linking it to the rated bots, or only a one-sided bound)."""
    seats: dict[str, list[tuple[int, int]]] = defaultdict(list)
    unit: dict[str, str] = {}
    for r in store.seats_in_finish_order(tournament_id):
        unit.setdefault(r.match_id, unit_key(r.set_key, r.round))
        seats[r.match_id].append((r.bot_version_id, r.place))
    rows: list[MatchRow] = [
        (unit[mid], a, b, c, pa, pb, pc)
        for mid, ((a, pa), (b, pb), (c, pc)) in ((m, t) for m, t in seats.items() if len(t) == 3)
        if {a, b, c} <= set(refs)
    ]
    bots = sorted({b for r in rows for b in r[1:4]})
    if len(bots) < 2 or not rows:
        return []
    names = {b: refs[b].name for b in bots}
    step = max(1, -(-len(rows) // CHECKPOINTS))
    cuts = sorted({*range(step, len(rows), step), len(rows)})
    points: dict[int, list[tuple[float, float, float, float]]] = {b: [] for b in bots}
    for cut in cuts:
        outcomes = stats.Outcomes.build(bots, rows[:cut], {})
        for s in stats.compute(outcomes, names):
            if s.rating is not None:
                points[s.bot].append((float(cut), s.rating, s.rating, s.rating))
    final = {b: p[-1][1] if p else float("-inf") for b, p in points.items()}
    ranked = sorted(bots, key=lambda b: -final[b])
    return [(names[b], points[b]) for b in ranked if points[b]]
