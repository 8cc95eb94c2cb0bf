"""bench/bid_calibration.py: the predictions it reads are the ones the bot decided by, its
table counts every gain, serial and parallel runs agree, and a bad first bot is one error
line."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from bench_support import BENCH, REPO, run_bench

sys.path.insert(0, str(BENCH))

import bid_calibration  # noqa: E402

# A quick Monte-Carlo bot for the tests, built on the bundled one as an author would.
SMALL = f"""
import importlib.util
spec = importlib.util.spec_from_file_location("mc", {str(REPO / "bots" / "montecarlo.py")!r})
MC = importlib.util.module_from_spec(spec)
spec.loader.exec_module(MC)

class Bot(MC.Bot):
    name = "small"

    def __init__(self, seed=None):
        super().__init__(seed, play_worlds=8, bid_worlds=8, min_worlds=8)
"""


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_bench("bid_calibration.py", *args, cwd=tmp_path)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bots") / "small.py"
    path.write_text(SMALL)
    return path


@pytest.fixture(scope="module")
def serial(small: Path) -> tuple[str, list[dict]]:
    out = small.parent / "serial.json"
    result = run(small.parent, str(small), "heuristic", "random_bot", "--seeds", "2",
                 "--workers", "1", "--json", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout, json.loads(out.read_text())


def test_the_bot_took_every_action_it_predicted_best(serial: tuple[str, list[dict]]) -> None:
    _, decisions = serial
    assert len(decisions) > 20
    assert {d["phase"] for d in decisions} >= {"bid1", "alone"}
    for d in decisions:
        assert d["no"] == bid_calibration.NO[d["phase"]] and d["no"] in d["legal"]
        assert len(d["predicted"]) == len(d["realized"]) == len(d["legal"]) >= 2
        best = max(range(len(d["legal"])), key=lambda k: (round(d["predicted"][k], 9),
                                                            d["legal"][k] == "pass"))  # fmt: skip
        assert d["chose"] == d["legal"][best]
        for v in (*d["predicted"], *d["realized"]):
            assert 0.0 <= v <= 2.0  # opponents finished above


def test_the_table_counts_every_gain_and_who_took_it(serial: tuple[str, list[dict]]) -> None:
    stdout, decisions = serial
    rows = re.findall(r"^(.+?)\s+(\d+)\s+([+-]\d\.\d+)\s+([+-]\d\.\d+) \[.*\]\s+(\d+)$",
                      stdout, re.M)  # fmt: skip
    gains = bid_calibration.gains(decisions)
    assert sum(int(r[1]) for r in rows) == len(gains)
    for label, n, predicted, _real, taken in rows:
        # montecarlo takes an action exactly when it predicts it better than passing
        assert int(taken) == (int(n) if float(predicted) > 0 else 0), label
    assert f"# {len(decisions)} decisions of small, 2 seeds x 6 seatings" in stdout
    per_phase = dict(re.findall(r"^\s*(\w+): (\d+) gains", stdout, re.M))
    assert int(per_phase.pop("all")) == len(gains) == sum(map(int, per_phase.values()))


def test_a_parallel_run_finds_the_same_decisions(small: Path, serial: tuple[str, list]) -> None:
    out = small.parent / "parallel.json"
    result = run(small.parent, str(small), "heuristic", "random_bot", "--seeds", "2",
                 "--workers", "2", "--json", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text()) == serial[1]


def test_binned_gains_and_slope() -> None:
    rows = [(-0.3, -0.2, False), (-0.25, -0.4, False), (0.01, 0.03, True), (0.5, 0.4, True)]
    bins = bid_calibration.binned(rows)
    assert [(b["n"], b["taken"]) for b in bins] == [(2, 0), (1, 1), (1, 1)]
    assert bins[0]["realized"] == pytest.approx(-0.3)
    assert bins[0]["half"] == pytest.approx(1.96 * 0.1414213 / 2**0.5, rel=1e-5)
    assert bid_calibration.label(bins[0]["from"], bins[0]["to"]) == "below -0.20"
    assert bid_calibration.label(bins[-1]["from"], bins[-1]["to"]) == "+0.20 and up"
    assert bid_calibration.slope([(0, 0, True), (1, 2, True), (2, 4, False)]) == 2.0


@pytest.mark.parametrize(
    ("first", "message"),
    [
        ("heuristic", "{heuristic}: the first bot must be montecarlo or a bot built on it"),
        ("{broken}", "{broken}: ModuleNotFoundError: No module named 'no_such_module_here'"),
    ],
)
def test_a_bad_first_bot_is_one_error_line(tmp_path: Path, first: str, message: str) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_here\n")
    names = {"broken": broken, "heuristic": REPO / "bots" / "heuristic.py"}
    result = run(tmp_path, first.format(**names), "heuristic", "heuristic", "--seeds", "1")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["error: " + message.format(**names)]


def test_ctrl_c_reports_the_sets_finished(small: Path) -> None:
    run = subprocess.Popen(
        [sys.executable, str(BENCH / "bid_calibration.py"), str(small), "heuristic", "random_bot"]
        + ["--seeds", "500", "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=small.parent,
    )
    assert run.stderr is not None
    assert run.stderr.readline().startswith("set 1/500: ")  # running, a set finished
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    finished = [line for line in err.splitlines() if line.startswith("interrupted:")]
    assert len(finished) == 1
    sets = int(finished[0].split()[1])
    assert 1 <= sets < 500
    assert re.search(rf"^# \d+ decisions of small, {sets} seeds x 6 seatings,$", out, re.M)
