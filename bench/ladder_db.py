"""What a real ladder's stored sets told (``python bench/ladder_information.py --db FILE``).

Read-only on the database (``Store(db, create=False)``; the hands' points by a read-only
SQLite connection). Every finished set of the latest ladder with its six matches:

- **The design effect** of its sets: the places rated by :class:`arena.ladder.LadderRatings`
  (a full fit), and for each bot with two sets or more the cluster-robust variance of its
  rating against the centre (the sandwich over sets) over the model's variance (the inverse
  of the information the model counts, every match independent). Below 1: a set told more
  than the model counts; above 1: less. The plain (CR1) sandwich and its jackknife form
  (what the ladder's table shows) are both given.
- **What places, points and hands won tell per set**, scale-free: for every pair of bots the
  squared z of their difference (its estimate over its cluster-robust standard error) grows
  in proportion to the sets; each kind of evidence rated on the very same sets, the sum of
  the pairs' z² of one kind over the places' is how many sets of places a set of it is worth.
  Points are each bot's final score in each match and hands won the hands in which it scored,
  both rated by the linear duplicate-score model of ``bench/ladder_scores.py``; places by the
  ladder's Plackett-Luce model.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
from ladder_scores import ScoreRatings

from arena.errors import ArenaError
from arena.ladder import LadderRatings, SetResult
from arena.stats import intervals as ivals
from arena.store import Store
from arena.store.schema import LADDER

MATCHES = 6


def load(db: Path) -> tuple[str, list[tuple[tuple[int, int, int], np.ndarray]], dict[int, str]]:
    """The latest ladder's id, its whole finished sets (bots, and per match ``(6, 3, 3)``:
    places, points, hands won of ``bots[0..2]``), and the bots' names."""
    with Store(db, create=False) as store:
        try:
            found = store.tournament(prefer=LADDER)
        except ArenaError as err:
            raise SystemExit(f"error: {db}: {err}") from None
        if found.kind != LADDER:
            raise SystemExit(f"error: {db} holds no ladder")
        lid = found.id
        stored = [s for s in store.ladder_sets(lid) if s.finished_at is not None]
        matches = store.match_rows(tid=lid)
        names = {m.version_id: m.name for m in store.ladder_members(lid)}
    won = _hands_won(db, lid)
    by_set: dict[tuple[int, str], list] = {}
    for m in matches:
        if m.status == "finished" and not m.faults:
            by_set.setdefault((m.round, m.set_key), []).append(m)
    out = []
    for s in stored:
        rows = by_set.get((s.step, s.set_key), [])
        if len(rows) != MATCHES:
            continue
        cells = np.zeros((MATCHES, 3, 3))
        for i, m in enumerate(rows):
            seat = [m.bots.index(b) for b in s.bots]
            for k, j in enumerate(seat):
                cells[i, 0, k] = m.places[j]
                cells[i, 1, k] = m.scores[j]
                cells[i, 2, k] = won[m.id][j]
        out.append((tuple(s.bots), cells))
    return lid, out, names  # type: ignore[return-value]


def _hands_won(db: Path, lid: str) -> dict[str, list[int]]:
    """Per match, the hands in which each seat scored."""
    won: dict[str, list[int]] = {}
    uri = f"file:{db}?mode=ro"
    with sqlite3.connect(uri, uri=True) as con:
        rows = con.execute(
            "SELECT h.match_id, h.points FROM hands h JOIN matches m ON m.id = h.match_id"
            " WHERE m.tournament_id = ?",
            (lid,),
        )
        for match, points in rows:
            seats = won.setdefault(match, [0, 0, 0])
            for j, p in enumerate(json.loads(points)):
                seats[j] += p > 0
    return won


def design_effect(ratings: LadderRatings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per rated bot: the plain and the jackknife sandwich over the model's variance of its
    rating against the centre, and its sets."""
    ratings.refit()
    w = ratings.centre()
    cols = np.flatnonzero(ratings.sets >= ivals.MIN_UNITS)
    sw = ratings.cov @ w
    lever = ratings.cov[:, cols] - sw[:, None]
    model = ratings.cov[cols, cols] - 2 * sw[cols] + float(w @ sw)
    bots = ratings._set_bots.view
    g = ratings.set_count
    out = []
    for scores in (ratings._scores(), ratings._jackknife_scores()):
        u = sum(scores[:, k, None] * lever[bots[:, k]] for k in range(3))
        out.append(g / max(1, g - 1) * (np.asarray(u) ** 2).sum(axis=0) / model)
    return out[0], out[1], ratings.sets[cols]


def pair_z2(
    theta: np.ndarray, cov: np.ndarray, rated: np.ndarray, near: np.ndarray | None = None
) -> float:
    """The sum over pairs of rated bots (and, with ``near``, only the pairs it marks) of the
    squared z of their difference."""
    idx = np.flatnonzero(rated)
    total = 0.0
    for a in range(len(idx)):
        for b in range(a + 1, len(idx)):
            i, j = idx[a], idx[b]
            if near is not None and not near[i, j]:
                continue
            var = cov[i, i] + cov[j, j] - 2 * cov[i, j]
            total += (theta[i] - theta[j]) ** 2 / var if var > 0 else 0.0
    return total


def places_fit(
    sets: list, index: dict[int, int], jackknife: bool = False
) -> tuple[LadderRatings, np.ndarray, np.ndarray]:
    """The places' ratings of ``sets`` (bots as indices), their estimate and robust covariance
    (the plain sandwich, or its jackknife form as the ladder's table shows it)."""
    r = LadderRatings()
    r.add_bots(list(range(len(index))))
    for bots, cells in sets:
        places = tuple(tuple(int(x) for x in row) for row in cells[:, 0, :])
        r.add_set(SetResult(tuple(index[b] for b in bots), places))  # type: ignore[arg-type]
    r.refit()
    scores = r._jackknife_scores() if jackknife else r._scores()
    bots = r._set_bots.view
    meat = np.zeros((r.n, r.n))
    np.add.at(meat, (bots[:, :, None], bots[:, None, :]), scores[:, :, None] * scores[:, None, :])
    return r, r.theta, r.cov @ meat @ r.cov


def _fit(kind: int, sets: list, index: dict[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimates, jackknife robust covariance and sets per bot of one kind of evidence."""
    if kind == 0:
        r, theta, cov = places_fit(sets, index, jackknife=True)
        return theta, cov, r.sets
    s = ScoreRatings(len(index))
    for b, cells in sets:
        s.add(tuple(index[x] for x in b), cells[:, kind, :])  # type: ignore[arg-type]
    theta, cov = s.fit()
    return theta, cov, s.sets


def split_halves(
    sets: list, index: dict[int, int], splits: int, middle: np.ndarray, seed: int = 1
) -> list[str]:
    """Each kind of evidence fitted on two random halves of the sets, ``splits`` times: the
    correlation of the two halves' estimates (its reliability; ``r / (1 - r)`` grows in
    proportion to the sets, so its ratio to the places' is what a set of it is worth), and how
    often the two intervals of a bot (shown as the ladder shows them) overlap enough to agree:
    the difference within ``sqrt(h1² + h2²)``, 0.95 were both honest. The correlation is
    also taken over the ``middle`` bots only (those near the centre of the field): over all,
    a far end (a random bot five logits down) makes any two halves agree."""
    rng = np.random.default_rng(seed)
    lines, ratio0, ratio_mid = [], 0.0, 0.0
    for kind, label in enumerate(("places", "points", "hands won")):
        rs, mid, agree, checked = [], [], 0, 0
        for _ in range(splits):
            perm = rng.permutation(len(sets))
            half = len(sets) // 2
            fits = [
                _fit(kind, [sets[i] for i in part], index) for part in (perm[:half], perm[half:])
            ]
            both = (fits[0][2] >= ivals.MIN_UNITS) & (fits[1][2] >= ivals.MIN_UNITS)
            est, hw = [], []
            for theta, cov, count in fits:
                w = both / both.sum()
                c = np.eye(len(theta)) - w[None, :]
                var = np.einsum("ij,jk,ik->i", c, cov, c)
                q = np.asarray([ivals.t_quantile(float(max(k, 2) - 1)) for k in count])
                est.append((theta - w @ theta)[both])
                hw.append((q * np.sqrt(np.maximum(var, 0)))[both])
            rs.append(float(np.corrcoef(est[0], est[1])[0, 1]))
            inner = middle[both]
            mid.append(float(np.corrcoef(est[0][inner], est[1][inner])[0, 1]))
            agree += int((np.abs(est[0] - est[1]) <= np.hypot(hw[0], hw[1])).sum())
            checked += int(both.sum())
        r, rm = float(np.mean(rs)), float(np.mean(mid))
        odds, odds_mid = r / (1 - r), rm / (1 - rm)
        ratio0 = ratio0 or odds
        ratio_mid = ratio_mid or odds_mid
        lines.append(
            f"{label:<9} split halves ({splits}): r = {r:.3f}, worth {odds / ratio0:.2f} sets of"
            f" places; the {int(middle.sum())} middle bots: r = {rm:.3f}, worth"
            f" {odds_mid / ratio_mid:.2f}; intervals agree {agree}/{checked}"
            f" = {agree / max(1, checked):.3f}"
        )
    return lines


def report(db: Path, splits: int = 20) -> int:
    """Print the design effect and the evidence per set of the ladder in ``db``."""
    lid, sets, names = load(db)
    if len(sets) < 10:
        raise SystemExit(f"error: {db}: {len(sets)} whole sets, too few to measure (10 at least)")
    bots = sorted({b for s, _ in sets for b in s})
    index = {b: i for i, b in enumerate(bots)}
    print(f"# bench/ladder_information.py --db {db}: ladder {lid}, {len(sets)} whole sets,"
          f" {len(bots)} bots")  # fmt: skip
    ratings, theta, cov = places_fit(sets, index)
    plain, jack, counts = design_effect(ratings)
    print(
        f"design effect (robust / model variance of a rating against the centre, {len(counts)}"
        f" bots, {int(np.median(counts))} sets a bot median): plain sandwich mean"
        f" {plain.mean():.2f}, median {np.median(plain):.2f}; jackknife mean {jack.mean():.2f},"
        f" median {np.median(jack):.2f}"
    )
    rated = ratings.sets >= ivals.MIN_UNITS
    # Pairs within one logit (174 rating points) by their places: where the order is in
    # question; far apart, places saturate (a bot that always loses) while points go on.
    near = np.abs(theta[:, None] - theta[None, :]) < 1.0
    base, base_near = pair_z2(theta, cov, rated), pair_z2(theta, cov, rated, near)
    print(
        f"places    pairs' z2 per set: all {base / len(sets):.2f}, within one logit"
        f" {base_near / len(sets):.2f} ({int(np.triu(near & rated[:, None] & rated, 1).sum())}"
        " pairs)"
    )
    for label, k in (("points", 1), ("hands won", 2)):
        s = ScoreRatings(len(bots))
        for b, cells in sets:
            s.add(tuple(index[x] for x in b), cells[:, k, :])  # type: ignore[arg-type]
        th, cv = s.fit(jackknife=False)
        z2, z2_near = pair_z2(th, cv, rated), pair_z2(th, cv, rated, near)
        corr = float(np.corrcoef(th[rated], theta[rated])[0, 1])
        print(
            f"{label:<9} pairs' z2 per set: all {z2 / len(sets):.2f} ({z2 / base:.2f} x places'),"
            f" within one logit {z2_near / len(sets):.2f} ({z2_near / base_near:.2f} x);"
            f" its order against the places': r = {corr:.2f}"
        )
    middle = np.abs(theta - np.median(theta)) < 1.5  # the field without its far ends
    for line in split_halves(sets, index, splits, middle):
        print(line, flush=True)
    return 0
