"""bench/ladder_scores.py and ``bench/ladder_information.py --db``: the score model recovers
known strengths with intervals that hold them, the quick run prints both estimators side by
side, and a real ladder's database is measured (design effect, evidence per set)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from bench_support import BENCH, run_bench

sys.path.insert(0, str(BENCH))

from ladder_model import World, play_set_scored, random_triples  # noqa: E402
from ladder_scores import ScoreRatings  # noqa: E402


def test_the_scores_are_the_performances_whose_order_is_the_places() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        places, perf = play_set_scored(np.array([0.5, 0.0, -0.5]), rng, World(bot_luck=0.3))
        for match, scores in zip(places, perf, strict=True):
            order = np.argsort(-scores)
            # The best score placed first, the worst last (a shared place may join them).
            assert match[order[0]] == 1 and match[order[2]] >= match[order[1]] >= 1


def test_the_score_model_recovers_known_strengths_with_honest_intervals() -> None:
    truth = np.linspace(-1.5, 1.5, 10)
    rng = np.random.default_rng(7)
    held = shown = 0
    for _ in range(4):
        model = ScoreRatings(10)
        for _ in range(300):
            bots = tuple(int(b) for b in rng.choice(10, 3, replace=False))
            _, perf = play_set_scored(truth[list(bots)], rng, World(bot_luck=0.3))
            model.add(bots, perf)  # type: ignore[arg-type]
        est, half, w = model.intervals()
        assert np.corrcoef(est, truth)[0, 1] > 0.97
        assert abs(np.polyfit(truth, est, 1)[0] - 1) < 0.1  # on the places' scale: logits
        true = truth - w @ truth
        held += int((np.abs(est - true) <= half).sum())
        shown += len(truth)
    assert held >= 0.85 * shown  # 95 % intervals: 40 checks, correlated within a run
    assert callable(random_triples)


@pytest.mark.slow
def test_the_quick_run_prints_places_and_scores_side_by_side() -> None:
    result = run_bench("ladder_scores.py", "--quick")
    assert result.returncode == 0, result.stderr
    for name in ("ladder", "random triples"):
        for label in ("places", "scores"):
            line = rf"^n=12 +{name} +{label} +tau>=0.95: +(> )?\d+ +tau at 240: [\d.]+"
            assert re.search(line + r" +coverage: [\d.]+ \(\d+\)$", result.stdout, re.M)
    bad = run_bench("ladder_scores.py", "--schedules", "oracle")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "error:" in bad.stderr


@pytest.mark.slow
def test_a_real_ladders_sets_are_measured(tmp_path: Path) -> None:
    import variants as made

    from arena import Arena, LadderSettings
    from arena.store import Store

    db = tmp_path / "ladder.db"
    with Store(db) as store:  # two cheap variants beside the bundled bots, as a library call
        for v in made.variants(6, seed=2):
            if v.family == "heuristic":
                store.add_bot_version(v.name, v.source, v.filename)
    with Arena(db, workers=1) as arena:
        arena.ladder(["random", "heuristic"], settings=LadderSettings(seed=2, max_sets=14))
    result = run_bench("ladder_information.py", "--db", str(db))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert re.search(r"whole sets, \d+ bots$", out.splitlines()[0])
    effect = re.search(r"plain sandwich mean ([\d.]+), median [\d.]+; jackknife mean ([\d.]+)", out)
    assert effect is not None and 0 < float(effect.group(1)) and 0 < float(effect.group(2))
    for label in ("places", "points", "hands won"):
        assert re.search(
            rf"^{label} +split halves \(20\): r = -?[\d.]+.*intervals agree \d+/\d+", out, re.M
        )
    empty = run_bench("ladder_information.py", "--db", str(tmp_path / "none.db"))
    assert empty.returncode != 0 and "error" in empty.stderr
