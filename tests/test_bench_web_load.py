"""bench/web_load.py: a real ladder, the live pages and ``arena serve`` each loaded by
viewers from the loopback; every request is answered 200 and each server's line is there."""

from __future__ import annotations

import re
from pathlib import Path

from bench_support import run_bench


def test_a_small_load_test_measures_both_servers(tmp_path: Path) -> None:
    result = run_bench(
        "web_load.py", "--viewers", "6", "--seconds", "2", "--warm-sets", "1",
        "--clients", "1", "--dir", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for server in ("arena web", "arena serve"):
        line = next(x for x in out.splitlines() if x.startswith(server))
        found = re.search(r"(\d+) requests .* non-200 (\S+)  errors (\S+)", line)
        assert found is not None, line
        assert int(found.group(1)) > 0
        assert (found.group(2), found.group(3)) == ("0", "0"), line
    assert re.search(r"data versions [1-9]", out)
    assert re.search(r"^web/serve: requests/s x[\d.]+, p99 x[\d.]+", out, re.M)
    assert (tmp_path / "arena.db").is_file()
