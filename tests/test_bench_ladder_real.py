"""bench/variants.py and bench/ladder_real.py: the variants are valid, distinct, deterministic
bots that play; the quick run of the real-ladder harness runs ``arena ladder`` with a mid-run
submission, a kill -9 and a resume, locally and on Dask, against a sampled round robin."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bench_support import BENCH, run_bench

from arena.engine import play_match
from arena.sandbox.botfile import declared, load_bot_class
from arena.untrusted import name_skeleton

sys.path.insert(0, str(BENCH))

import variants  # noqa: E402


def test_the_variants_are_deterministic_and_distinct() -> None:
    field = variants.variants(31, seed=1)
    assert [v.source for v in field] == [v.source for v in variants.variants(31, seed=1)]
    assert [v.name for v in field] != [v.name for v in variants.variants(31, seed=2)]
    names = [v.name for v in field]
    bundled = {name_skeleton(n) for n in ("heuristic", "montecarlo", "random")}
    assert len({name_skeleton(n) for n in names} | bundled) == 34
    families = {v.family for v in field}
    assert families == {"montecarlo", "heuristic", "weak"}
    assert len({repr(sorted(v.params.items())) for v in field}) == 31
    for v in field:
        tree = ast.parse(v.source)
        assert declared(tree, "name") == v.name
        assert declared(tree, "author") == variants.AUTHOR


def test_each_family_plays_with_its_parameters(tmp_path: Path) -> None:
    made = variants.write(tmp_path, 10, seed=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(v.filename for v, _ in made)
    by_family = {v.family: path for v, path in made}
    mc = next(v for v, _ in made if v.family == "montecarlo")
    module_text = (tmp_path / mc.filename).read_text()
    assert f"WORK_BUDGET = {mc.params['work']:_}\n" in module_text
    assert f"PLAY_WORLDS = {mc.params['play_worlds']}\n" in module_text
    bots = [load_bot_class(by_family[f])() for f in ("montecarlo", "heuristic", "weak")]
    result = play_match(bots, seed=5)
    assert sorted(result.placements) in ([1, 2, 3], [1, 1, 3], [1, 2, 2], [1, 1, 1])
    assert max(result.scores) >= 10
    timid = variants.weak("timid-x", "timid")
    assert "BID_THRESHOLD = 9.0\n" in timid.source


def test_a_changed_bundled_bot_fails_loudly() -> None:
    with pytest.raises(RuntimeError, match="occurs 0 times"):
        variants._substitute("PLAY_WORLDS = 32\n", [("PLAY_WORLDS = 96\n", "x")])


def test_the_variants_command_line(tmp_path: Path) -> None:
    result = run_bench("variants.py", str(tmp_path / "field"), "--count", "4", "--seed", "9")
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 4
    assert len(list((tmp_path / "field").glob("*.py"))) == 4
    bad = run_bench("variants.py", str(tmp_path / "f2"), "--count", "2")
    assert bad.returncode == 1 and bad.stderr.strip().count("\n") == 0 and "--count" in bad.stderr
    assert not (tmp_path / "f2").exists()


def test_bad_times_are_one_error_line() -> None:
    result = run_bench("ladder_real.py", "--submit-at", "400", "--kill-at", "300")
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "--kill-at" in result.stderr
    assert result.stdout == ""


def test_the_quick_real_ladder(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH / "ladder_real.py"), "--quick", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for label in ("local, 2 workers", "dask, 2 workers"):

        def line(pattern: str, label: str = label) -> re.Match[str]:
            found = re.search(rf"^{label}: {pattern}", out, re.M)
            assert found is not None, (pattern, out)
            return found

        sets = line(r"(\d+) sets, (\d+) matches")
        assert int(sets.group(1)) > 0 and int(sets.group(2)) == 6 * int(sets.group(1))
        line(r"mid-run submission .* first set stored after [\d.]+ s")
        line(r"kill -9 .* whole sets only: True")
        line(r"resumed: finished sets kept: True;.*lost 0; whole sets only: True")
        line(r"longest wait \d+ sets")
        tau = line(r"Kendall's tau against the reference (-?[\d.]+)$")
        assert -1 <= float(tau.group(1)) <= 1
    ref = r"^reference: round robin of 10 of 20 triples, 60 matches \(60 played"
    assert re.search(ref, out, re.M), out
    results = json.loads((tmp_path / "results.json").read_text())
    assert [p["label"] for p in results["phases"]] == ["local, 2 workers", "dask, 2 workers"]
    # Every bot of the field, the latecomer included, is in the ladder's order.
    assert all(len(p["order"]) == 6 for p in results["phases"])
    assert results["phases"][0]["exits"][0] == -9
