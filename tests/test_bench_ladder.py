"""bench/ladder.py: the quick run prints a line per schedule and measure, the ladder's rule
keeps its wait bound in it, and a bad argument is one error line."""

from __future__ import annotations

import re

from bench_support import run_bench


def test_the_quick_run_measures_every_schedule() -> None:
    result = run_bench("ladder.py", "--quick")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for name in ("ladder", "random triples", "neighbours", "round robin"):
        assert re.search(rf"^cold n=12 +{name} +top10: +(> )?\d+", out, re.M), name
    for name in ("ladder", "random pairs", "neighbours", "truth oracle"):
        assert re.search(rf"^new  n=12 +{name} +sets to \+-50", out, re.M), name
    # How far the ladder's newcomers really are, against the spread their intervals claim.
    err = re.search(
        r"^err  n=12 +ladder +after 12 sets: rms error (\d+) points, shown sd (\d+)", out, re.M
    )
    assert err is not None and int(err.group(1)) > 0 and int(err.group(2)) > 0
    # A new bot plays at the very next step under the ladder's rule.
    assert re.search(r"^new  n=12 +ladder .*sets before its first: max 0 ", out, re.M)
    # Its wait bound at 12 bots is 12 sets; the coverage is a rate.
    wait = re.search(r"^cold n=12 +ladder .*max wait: +(\d+) .*coverage: ([\d.]+)", out, re.M)
    assert wait is not None and int(wait.group(1)) <= 12 and 0 < float(wait.group(2)) <= 1
    assert re.search(r"^cost n=12 +pick: median [\d.]+ ms.*triples scored median \d+", out, re.M)


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
    from ladder import warmed
    from ladder_model import World

    def widths(warm: int) -> float:
        lad, _ = warmed(12, warm * 12, 1, World(), 1.5)
        lines = [s for s in lad.ratings.standings() if s.low is not None and s.high is not None]
        return sum(s.high - s.low for s in lines) / len(lines)

    assert widths(40) < 0.75 * widths(10)
    result = run_bench("ladder.py", "--quick", "--warm", "3")
    assert result.returncode == 0, result.stderr
    assert "warm=3" in result.stdout.splitlines()[0]
