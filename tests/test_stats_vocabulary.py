"""The statistics' one vocabulary: one level, one interval type, one rate interval, one unit."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from arena.stats import betting, duplicate, intervals, sequential, standings
from arena.stats.vocabulary import (
    LEVEL,
    MIN_UNITS,
    Interval,
    rate_interval,
    rate_variance,
    unit_key,
    unit_round,
    wilson,
    z_quantile,
)

STATS = Path(__file__).resolve().parents[1] / "arena" / "stats"


def _assigned_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def test_the_level_and_the_rate_interval_are_defined_once() -> None:
    defining = {
        p.name: sorted(n for n in _assigned_names(p) if "LEVEL" in n or n.startswith("_Z"))
        for p in STATS.glob("*.py")
    }
    assert {k: v for k, v in defining.items() if v} == {"vocabulary.py": ["LEVEL"]}
    functions = [
        p.name
        for p in STATS.glob("*.py")
        for node in ast.parse(p.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef) and node.name == "rate_interval"
    ]
    assert functions == ["vocabulary.py"]


def test_the_statistics_read_no_database_and_start_no_process() -> None:
    banned = {"sqlite3", "sqlite_utils", "subprocess", "multiprocessing", "arena.store"}
    for path in STATS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found = {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                found = {node.module or ""}
            else:
                continue
            assert not {f for f in found if f.split(".")[0] in banned or f in banned}, path.name


def test_an_interval_knows_where_it_lies() -> None:
    i = Interval(0.55, 0.7)
    assert i.level == LEVEL == 0.95
    assert i.above(0.5) and i.excludes(0.5) and not i.below(0.5) and not i.contains(0.5)
    assert i.contains(0.55) and i.contains(0.7) and not i.excludes(0.6)
    assert i.width == pytest.approx(0.15)
    flipped = i.complement()
    assert (flipped.low, flipped.high) == pytest.approx((0.3, 0.45)) and flipped.below(0.5)
    assert i.map(lambda x: 2 * x) == Interval(1.1, 1.4)
    assert Interval(0.123456, 0.654321).rounded(3) == [0.123, 0.654]
    with pytest.raises(ValueError, match="above its high end"):
        Interval(0.7, 0.6)


def test_a_unit_is_named_by_its_set_and_round() -> None:
    assert unit_key("1,2,5", 7) == "1,2,5/7"
    assert unit_round(unit_key("1,2,5", 7)) == 7


def test_the_rate_interval_is_wilson_on_effective_matches() -> None:
    # Independent matches (every unit scores its expected share): the effective number of
    # matches is the number of matches, shrunk by (z/t)^2 for the few units.
    above = np.array([3.0, 4.0, 2.0, 3.0, 3.0, 3.0, 4.0, 2.0, 3.0, 3.0])
    together = np.full(10, 6.0)
    rate, variance, units = rate_variance(above, together)
    assert rate == 0.5 and units == 10 and variance is not None
    got = rate_interval(rate, variance, units, 60.0, 1.0)
    assert got is not None and got.level == LEVEL and got.contains(0.5)
    n_eff = rate * (1 - rate) / variance * (z_quantile() / intervals.t_quantile(9)) ** 2
    assert (got.low, got.high) == pytest.approx(wilson(rate, n_eff, z_quantile()))
    assert rate_interval(rate, variance, MIN_UNITS - 1, 6.0, 1.0) is None
    wider = rate_interval(rate, variance, units, 60.0, 1.0, level=0.99)
    assert wider is not None and wider.level == 0.99 and wider.width > got.width


def test_every_statistic_reports_the_one_interval_type() -> None:
    assert isinstance(intervals.contrast_interval(0.0, 0.04, 9), Interval)
    mean = duplicate.cluster_mean([1.0, 2.0, 4.0], [1.0, 1.0, 1.0])
    assert isinstance(mean.interval, Interval) and mean.units == 3
    assert (mean.low, mean.high) == (mean.interval.low, mean.interval.high)
    g = betting.Gamblers(0.5, 0.55)
    for x in (1.0, 0.75, 1.0):
        g.add(x)
    shown = g.interval()
    assert isinstance(shown, Interval) and shown.level == pytest.approx(0.9)
    counts = np.bincount([6, 7, 8, 9, 6], minlength=sequential.HALF_POINTS + 1)
    fixed = sequential.empirical_likelihood_interval(counts)
    assert isinstance(fixed, Interval) and fixed.level == LEVEL and fixed.contains(36 / 60)
    pair = standings.Pair(matches=12, above=9.0, units=2, low=0.5, high=0.9)
    assert pair.interval == Interval(0.5, 0.9) and standings.Pair(6, 3.0, 1).interval is None
    rated = standings.BotStanding(1, "a", rating=1500.0, rating_low=1400.0, rating_high=1600.0)
    bounded = standings.BotStanding(2, "b", rating_high=1300.0, bound="upper")
    assert rated.interval == Interval(1400.0, 1600.0) and bounded.interval is None
    assert not math.isnan(shown.width)
