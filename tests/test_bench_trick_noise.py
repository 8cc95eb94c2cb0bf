"""bench/fit_trick_noise.py: the trick table and its residuals by kind of hand add up, and a
broken bot file is one error line before any worker starts."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from bench_support import BENCH, run_bench

sys.path.insert(0, str(BENCH))

import fit_trick_noise  # noqa: E402


def test_residuals_are_measured_against_the_whole_table() -> None:
    # Solver says 3 every time; one kind of hand takes 3, the other 4: the table expects 3.5.
    rows = [(3, 3, "a")] * 10 + [(3, 4, "b")] * 10 + [(5, 5, "a")] * 4
    found = fit_trick_noise.residuals(rows)
    assert found["a"][0] == 14 and found["b"][0] == 10
    assert found["a"][1] == pytest.approx(-0.5 * 10 / 14)
    assert found["b"][1] == pytest.approx(0.5)
    assert found["b"][2] == 0.0  # every "b" hand alike: no spread
    # The count-weighted residuals of all groups cancel: the table fits on average.
    assert sum(n * mean for n, mean, _ in found.values()) == pytest.approx(0.0)


def test_a_solver_number_never_seen_expects_itself() -> None:
    assert fit_trick_noise.fitted([(2, 3), (2, 1), (4, 5)]) == [0.0, 1.0, 2.0, 3.0, 5.0, 5.0]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_run_prints_tables_whose_residual_groups_cover_its_hands(workers: str) -> None:
    result = run_bench(
        "fit_trick_noise.py",
        "heuristic",
        "random_bot",
        "heuristic",
        "--seeds",
        "2",
        "--workers",
        workers,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    first_table = out.split("# another player")[0]
    made = sum(int(n) for n in re.findall(r"\),  # (\d+) hands", first_table))
    assert made > 10
    sections = out.split("real minus expected tricks by ")[1:]
    assert [s.splitlines()[0] for s in sections] == ["trumps held", "seat from the dealer's left"]
    for section in sections:
        groups = re.findall(r"#   (\d): ([+-]\d\.\d\d) \[.*\]  \((\d+) hands\)", section)
        assert sum(int(n) for _, _, n in groups) == made
        assert sum(int(n) * float(m) for _, m, n in groups) == pytest.approx(0.0, abs=0.01 * made)
    trumps = sections[0].split("# heuristic as the maker")[0]
    assert {int(k) for k, _, _ in re.findall(r"#   (\d): (\S+) .*\((\d+)", trumps)} <= set(range(6))
    seats = {int(k) for k, _, _ in re.findall(r"#   (\d): (\S+) .*\((\d+)", sections[1])}
    assert seats <= {1, 2, 3} and len(seats) >= 2


def test_a_broken_bot_file_is_one_error_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_here\n")
    result = run_bench(
        "fit_trick_noise.py",
        str(broken),
        "heuristic",
        "heuristic",
        "--seeds",
        "1",
        "--workers",
        "2",
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {broken}: ModuleNotFoundError: No module named 'no_such_module_here'"
    ]
