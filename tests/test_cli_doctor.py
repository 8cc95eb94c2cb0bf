"""``arena doctor``: the layer report, the database check, and a real live sandboxed match."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.store import Store


def test_new_database_is_private_and_doctor_says_so(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store(db).close()
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    result = CliRunner().invoke(main, ["doctor", "--no-live", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert f"Database {db}: mode 0600 (private)" in result.output


def test_doctor_flags_a_world_readable_database(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    Store(db).close()
    db.chmod(0o644)
    result = CliRunner().invoke(main, ["doctor", "--no-live", "--json", "--db", str(db)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["database"] == {"path": str(db), "exists": True, "mode": "0644", "private": False}
    assert {la["name"] for la in report["layers"]} >= {"bwrap", "landlock", "seccomp", "rlimits"}


def test_doctor_live_check_plays_a_real_sandboxed_match(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["doctor", "--json", "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["database"]["exists"] is False
    live = report["live"]
    assert live["ok"] is True and live["faults"] == [] and live["leaks"] == []
