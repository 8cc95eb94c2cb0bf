"""bench/site_scale.py: the quick run builds two ladder databases and prints a line of
measurements for each; a bad argument is one error line."""

from __future__ import annotations

import re

from bench_support import run_bench


def test_the_quick_run_measures_every_size() -> None:
    result = run_bench("site_scale.py", "--quick")
    assert result.returncode == 0, result.stderr
    rows = re.findall(
        r"^ +(\d+) matches +build .* full render +[\d.]+ s +(\d+) files +[\d.]+ MB +one more "
        r"set +[\d.]+ s \((\d+) pages written\) +nothing new +[\d.]+ s +old replay served "
        r"+[\d.]+ ms +\[every replay: +[\d.]+ s, (\d+) files",
        result.stdout,
        re.M,
    )
    assert [int(r[0]) for r in rows] == [132, 612]
    for _, files, written, _ in rows:
        # One set rewrites its six replays, its bots and the pages about the whole ladder,
        # never the whole site; the bounded site has fewer files than one with every replay.
        assert 6 < int(written) < int(files)
    assert int(rows[1][1]) < int(rows[1][3])


def test_bad_sizes_are_one_error_line() -> None:
    result = run_bench("site_scale.py", "--sizes", "1000,many")
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "--sizes" in result.stderr
