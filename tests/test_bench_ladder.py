"""bench/ladder.py: the quick run prints a line per schedule and measure, the ladder's rule
keeps its wait bound in it, and a bad argument is one error line."""

from __future__ import annotations

import re

import pytest
from bench_support import run_bench


def test_the_quick_run_measures_every_schedule() -> None:
    result = run_bench("ladder.py", "--quick")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for layout in ("random", "spaced"):
        for name in ("ladder", "random triples", "neighbours", "match quality", "truth oracle"):
            line = rf"^cold n=12 +{layout} {name} +top10: +(> )?\d+ +stays: +(> )?\d+"
            assert re.search(line + r" +tau>=0.95: +(> )?\d+", out, re.M), (layout, name)
        for name in ("ladder", "random pairs", "neighbours", "match quality", "truth oracle"):
            # The newcomer's true error, shown half-width and held count at its 5th to 40th set.
            cells = r".*5: \d+/\d+/\d+  10: \d+/\d+/\d+  20: \d+/\d+/\d+  40: \d+/\d+/\d+$"
            assert re.search(rf"^new  n=12 +{layout} {name} +sets to \+-50{cells}", out, re.M)
        # A new bot plays at the very next step under the ladder's rule.
        assert re.search(rf"^new  n=12 +{layout} ladder .*sets before its first: max 0 ", out, re.M)
        # Its wait bound at 12 bots is 12 sets; the coverage is a rate.
        wait = re.search(
            rf"^cold n=12 +{layout} ladder .*max wait: +(\d+) .*coverage: ([\d.]+)", out, re.M
        )
        assert wait is not None and int(wait.group(1)) <= 12 and 0 < float(wait.group(2)) <= 1
    assert "bot_luck=0.3" in out.splitlines()[0]  # the harder world by default
    assert re.search(r"^cost n=12 +pick: median [\d.]+ ms.*triples scored median \d+", out, re.M)


def test_match_quality_is_trueskills_draw_chance() -> None:
    """1 for three bots known to be equal; lower for a spread or an uncertainty; the same
    whatever the order of the three."""
    import sys

    import numpy as np
    from bench_support import BENCH

    sys.path.insert(0, str(BENCH))
    from ladder_model import quality

    mu = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, -0.5], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    var = np.zeros((4, 3))
    q = quality(mu, var)
    assert q[0] == pytest.approx(1.0) and 1 > q[1] > q[2] and q[3] == pytest.approx(q[2])
    assert quality(mu[:1], np.ones((1, 3)))[0] < 1
    # Known strengths (no variance): exp(-dᵀM⁻¹d / 2), d the successive differences,
    # M = b²AᵀA with b the sd of a Gumbel performance.
    m = (np.pi**2 / 6) * np.array([[2.0, -1.0], [-1.0, 2.0]])
    d = np.array([0.5, 0.5])
    assert abs(q[1] - np.exp(-d @ np.linalg.solve(m, d) / 2)) < 1e-12


def test_the_bot_by_deal_effect_survives_duplicate_play() -> None:
    """With ``bot_luck`` a bot's six places in a set move together (its mean place varies
    more from set to set than with seat luck alone, which duplicate play cancels), while
    each match stays exactly Plackett-Luce: equal bots still win a third of the matches."""
    import sys

    import numpy as np
    from bench_support import BENCH

    sys.path.insert(0, str(BENCH))
    from ladder_model import World, play_set

    def spread(bot_luck: float) -> tuple[float, float]:
        rng = np.random.default_rng(1)
        sets = [play_set(np.zeros(3), rng, World(bot_luck=bot_luck)) for _ in range(3000)]
        means = [np.mean([p[0] for p in s]) for s in sets]
        wins = np.mean([p[0] == 1 for s in sets for p in s])
        return float(np.var(means)), float(wins)

    cancelled, won = spread(0.0)
    kept, won_too = spread(0.6)
    assert kept > 2 * cancelled
    assert abs(won - 0.345) < 0.02 and abs(won_too - 0.345) < 0.02  # a third, plus shared firsts


def test_bad_sizes_are_one_error_line() -> None:
    result = run_bench("ladder.py", "--sizes", "30,many")
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "--sizes" in result.stderr
    assert result.stdout == ""


def test_the_simulated_ties_are_shared_places_of_close_performances() -> None:
    """Equal bots share first place about 3 % and second about 8 % of the time (the gaps'
    closed form), and a bot far stronger than the others almost never shares first."""
    import sys

    import numpy as np
    from bench_support import BENCH

    sys.path.insert(0, str(BENCH))
    from ladder_model import World, play_set

    rng = np.random.default_rng(0)
    equal = [p for _ in range(4000) for p in play_set(np.zeros(3), rng, World())]
    first = sum(sorted(p)[:2] == [1, 1] for p in equal) / len(equal)
    second = sum(sorted(p)[1:] == [2, 2] for p in equal) / len(equal)
    assert abs(first - 0.03) < 0.006 and abs(second - 0.08 * (1 - first)) < 0.01
    apart = [p for _ in range(2000) for p in play_set(np.array([4.0, 0.0, 0.0]), rng, World())]
    assert sum(p[0] == 1 and 1 in p[1:] for p in apart) / len(apart) < 0.005


def test_the_truth_oracle_puts_the_newcomer_between_its_nearest_bots() -> None:
    """The oracle's newcomer plays between a bot just above and one just below it in true
    strength, taking the two nearest on each side in turn; past the end of the field, two
    from the one side."""
    import sys

    import numpy as np
    from bench_support import BENCH

    sys.path.insert(0, str(BENCH))
    from ladder_model import truth_bracketing

    from arena.ladder.policy import Ladder

    truth = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 2.5])
    lad = Ladder(seed=1)
    for b in range(7):
        lad.join(b)
    pick = truth_bracketing(6, truth)
    seen = set()
    for _ in range(4):
        triple = pick(lad, np.random.default_rng(0))
        lad.schedule(triple)
        assert triple[0] == 6 and triple[1] in (3, 4) and triple[2] in (2, 1)
        seen.add(triple[1:])
    assert seen == {(3, 2), (4, 2), (3, 1), (4, 1)}
    top = truth_bracketing(5, truth)(lad, np.random.default_rng(0))
    assert top[0] == 5 and set(top[1:]) == {4, 3}


def test_the_newcomers_field_is_measured_as_long_as_asked() -> None:
    """``--warm`` sets how many random sets measure the field before the newcomer joins: a
    field measured four times longer shows narrower intervals of its own bots."""
    import sys

    from bench_support import BENCH

    sys.path.insert(0, str(BENCH))
    from ladder import Setup, warmed
    from ladder_model import World

    def widths(warm: int) -> float:
        lad, _ = warmed(12, warm * 12, 1, Setup(World()))
        lines = [s for s in lad.ratings.standings() if s.low is not None and s.high is not None]
        return sum(s.high - s.low for s in lines) / len(lines)

    assert widths(40) < 0.75 * widths(10)
    result = run_bench("ladder.py", "--quick", "--warm", "3")
    assert result.returncode == 0, result.stderr
    assert "warm=3" in result.stdout.splitlines()[0]
